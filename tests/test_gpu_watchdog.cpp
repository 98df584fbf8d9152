// How the host waits for GPU work (backend/vulkan/gpu_timeout.h).
// MLX_LITE_GPU_TIMEOUT, the watchdog on GPU waits: work that runs past it
// becomes a std::runtime_error, the GPU refuses later work with the reason,
// and the CPU device keeps working. MLX_LITE_GPU_SPIN, the polling before a
// wait sleeps, changes no result. Both are read once per process, so each
// test runs as its own ctest entry with its variable set
// (tests/CMakeLists.txt) and skips elsewhere.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <string>

#include "gpu_test_util.h"
#include "test_util.h"

using namespace mlx_lite;
using gpu_test::kCpu;
using gpu_test::kGpu;
using test_util::error_of;

namespace {

class GpuWatchdog : public gpu_test::GpuTest {};

bool env_is(const char* name, const std::string& want) {
  const char* env = std::getenv(name);
  return env != nullptr && want == env;
}

#define REQUIRE_ENV(name, want) \
  if (!env_is(name, want))      \
  GTEST_SKIP() << "runs as its own ctest entry, with " << (name) << "=" << (want)
#define REQUIRE_TIMEOUT(want) REQUIRE_ENV("MLX_LITE_GPU_TIMEOUT", want)
#define REQUIRE_SPIN(want) REQUIRE_ENV("MLX_LITE_GPU_SPIN", want)

// Each thread loops 60,000 times (under lavapipe's cap of 65,535), over a
// grid of 2^20 threads: minutes of work on lavapipe, more than a second on
// any GPU. The sum keeps the loop from being optimized away.
array runaway_kernel_output() {
  auto kernel = fast::vulkan_kernel("runaway", {"seed"}, {"out"}, R"(
    uint i = thread_position_in_grid.x;
    float x = seed[0] + float(i);
    for (int k = 0; k < 60000; ++k) x = x * 0.999999f + sin(x);
    out[i] = x;
  )");
  const int n = 1 << 20;
  return kernel({array({1.0f})}, {{n}}, {float32}, {n, 1, 1}, {256, 1, 1})[0];
}

TEST_F(GpuWatchdog, WorkPastTheLimitThrowsAndRetiresTheGpu) {
  REQUIRE_TIMEOUT("0.5");
  array runaway = runaway_kernel_output();
  const auto start = std::chrono::steady_clock::now();
  const std::string what = error_of<std::runtime_error>([&] { eval(runaway); });
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_NE(what.find("[gpu] GPU work did not finish"), std::string::npos) << what;
  EXPECT_NE(what.find("MLX_LITE_GPU_TIMEOUT=0.5 s"), std::string::npos) << what;
  EXPECT_LT(seconds, 30) << "the wait was not bounded";

  // Later GPU work is refused with the reason, at once.
  const std::string later =
      error_of<std::runtime_error>([] { eval(add(array(1), array(2), kGpu)); });
  EXPECT_NE(later.find("The GPU cannot run more work in this process"), std::string::npos) << later;
  EXPECT_NE(later.find("MLX_LITE_GPU_TIMEOUT"), std::string::npos) << later;

  // The CPU device is untouched.
  array three = add(array(1), array(2), kCpu);
  EXPECT_EQ(three.item<int>(), 3);
}

TEST_F(GpuWatchdog, MalformedLimitIsReported) {
  REQUIRE_TIMEOUT("soon");
  const std::string what =
      error_of<std::invalid_argument>([] { eval(add(array({1.0f}), array({2.0f}), kGpu)); });
  EXPECT_NE(what.find("MLX_LITE_GPU_TIMEOUT is 'soon'"), std::string::npos) << what;
  EXPECT_NE(what.find("positive number of seconds"), std::string::npos) << what;
}

// Ordinary work under a limit runs as before.
TEST_F(GpuWatchdog, WorkWithinTheLimitIsUnaffected) {
  REQUIRE_TIMEOUT("60");
  array x = arange(1000.0, kGpu);
  EXPECT_EQ(sum(x, false, kGpu).item<float>(), 999.0f * 1000 / 2);
}

// Spinning for 20 ms: waits that end within it (small ops) and a wait that
// outlasts it and sleeps (a 1024^2 matmul: a few hundred milliseconds on
// lavapipe) give the CPU's results.
TEST_F(GpuWatchdog, SpinningWaitsGiveTheSameResults) {
  REQUIRE_SPIN("0.02");
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(add(array(i), array(2), kGpu).item<int>(), i + 2);
  }
  array a = random::uniform(-1, 1, {1024, 1024}, float32, random::key(3), kCpu);
  array b = random::uniform(-1, 1, {1024, 1024}, float32, random::key(4), kCpu);
  array cpu = matmul(a, b, kCpu);
  array gpu = matmul(a, b, kGpu);
  EXPECT_TRUE(allclose(gpu, cpu, 1e-4, 1e-4, false, kCpu).item<bool>());  // K = 1024 sums
}

TEST_F(GpuWatchdog, MalformedSpinIsReported) {
  REQUIRE_SPIN("2");
  const std::string what =
      error_of<std::invalid_argument>([] { eval(add(array({1.0f}), array({2.0f}), kGpu)); });
  EXPECT_NE(what.find("MLX_LITE_GPU_SPIN is '2'"), std::string::npos) << what;
  EXPECT_NE(what.find("from 0 to 1"), std::string::npos) << what;
}

}  // namespace
