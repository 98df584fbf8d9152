// The tuned grid_sample kernels (examples/grid_sample_tuned.h) against the
// composed reference (examples/grid_sample_ref.h) on the CPU: every forward
// variant, the bucketed VJP (x_grad and grid_grad), its determinism, and
// grad through the custom_function. Small shapes for lavapipe: C = 1, 3, 4,
// 33, 64 (vec4 and scalar paths), batch 1 and 3, odd H and W, grid points
// outside [-1, 1], and many points per cell (large buckets).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "examples/grid_sample_ref.h"
#include "examples/grid_sample_tuned.h"
#include "gpu_test_util.h"
#include "grid_sample_test_util.h"
#include "mlx_lite/testing.h"
#include "test_util.h"

using namespace mlx_lite;
using gpu_test::kCpu;
using grid_sample_test::Case;
using grid_sample_test::cotangent;
using grid_sample_test::DeviceScope;
using grid_sample_test::grid_sample_ref_fn;
using grid_sample_test::expect_value_and_grad_match_the_reference;
using test_util::values_as;

namespace {

// x ~ N(0, 1); grid uniform in [-lim, lim] (some points partly or wholly
// outside x), a few set far outside and on the image's corners.
std::pair<array, array> inputs(const Case& c, uint64_t seed, float lim = 1.3f) {
  std::mt19937 gen(static_cast<unsigned>(seed));
  std::normal_distribution<float> pixel(0.0f, 1.0f);
  std::uniform_real_distribution<float> coord(-lim, lim);
  std::vector<float> xs(static_cast<size_t>(c.N) * c.H * c.W * c.C);
  std::vector<float> gs(static_cast<size_t>(c.N) * c.gH * c.gW * 2);
  for (auto& v : xs) v = pixel(gen);
  for (auto& v : gs) v = coord(gen);
  gs[0] = 5.0f;  // far outside: every corner masked
  gs[1] = -5.0f;
  if (gs.size() > 6) {
    gs[2] = -1.0f;  // the image's corners
    gs[3] = 1.0f;
    gs[4] = 1.0f;
    gs[5] = -1.0f;
  }
  array x(xs.begin(), {c.N, c.H, c.W, c.C});
  array grid(gs.begin(), {c.N, c.gH, c.gW, 2});
  eval({x, grid});
  return {x, grid};
}

// The reference's output and (x_grad, grid_grad) for cotangent `cot`, on the CPU.
std::pair<array, std::vector<array>> reference(const array& x, const array& grid,
                                               const array& cot) {
  DeviceScope cpu(kCpu);
  auto [outs, grads] = vjp(grid_sample_ref_fn, {x, grid}, {cot});
  eval({outs[0], grads[0], grads[1]});
  return {outs[0], grads};
}

bool bit_identical(const array& a, const array& b) {
  array ca = contiguous(a, false, kCpu), cb = contiguous(b, false, kCpu);
  eval({ca, cb});
  return ca.shape() == cb.shape() && ca.nbytes() == cb.nbytes() &&
         std::memcmp(ca.data<float>(), cb.data<float>(), ca.nbytes()) == 0;
}

const std::vector<Case> kCases = {
    {1, 5, 7, 1, 4, 6},    // C = 1, odd H and W
    {3, 5, 7, 3, 4, 3},    // batch 3, C = 3
    {1, 5, 7, 4, 6, 5},    // C = 4: one vec4
    {3, 6, 5, 33, 3, 4},   // C = 33: scalar
    {1, 9, 11, 64, 7, 5},  // C = 64: vec4, 8 channels per thread
    {3, 4, 4, 8, 9, 9},    // odd number of points (variant 2's second half)
    {2, 1, 3, 4, 3, 5},    // H = 1
    {1, 5, 3, 6, 4, 4},    // C = 6: scalar, 2 channels per x_grad thread
};

class GridSampleTuned : public gpu_test::GpuTest, public ::testing::WithParamInterface<Case> {};

TEST_P(GridSampleTuned, ForwardVariantsMatchTheReference) {
  const Case c = GetParam();
  auto [x, grid] = inputs(c, 1);
  auto [ref, grads] = reference(x, grid, cotangent(c, 2));
  for (int variant : {0, 1, 2}) {
    array out = examples::grid_sample_tuned_forward(x, grid, variant);
    EXPECT_ALLCLOSE(out, ref, 1e-5, 1e-5) << "variant " << variant;
  }
}

TEST_P(GridSampleTuned, VjpMatchesAutodiffOfTheReference) {
  const Case c = GetParam();
  auto [x, grid] = inputs(c, 3);
  array cot = cotangent(c, 4);
  auto [ref, grads] = reference(x, grid, cot);
  auto [x_grad, grid_grad] = examples::grid_sample_tuned_vjp(x, grid, cot);
  EXPECT_ALLCLOSE(x_grad, grads[0], 1e-4, 1e-5) << "x_grad";
  EXPECT_ALLCLOSE(grid_grad, grads[1], 1e-4, 1e-5 * c.C * std::max(c.H, c.W)) << "grid_grad";
  // x_grad with one vector per thread (the default takes two where it can).
  auto stages = examples::grid_sample_tuned_detail::vjp_stages(x, grid, cot, 1);
  EXPECT_ALLCLOSE(stages.x_grad, grads[0], 1e-4, 1e-5) << "x_grad, 1 vector per thread";
}

INSTANTIATE_TEST_SUITE_P(Shapes, GridSampleTuned, ::testing::ValuesIn(kCases),
                         ::testing::PrintToStringParamName());

class GridSampleTunedMisc : public gpu_test::GpuTest {};

// Many points per cell (a 4x5 image sampled at 24x20 points, so buckets of
// up to ~30 points in all orders): the bucket sort, and a VJP that gives the
// same bits twice.
TEST_F(GridSampleTunedMisc, LargeBucketsAreRightAndDeterministic) {
  for (int C : {3, 8}) {
    const Case c{2, 4, 5, C, 24, 20};
    auto [x, grid] = inputs(c, 5, 1.1f);
    array cot = cotangent(c, 6);
    auto [ref, grads] = reference(x, grid, cot);
    auto [x_grad, grid_grad] = examples::grid_sample_tuned_vjp(x, grid, cot);
    auto [x_grad2, grid_grad2] = examples::grid_sample_tuned_vjp(x, grid, cot);
    eval({x_grad, grid_grad, x_grad2, grid_grad2});
    EXPECT_ALLCLOSE(x_grad, grads[0], 1e-4, 1e-4) << "C " << C;
    EXPECT_ALLCLOSE(grid_grad, grads[1], 1e-4, 1e-5 * c.C * 5) << "C " << C;
    EXPECT_TRUE(bit_identical(x_grad, x_grad2)) << "C " << C;
    EXPECT_TRUE(bit_identical(grid_grad, grid_grad2)) << "C " << C;
  }
}

// Every point of a batch element at the same place (one bucket of 900
// points per batch element, over several of the count kernel's chunks of 256
// points), and a grid of zeros: right and deterministic.
TEST_F(GridSampleTunedMisc, OneCellBuckets) {
  const Case c{3, 6, 5, 4, 30, 30};
  auto [x, unused] = inputs(c, 11);
  array cot = cotangent(c, 12);
  array same = broadcast_to(reshape(array({0.13f, -0.41f, 0.7f, 0.2f, -0.9f, 0.95f}), {3, 1, 1, 2}),
                            {3, 30, 30, 2});
  for (const array& grid : {contiguous(same, false, kCpu), zeros({3, 30, 30, 2}, float32, kCpu)}) {
    auto [ref, grads] = reference(x, grid, cot);
    auto [x_grad, grid_grad] = examples::grid_sample_tuned_vjp(x, grid, cot);
    auto [x_grad2, grid_grad2] = examples::grid_sample_tuned_vjp(x, grid, cot);
    EXPECT_ALLCLOSE(x_grad, grads[0], 1e-4, 1e-3);
    EXPECT_ALLCLOSE(grid_grad, grads[1], 1e-4, 1e-4);
    EXPECT_TRUE(bit_identical(x_grad, x_grad2));
    EXPECT_TRUE(bit_identical(grid_grad, grid_grad2));
  }
}

// The VJP's buckets: the touching points stably sorted by cell (by index
// within a cell), whatever order the atomics gave.
TEST_F(GridSampleTunedMisc, BucketsHoldThePointsInIndexOrder) {
  for (const Case& c : {Case{2, 4, 5, 3, 24, 20}, Case{3, 9, 11, 4, 7, 5}}) {
    auto [x, grid] = inputs(c, 13, 1.1f);
    auto stages = examples::grid_sample_tuned_detail::vjp_stages(x, grid, cotangent(c, 14));
    const auto g = values_as<float>(grid);
    std::vector<std::pair<int64_t, int>> expected;  // (cell, point)
    for (int p = 0; p < c.N * c.gH * c.gW; ++p) {
      const float ix = ((g[2 * p] + 1.0f) * c.W - 1.0f) / 2.0f;
      const float iy = ((g[2 * p + 1] + 1.0f) * c.H - 1.0f) / 2.0f;
      const float fx = std::floor(ix), fy = std::floor(iy);
      if (!(fx >= -1 && fx <= c.W - 1 && fy >= -1 && fy <= c.H - 1)) continue;
      const int n = p / (c.gH * c.gW);
      expected.push_back({(int64_t(n) * (c.H + 1) + int(fy) + 1) * (c.W + 1) + int(fx) + 1, p});
    }
    std::stable_sort(expected.begin(), expected.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    const auto got = values_as<int>(stages.sorted);
    for (size_t i = 0; i < expected.size(); ++i) {
      ASSERT_EQ(got[i], expected[i].second) << c << " at " << i;
    }
  }
}

// Every grid point outside the image: zeros everywhere.
TEST_F(GridSampleTunedMisc, AllPointsOutside) {
  const Case c{1, 5, 7, 4, 3, 3};
  auto [x, grid] = inputs(c, 7);
  grid = full({c.N, c.gH, c.gW, 2}, 3.0f, float32, kCpu);
  array cot = cotangent(c, 8);
  auto [x_grad, grid_grad] = examples::grid_sample_tuned_vjp(x, grid, cot);
  EXPECT_ALLCLOSE(examples::grid_sample_tuned_forward(x, grid), zeros({1, 3, 3, 4}, float32, kCpu),
                  0, 0);
  EXPECT_ALLCLOSE(x_grad, zeros_like(x, kCpu), 0, 0);
  EXPECT_ALLCLOSE(grid_grad, zeros_like(grid, kCpu), 0, 0);
}

// grad of a scalar loss through the custom_function, inside a larger graph.
TEST_F(GridSampleTunedMisc, ValueAndGradThroughCustomFunction) {
  const Case c{3, 5, 7, 4, 4, 3};
  auto [x, grid] = inputs(c, 9);
  expect_value_and_grad_match_the_reference(
      [](const array& a, const array& g) { return examples::grid_sample_tuned(a, g); }, x, grid);
}

// grad (not value_and_grad) of sum(grid_sample_tuned) with respect to x: each
// pixel's gradient is the total bilinear weight it receives.
TEST_F(GridSampleTunedMisc, GradOfASum) {
  const Case c{1, 5, 7, 3, 4, 6};
  auto [x, grid] = inputs(c, 10);
  auto f = [](const std::vector<array>& in) {
    return std::vector<array>{sum(examples::grid_sample_tuned(in[0], in[1]))};
  };
  auto [value, grads] = value_and_grad(f, 0)({x, grid});
  DeviceScope cpu(kCpu);
  auto g = [](const std::vector<array>& in) {
    return std::vector<array>{sum(examples::grid_sample_ref(in[0], in[1]))};
  };
  auto [ref_value, ref_grads] = value_and_grad(g, 0)({x, grid});
  EXPECT_ALLCLOSE(grads[0], ref_grads[0], 1e-5, 1e-5);
}

TEST_F(GridSampleTunedMisc, RejectsBadInputs) {
  array x = zeros({1, 4, 4, 2}, float32, kCpu);
  EXPECT_THROW(examples::grid_sample_tuned_forward(x, zeros({1, 2, 2, 3}, float32, kCpu)),
               std::invalid_argument);
  EXPECT_THROW(examples::grid_sample_tuned_forward(x, zeros({2, 2, 2, 2}, float32, kCpu)),
               std::invalid_argument);
  EXPECT_THROW(examples::grid_sample_tuned_forward(astype(x, float16, kCpu),
                                                   zeros({1, 2, 2, 2}, float32, kCpu)),
               std::invalid_argument);
}

}  // namespace
