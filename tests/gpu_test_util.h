// What the differential GPU suites (tests/test_gpu_*.cpp) share: inputs every
// dtype holds, a GPU-against-CPU comparison, and a fixture that skips when no
// Vulkan device exists.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "mlx_lite/gpu.h"
#include "mlx_lite/mlx_lite.h"
#include "mlx_lite/testing.h"

namespace gpu_test {

using namespace mlx_lite;

inline const Device kCpu(Device::cpu);
inline const Device kGpu(Device::gpu);

// The dtypes the GPU computes in: all_dtypes less float64, which is CPU only
// (as in MLX). The suites' "every dtype" loops run over these; that the GPU
// refuses float64 is tested in test_mlx_dtypes (Float64OnTheGpuThrows).
inline const std::vector<Dtype> gpu_dtypes = [] {
  std::vector<Dtype> out;
  for (Dtype t : all_dtypes) {
    if (t != float64) out.push_back(t);
  }
  return out;
}();

// Values that every dtype holds (integers and halves in [lo, hi), made
// non-negative for unsigned dtypes and a sign test for bool), evaluated on
// the CPU, or on `where`; calls that differ by `seed` give different values.
// Values no CPU reference reads are quicker made on the GPU: the CPU
// backend's ops read device memory, which a GPU machine's host reads slowly.
inline array test_values(const Shape& shape, Dtype dtype, uint64_t seed, float lo = -4,
                         float hi = 4, const Device& where = kCpu) {
  array u = random::uniform(lo, hi, shape, float32, random::key(seed), where);
  if (!is_floating_point(dtype)) u = floor(u, where);
  if (dtype == bool_) u = greater(u, array(0.0f), where);
  if (is_unsigned(dtype)) u = abs(u, where);
  array out = astype(u, dtype, where);
  eval(out);
  return out;
}

// GPU and CPU results of one shape and dtype, read as dense float32 on the
// CPU, agree within atol + rtol * |cpu| (NaN where the CPU has NaN, infinities
// exactly).
inline void expect_close(const array& gpu_result, const array& cpu_result, double rtol, double atol,
                         const std::string& what) {
  ASSERT_EQ(gpu_result.shape(), cpu_result.shape()) << what;
  ASSERT_EQ(gpu_result.dtype(), cpu_result.dtype()) << what;
  // As float32, each read by one bulk copy (test::detail::host_values).
  const std::vector<float> gp = test::detail::host_values<float>(gpu_result);
  const std::vector<float> cp = test::detail::host_values<float>(cpu_result);
  for (size_t i = 0; i < gp.size(); ++i) {
    if (std::isnan(cp[i])) {
      EXPECT_TRUE(std::isnan(gp[i])) << what << " at " << i;
      continue;
    }
    if (std::isinf(cp[i])) {
      EXPECT_EQ(gp[i], cp[i]) << what << " at " << i;
      continue;
    }
    ASSERT_NEAR(gp[i], cp[i], atol + rtol * std::abs(cp[i])) << what << " at " << i;
  }
}

// Relative tolerance of one float op's result: GPU and CPU math differ by ulps.
inline double rtol_of(Dtype t) {
  return t == float32 ? 2e-6 : (t == float16 ? 1e-3 : 8e-3);
}

class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!gpu::is_available()) GTEST_SKIP() << "no Vulkan device";
  }
};

}  // namespace gpu_test
