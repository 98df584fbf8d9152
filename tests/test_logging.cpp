// MLX_LITE_LOG: a child process of this binary (LoggingChild.Run) evaluates a graph
// with a custom kernel; the parent reads what the child wrote to stderr.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "mlx_lite/mlx_lite.h"

using namespace mlx_lite;
namespace fs = std::filesystem;

namespace {

// The child: one custom kernel (its source made new by the parent's nonce,
// so the first process compiles it) called twice, and a built-in add.
TEST(LoggingChild, Run) {
  const char* nonce = std::getenv("MLX_LITE_TEST_LOG_NONCE");
  if (!nonce) GTEST_SKIP() << "run by the Logging tests";
  auto kernel = fast::vulkan_kernel("logged_kernel", {"inp"}, {"out"},
                                    std::string("uint i = thread_position_in_grid.x;\n"
                                                "out[i] = inp[i] + 1.0; // ") +
                                        nonce + "\n");
  array x = arange(8.0, float32);
  for (int k = 0; k < 2; ++k) {
    array y = kernel({x}, {x.shape()}, {float32}, {8, 1, 1}, {8, 1, 1})[0];
    EXPECT_EQ(sum(y + x).item<float>(), 2 * 28.0f + 8.0f);
  }
}

struct Child {
  int status;
  std::string err;  // its stderr and stdout
};

class Logging : public ::testing::Test {
 protected:
  void SetUp() override {
    if (default_device().type != Device::gpu) GTEST_SKIP() << "needs a Vulkan device";
    dir_ = fs::temp_directory_path() /
           ("mlx_lite_log_" +
            std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
    fs::create_directories(dir_);
    nonce_ = dir_.filename().string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs LoggingChild.Run with MLX_LITE_LOG=`level`, the disk cache in dir_.
  Child run(const std::string& level) {
    const fs::path self = fs::read_symlink("/proc/self/exe");
    const fs::path err = dir_ / "stderr";
    const std::string command = "MLX_LITE_LOG='" + level + "' MLX_LITE_KERNEL_CACHE='" +
                                (dir_ / "cache").string() + "' MLX_LITE_TEST_LOG_NONCE='" + nonce_ +
                                "' '" + self.string() + "' --gtest_filter=LoggingChild.Run > '" +
                                err.string() + "' 2>&1";
    Child c{std::system(command.c_str()), ""};  // stdout too: gtest reports exceptions there
    std::stringstream text;
    text << std::ifstream(err).rdbuf();
    c.err = text.str();
    return c;
  }

  fs::path dir_;
  std::string nonce_;
};

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST_F(Logging, InfoReportsTheDeviceCompilesAndPipelines) {
  const Child first = run("info");
  ASSERT_EQ(first.status, 0) << first.err;
  EXPECT_EQ(count(first.err, "[mlx_lite] Vulkan device '"), 1u) << first.err;
  EXPECT_EQ(count(first.err, "[mlx_lite] default device gpu: "), 1u) << first.err;
  EXPECT_EQ(count(first.err, "[mlx_lite] kernel 'logged_kernel' compiled in "), 1u) << first.err;
  EXPECT_EQ(count(first.err, "[mlx_lite] pipeline 'logged_kernel' created in "), 1u) << first.err;
  EXPECT_GE(count(first.err, "[mlx_lite] pipeline '"), 2u) << "the add's too:\n" << first.err;
  EXPECT_EQ(count(first.err, "memory cache"), 0u) << "memory hits are debug:\n" << first.err;

  const Child second = run("info");  // a new process: the kernel comes from disk
  ASSERT_EQ(second.status, 0) << second.err;
  EXPECT_EQ(count(second.err, "kernel 'logged_kernel' loaded from the disk cache ("), 1u)
      << second.err;
  EXPECT_EQ(count(second.err, "compiled in"), 0u) << second.err;
}

TEST_F(Logging, DebugAddsMemoryHitsAndOffSaysNothing) {
  const Child debug = run("debug");
  ASSERT_EQ(debug.status, 0) << debug.err;
  EXPECT_EQ(count(debug.err, "[mlx_lite] kernel 'logged_kernel' from the memory cache"), 1u)
      << debug.err;
  // The driver's statistics of each pipeline, where it reports them (the
  // GPU machine's NVIDIA driver does, Debian 12's lavapipe does not).
  ASSERT_EQ(count(debug.err, "[mlx_lite] pipeline statistics: "), 1u) << debug.err;
  const size_t pipelines = count(debug.err, "' created in ");
  const size_t described = count(debug.err, ") statistics: ");
  if (count(debug.err, "pipeline statistics: logged for each pipeline") == 1) {
    EXPECT_EQ(described, pipelines) << debug.err;
    EXPECT_EQ(count(debug.err, "[mlx_lite] pipeline 'logged_kernel' (specialized "), 1u)
        << debug.err;
  } else {
    EXPECT_EQ(described, 0u) << debug.err;
  }
  for (const std::string level : {"", "off"}) {
    const Child quiet = run(level);
    ASSERT_EQ(quiet.status, 0) << quiet.err;
    EXPECT_EQ(count(quiet.err, "[mlx_lite]"), 0u) << "MLX_LITE_LOG='" << level << "':\n"
                                                  << quiet.err;
  }
}

TEST_F(Logging, ABadLevelIsAClearError) {
  const Child bad = run("verbose");
  EXPECT_NE(bad.status, 0);
  EXPECT_NE(
      bad.err.find("MLX_LITE_LOG is 'verbose'; expected 'off', 'warning', 'info' or 'debug'."),
      std::string::npos)
      << bad.err;
}

}  // namespace
