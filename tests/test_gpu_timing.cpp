// gpu::start_timing / stop_timing (mlx_lite/gpu.h): the GPU time of a real
// workload is positive and no more than the wall time around it, and work
// outside the timed region (before it, after it, on another thread) is not
// counted. No other assertion on a time: those depend on the machine.
#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <thread>

#include "gpu_test_util.h"

using namespace mlx_lite;
using gpu_test::kGpu;

namespace {

class GpuTiming : public gpu_test::GpuTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    if (!IsSkipped() && !gpu::timing_supported()) GTEST_SKIP() << "the device cannot time";
  }
};

array filled(int n, float value) {
  array a = full({n}, value, float32, kGpu);
  eval(a);
  return a;
}

// `ops` dependent adds of 1M float32 in one eval: with ops past the first
// batch's 8 dispatches, several batches.
array chain(const array& a, const array& b, int ops) {
  array y = a;
  for (int i = 0; i < ops; ++i) y = add(y, b, kGpu);
  return y;
}

struct Timed {
  double gpu_ns, wall_ns;
};

template <class F>
Timed time_region(F&& work) {
  const auto start = std::chrono::steady_clock::now();
  gpu::start_timing();
  work();
  const double gpu_ns = gpu::stop_timing();
  const std::chrono::duration<double, std::nano> wall = std::chrono::steady_clock::now() - start;
  return {gpu_ns, wall.count()};
}

}  // namespace

TEST_F(GpuTiming, AnAddOfOneMillionFloatsTakesPositiveTimeWithinTheWallTime) {
  array a = filled(1 << 20, 1.0f), b = filled(1 << 20, 2.0f);
  array out = add(a, b, kGpu);
  const Timed t = time_region([&] { eval(out); });
  EXPECT_GT(t.gpu_ns, 0);
  EXPECT_LE(t.gpu_ns, t.wall_ns);
  EXPECT_EQ(sum(out, Device(Device::cpu)).item<float>(), 3.0f * (1 << 20));
}

TEST_F(GpuTiming, SumsTheBatchesOfALongEval) {
  array a = filled(1 << 20, 0.0f), b = filled(1 << 20, 1.0f);
  array out = chain(a, b, 40);  // batches of 8, 16 and 16 dispatches
  const Timed t = time_region([&] { eval(out); });
  EXPECT_GT(t.gpu_ns, 0);
  EXPECT_LE(t.gpu_ns, t.wall_ns);
  EXPECT_EQ(out.data<float>()[12345], 40.0f);
}

TEST_F(GpuTiming, WorkBeforeAndAfterTheRegionIsNotCounted) {
  array a = filled(1 << 20, 0.0f), b = filled(1 << 20, 1.0f);
  // Much more GPU work just before and just after a small timed one: were
  // either counted, the GPU time would exceed the region's wall time.
  eval(chain(a, b, 40));
  array small = add(filled(16, 1.0f), filled(16, 2.0f), kGpu);
  const Timed t = time_region([&] { eval(small); });
  eval(chain(a, b, 40));
  EXPECT_GT(t.gpu_ns, 0);
  EXPECT_LE(t.gpu_ns, t.wall_ns);

  // Work still running when timing starts, and none recorded in the region.
  async_eval({chain(a, b, 40)});
  EXPECT_EQ(time_region([] {}).gpu_ns, 0);
}

TEST_F(GpuTiming, AnotherThreadsWorkIsNotCounted) {
  array a = filled(1 << 20, 0.0f), b = filled(1 << 20, 1.0f);
  const Timed t = time_region([&] {
    std::thread other([&] { eval(chain(a, b, 40)); });
    other.join();
  });
  EXPECT_EQ(t.gpu_ns, 0);
}

TEST_F(GpuTiming, DeviceInfoHasTheTimestampBits) {
  EXPECT_GT(std::get<size_t>(gpu::device_info().at("timestamp_valid_bits")), 0u);
}

TEST_F(GpuTiming, MisuseIsALogicError) {
  EXPECT_THROW(gpu::stop_timing(), std::logic_error);
  gpu::start_timing();
  EXPECT_THROW(gpu::start_timing(), std::logic_error);
  EXPECT_EQ(gpu::stop_timing(), 0);
  EXPECT_THROW(gpu::stop_timing(), std::logic_error);
}
