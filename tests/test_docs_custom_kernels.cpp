// docs/custom_kernels.md's C++ examples, compiled and run: tests/doc_tests.cmake
// turns each ```cpp block of the document into the body of a TEST (blocks
// after <!-- doc-test: continue --> join the previous one) and each block
// after <!-- doc-test: stdout --> into what that TEST must print. This file
// is what every block may assume: the includes and names below.
#include <gtest/gtest.h>

#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "examples/grid_sample_kernels.h"
#include "mlx_lite/gpu.h"
#include "mlx_lite/mlx_lite.h"
#include "mlx_lite/testing.h"

using namespace mlx_lite;

namespace {

// Text with the spaces at the ends of its lines removed (editors strip them
// from the document; glslang's messages end some lines with one).
std::string without_trailing_spaces(const std::string& text) {
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    line.erase(line.find_last_not_of(" \t") + 1);
    out += line;
    if (end < text.size()) out += '\n';
    start = end + 1;
  }
  return out;
}

// Captures the test's standard output and compares it, at the end of the
// test, with the document's expected output (none: anything goes).
class DocStdout {
 public:
  explicit DocStdout(std::string expected) : expected_(std::move(expected)) {
    if (!gpu::is_available()) return;
    ::testing::internal::CaptureStdout();
    capturing_ = true;
  }
  ~DocStdout() {
    if (!capturing_) return;
    const std::string printed = ::testing::internal::GetCapturedStdout();
    std::cout << printed;
    if (!expected_.empty()) {
      EXPECT_EQ(without_trailing_spaces(printed), without_trailing_spaces(expected_))
          << "The example's output differs from docs/custom_kernels.md's: update the document.";
    }
  }
  DocStdout(const DocStdout&) = delete;
  DocStdout& operator=(const DocStdout&) = delete;

 private:
  std::string expected_;
  bool capturing_ = false;
};

// Every block needs the GPU (custom kernels run on it).
class DocsCustomKernels : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!gpu::is_available() || default_device().type != Device::gpu) {
      GTEST_SKIP() << "no usable Vulkan device (custom kernels run on the GPU only)";
    }
  }
};

// The declarations the document quotes (its c++ block under "The API").
static_assert(std::is_same_v<fast::TemplateArg, std::variant<int, bool, Dtype>>);
static_assert(std::is_same_v<
              decltype(&fast::vulkan_kernel),
              fast::CustomKernelFunction (*)(const std::string&, const std::vector<std::string>&,
                                             const std::vector<std::string>&, const std::string&,
                                             const std::string&, bool, bool, bool)>);
static_assert(std::is_same_v<decltype(&fast::CustomKernelFunction::operator()),
                             std::vector<array> (fast::CustomKernelFunction::*)(
                                 const std::vector<array>&, const std::vector<Shape>&,
                                 const std::vector<Dtype>&, std::tuple<int, int, int>,
                                 std::tuple<int, int, int>,
                                 const std::vector<std::pair<std::string, fast::TemplateArg>>&,
                                 std::optional<float>, bool, StreamOrDevice) const>);

#include "docs_custom_kernels_blocks.inc"

}  // namespace
