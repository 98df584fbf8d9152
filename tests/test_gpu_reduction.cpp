// Differential tests: the GPU Reduce kernel against the CPU backend, for
// every reduction and dtype, over axis sets and layouts, long rows and more
// rows than one grid dimension holds.
#include <gtest/gtest.h>

#include <cmath>

#include "gpu_test_util.h"

using namespace mlx_lite;
using namespace gpu_test;

namespace {

using Reduction = array (*)(const array&, const std::vector<int>&, bool, StreamOrDevice);

class GpuReduce : public gpu_test::GpuTest {};

}  // namespace

TEST_F(GpuReduce, EveryReductionDtypeAxesAndLayout) {
  const std::vector<std::pair<std::string, Reduction>> ops = {
      {"sum", sum}, {"prod", prod}, {"max", max}, {"min", min}, {"all", all}, {"any", any}};
  const std::vector<std::vector<int>> axes_sets = {{}, {0}, {2}, {0, 2}, {1, 2}, {0, 1, 2}};
  for (auto dtype : all_dtypes) {
    array base = test_values({4, 5, 6}, dtype, 1, -3, 3);
    const std::vector<std::pair<std::string, array>> layouts = {
        {"dense", base},
        {"transposed", transpose(base, {2, 0, 1})},
        {"reversed", slice(base, {3, 4, 5}, {-5, -6, -7}, {-1, -2, -1})},
        {"broadcast", broadcast_to(slice(base, {0, 0, 0}, {1, 5, 6}), {4, 5, 6})}};
    for (const auto& [layout, a] : layouts) {
      for (const auto& axes : axes_sets) {
        for (const auto& [name, op] : ops) {
          const double tol = is_floating_point(dtype) ? (dtype == float32 ? 1e-5 : 1e-2) : 0;
          expect_close(op(a, axes, false, kGpu), op(a, axes, false, kCpu), tol, tol,
                       name + " " + std::string(dtype_name(dtype)) + " " + layout);
        }
      }
    }
  }
}

TEST_F(GpuReduce, LongRowsAndNaN) {
  array a = test_values({3, 100003}, float32, 2, -3, 3);
  // Float sums accumulate in float on the GPU (double on the CPU).
  expect_close(sum(a, {1}, false, kGpu), sum(a, {1}, false, kCpu), 1e-4, 1e-4, "sum of long rows");
  expect_close(max(a, {1}, false, kGpu), max(a, {1}, false, kCpu), 0, 0, "max of long rows");
  array with_nan =
      where(equal(arange(12, kCpu), array(5), kCpu), array(NAN), arange(12.0, kCpu), kCpu);
  EXPECT_TRUE(std::isnan(max(with_nan, kGpu).item<float>()));
  EXPECT_TRUE(std::isnan(min(with_nan, kGpu).item<float>()));
}

TEST_F(GpuReduce, MoreRowsThanOneGridDimension) {
  // 70,000 outputs: one workgroup each, folded past 65535 into y.
  array a = test_values({70000, 3}, int32, 3, -3, 3);
  expect_close(sum(a, {1}, false, kGpu), sum(a, {1}, false, kCpu), 0, 0, "70000 rows");
}

TEST_F(GpuReduce, EmptyAxesGiveIdentities) {
  array a = zeros({3, 0}, float32, kCpu);
  expect_close(sum(a, {1}, false, kGpu), zeros({3}, float32, kCpu), 0, 0, "empty sum");
  expect_close(prod(a, {1}, false, kGpu), ones({3}, float32, kCpu), 0, 0, "empty prod");
  EXPECT_TRUE(all(a, kGpu).item<bool>());
  EXPECT_FALSE(any(a, kGpu).item<bool>());
}
