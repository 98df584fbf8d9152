// Differential tests: the GPU Reduce kernel against the CPU backend, for
// every reduction and dtype, over axis sets and layouts, long rows and more
// rows than one grid dimension holds.
#include <gtest/gtest.h>

#include <cmath>

#include "mlx_lite/gpu.h"
#include "mlx_lite/mlx_lite.h"

using namespace mlx_lite;

namespace {

const Device kCpu(Device::cpu);
const Device kGpu(Device::gpu);

array values_of(const Shape& shape, Dtype dtype, uint64_t seed) {
  array u = random::uniform(-3.0f, 3.0f, shape, float32, random::key(seed), kCpu);
  if (!is_floating_point(dtype)) u = floor(u, kCpu);
  if (is_unsigned(dtype)) u = abs(u, kCpu);
  if (dtype == bool_) u = greater(u, array(0.0f), kCpu);
  array out = astype(u, dtype, kCpu);
  eval(out);
  return out;
}

// GPU and CPU results as dense float32, compared with `rtol` relative to
// `scale` (the size of the terms, for sums whose result may cancel to 0).
void expect_close(const array& g, const array& c, double tol, const std::string& what) {
  ASSERT_EQ(g.shape(), c.shape()) << what;
  ASSERT_EQ(g.dtype(), c.dtype()) << what;
  array gf = contiguous(astype(g, float32, kCpu), false, kCpu);
  array cf = contiguous(astype(c, float32, kCpu), false, kCpu);
  eval({gf, cf});
  for (size_t i = 0; i < gf.size(); ++i) {
    float x = gf.data<float>()[i], y = cf.data<float>()[i];
    if (std::isnan(y)) {
      EXPECT_TRUE(std::isnan(x)) << what << " at " << i;
    } else if (std::isinf(y)) {
      EXPECT_EQ(x, y) << what << " at " << i;
    } else {
      ASSERT_NEAR(x, y, tol * (1 + std::abs(y))) << what << " at " << i;
    }
  }
}

using Reduction = array (*)(const array&, const std::vector<int>&, bool, StreamOrDevice);

class GpuReduce : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!gpu::is_available()) GTEST_SKIP() << "no Vulkan device";
  }
};

}  // namespace

TEST_F(GpuReduce, EveryReductionDtypeAxesAndLayout) {
  const std::vector<std::pair<std::string, Reduction>> ops = {
      {"sum", sum}, {"prod", prod}, {"max", max}, {"min", min}, {"all", all}, {"any", any}};
  const std::vector<std::vector<int>> axes_sets = {{}, {0}, {2}, {0, 2}, {1, 2}, {0, 1, 2}};
  for (auto dtype : all_dtypes) {
    array base = values_of({4, 5, 6}, dtype, 1);
    const std::vector<std::pair<std::string, array>> layouts = {
        {"dense", base},
        {"transposed", transpose(base, {2, 0, 1})},
        {"reversed", slice(base, {3, 4, 5}, {-5, -6, -7}, {-1, -2, -1})},
        {"broadcast", broadcast_to(slice(base, {0, 0, 0}, {1, 5, 6}), {4, 5, 6})}};
    for (const auto& [layout, a] : layouts) {
      for (const auto& axes : axes_sets) {
        for (const auto& [name, op] : ops) {
          const double tol = is_floating_point(dtype) ? (dtype == float32 ? 1e-5 : 1e-2) : 0;
          expect_close(op(a, axes, false, kGpu), op(a, axes, false, kCpu), tol,
                       name + " " + std::string(dtype_name(dtype)) + " " + layout);
        }
      }
    }
  }
}

TEST_F(GpuReduce, LongRowsAndNaN) {
  array a = values_of({3, 100003}, float32, 2);
  // Float sums accumulate in float on the GPU (double on the CPU).
  expect_close(sum(a, {1}, false, kGpu), sum(a, {1}, false, kCpu), 1e-4, "sum of long rows");
  expect_close(max(a, {1}, false, kGpu), max(a, {1}, false, kCpu), 0, "max of long rows");
  array with_nan =
      where(equal(arange(12, kCpu), array(5), kCpu), array(NAN), arange(12.0, kCpu), kCpu);
  EXPECT_TRUE(std::isnan(max(with_nan, kGpu).item<float>()));
  EXPECT_TRUE(std::isnan(min(with_nan, kGpu).item<float>()));
}

TEST_F(GpuReduce, MoreRowsThanOneGridDimension) {
  // 70,000 outputs: one workgroup each, folded past 65535 into y.
  array a = values_of({70000, 3}, int32, 3);
  expect_close(sum(a, {1}, false, kGpu), sum(a, {1}, false, kCpu), 0, "70000 rows");
}

TEST_F(GpuReduce, EmptyAxesGiveIdentities) {
  array a = zeros({3, 0}, float32, kCpu);
  expect_close(sum(a, {1}, false, kGpu), zeros({3}, float32, kCpu), 0, "empty sum");
  expect_close(prod(a, {1}, false, kGpu), ones({3}, float32, kCpu), 0, "empty prod");
  EXPECT_TRUE(all(a, kGpu).item<bool>());
  EXPECT_FALSE(any(a, kGpu).item<bool>());
}
