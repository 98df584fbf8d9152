// The GPU backend's limits and faults: allocations the device cannot hold,
// the memory limit, arrays past what one kernel binding addresses, and
// arrays past 2^31 bytes and elements where the device allows them.
#include <gtest/gtest.h>

#include <string>

#include "gpu_test_util.h"

using namespace mlx_lite;
using namespace gpu_test;

namespace {

class GpuMemory : public GpuTest {};

size_t storage_buffer_range() {
  return std::get<size_t>(gpu::device_info().at("max_storage_buffer_range"));
}

// The message of the runtime_error that evaluating `a` throws.
std::string eval_error(const array& a) {
  try {
    eval(a);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "no exception";
}

}  // namespace

TEST_F(GpuMemory, AllocationPastTheDeviceThrowsNamingTheSizeAndTheLibraryGoesOn) {
  // 2^40 float32: 4 TiB, more than any device heap.
  array huge = add(zeros({1 << 20, 1 << 20}, float32, kGpu), array(1.0f), kGpu);
  std::string message = eval_error(huge);
  EXPECT_NE(message.find("4398046511104 bytes"), std::string::npos) << message;
  EXPECT_NE(message.find("out of memory"), std::string::npos) << message;
  EXPECT_EQ(add(array(1.0f), array(2.0f), kGpu).item<float>(), 3.0f);
  EXPECT_EQ(get_active_memory() < (size_t{1} << 30), true);
}

TEST_F(GpuMemory, MemoryLimitThrowsThenTheSameGraphEvaluates) {
  array a = test_values({1 << 18}, float32, 1);  // 1 MiB
  const size_t old = set_memory_limit(get_active_memory() + (1 << 19));
  array b = exp(a, kGpu);
  std::string message = eval_error(b);
  EXPECT_NE(message.find("1048576 bytes"), std::string::npos) << message;
  EXPECT_NE(message.find("memory limit"), std::string::npos) << message;
  set_memory_limit(old);
  expect_close(b, exp(a, kCpu), 2e-6, 0, "exp after the limit was lifted");
}

TEST_F(GpuMemory, ArrayPastTheBindingRangeGetsAClearError) {
  const size_t range = storage_buffer_range();
  if (range >= (size_t{1} << 30)) GTEST_SKIP() << "the binding range is " << range << " bytes";
  // One more float32 than a binding reaches (lavapipe: 128 MiB).
  const int n = static_cast<int>(range / 4) + 1;
  array a = zeros({n}, float32, kCpu);
  eval(a);
  std::string message = eval_error(add(a, array(1.0f), kGpu));
  EXPECT_NE(message.find("maxStorageBufferRange"), std::string::npos) << message;
  EXPECT_NE(message.find(std::to_string(size_t(n) * 4) + " bytes"), std::string::npos) << message;
  // A view that stays inside the range works.
  array head = slice(a, {0}, {n - 1});
  EXPECT_EQ(sum(add(head, array(1.0f), kGpu), false, kCpu).item<float>(), float(n - 1));
}

// Runs where one binding reaches past 2^31 bytes (an H100: 4 GiB - 1).
TEST_F(GpuMemory, ElementsPast2GiBAndPast2To31Elements) {
  constexpr int kRows = (1 << 23) + 16;  // rows of 256: 2^31 + 4096 elements
  constexpr int64_t n = int64_t{kRows} * 256;
  if (storage_buffer_range() <= size_t(n)) GTEST_SKIP() << "the binding range is too small";
  // uint8: more than 2^31 elements, each written by a broadcast copy and an add.
  array ramp = arange(0, 256, 1, uint8, kGpu);
  array bytes = add(copy(broadcast_to(ramp, {kRows, 256}), kGpu), array(uint8_t{1}), kGpu);
  // 600M float32 and int32: more than 2^31 bytes each.
  array floats =
      add(astype(arange(0, 600'000'003, 1, int32, kGpu), float32, kGpu), array(0.5f), kGpu);
  eval({bytes, floats});
  const uint8_t* b = bytes.data<uint8_t>();
  for (int64_t i : {int64_t{0}, (int64_t{1} << 31) - 1, int64_t{1} << 31, n - 1}) {
    EXPECT_EQ(b[i], uint8_t((i + 1) & 0xff)) << i;
  }
  const float* f = floats.data<float>();
  for (int64_t i : {int64_t{0}, int64_t{536'870'913}, int64_t{600'000'002}}) {
    EXPECT_EQ(f[i], float(i) + 0.5f) << i;
  }
  // Each row sums to 1 + ... + 255 + 0 (uint8 wraps); uint32's sum wraps too.
  EXPECT_EQ(sum(bytes, false, kGpu).item<uint32_t>(), uint32_t(int64_t{kRows} * 32640));
}
