// Arrays of 2^31 elements and more on the CPU (issue 15, item 2): element
// counts, merged dims and loop counters are 64-bit. Broadcast inputs (stride
// 0) cost no memory; the dense arrays are uint8, 2 GiB each, so ctest runs
// this program with MLX_LITE_DEVICE=cpu (tests/CMakeLists.txt): lavapipe's
// Vulkan allocations hold at most 2 GiB. Float sums of many elements on both
// devices are in test_gpu_reduction.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "mlx_lite/mlx_lite.h"

using namespace mlx_lite;

namespace {

const Device kCpu(Device::cpu);

// 2^31 + 2^16 elements: past INT32_MAX as a count, (32769, 65536) as a shape.
constexpr int kRows = 32769, kCols = 65536;
constexpr int64_t kDense = int64_t{kRows} * kCols;

TEST(LargeArrays, CpuSumOfBroadcastOnesPast32Bits) {
  // The merged dim of 2^31 wrapped to INT32_MIN (the sum gave 0) and 2^32
  // to 0 (SIGFPE in the loop bounds).
  array ones31 = broadcast_to(array(1.0f), {32768, 65536});
  EXPECT_EQ(sum(ones31, false, kCpu).item<float>(), std::ldexp(1.0f, 31));
  array ones32 = broadcast_to(array(int64_t{1}), {65536, 65536});
  EXPECT_EQ(sum(ones32, false, kCpu).item<int64_t>(), int64_t{1} << 32);
}

// A dense uint8 array of shape (kRows, kCols): ones, then 0, 1, ..., 63 in
// the last 64 elements. Broadcasts and a small array concatenated, so the
// copy of the first kRows - 1 rows walks 2^31 elements through strides.
array dense_uint8() {
  const array one(uint8_t{1}, uint8);
  array last = concatenate({broadcast_to(one, {kCols - 64}), arange(64.0, uint8, kCpu)}, 0, kCpu);
  array x = concatenate({broadcast_to(one, {kRows - 1, kCols}), reshape(last, {1, kCols}, kCpu)}, 0,
                        kCpu);
  eval(x);
  return x;
}

TEST(LargeArrays, CpuDenseUint8PastInt32Max) {
  array x = dense_uint8();
  ASSERT_EQ(x.size(), static_cast<size_t>(kDense));
  const uint8_t* p = x.data<uint8_t>();
  EXPECT_EQ(p[0], 1);
  EXPECT_EQ(p[(int64_t{1} << 31) + 5], 1);  // past INT32_MAX
  EXPECT_EQ(p[kDense - 65], 1);
  for (int i = 0; i < 64; ++i) ASSERT_EQ(p[kDense - 64 + i], i) << i;

  // sum widens uint8 to uint32: (kDense - 64) ones and 0 + 1 + ... + 63.
  EXPECT_EQ(sum(x, false, kCpu).item<uint32_t>(), static_cast<uint32_t>(kDense - 64 + 2016));

  // add through the dense path; the last elements are 1 ... 64.
  {
    array y = add(x, array(uint8_t{1}, uint8), kCpu);
    eval(y);
    const uint8_t* q = y.data<uint8_t>();
    EXPECT_EQ(q[0], 2);
    EXPECT_EQ(q[kDense - 65], 2);
    for (int i = 0; i < 64; ++i) ASSERT_EQ(q[kDense - 64 + i], i + 1) << i;
  }

  // A copy with the rows reversed (a strided read): the last row comes first.
  {
    array r = copy(slice(x, {kRows - 1, 0}, {-kRows - 1, kCols}, {-1, 1}, kCpu), kCpu);
    eval(r);
    const uint8_t* q = r.data<uint8_t>();
    for (int i = 0; i < 64; ++i) ASSERT_EQ(q[kCols - 64 + i], i) << i;
    EXPECT_EQ(q[kCols], 1);
    EXPECT_EQ(q[kDense - 1], 1);
  }
}

}  // namespace
