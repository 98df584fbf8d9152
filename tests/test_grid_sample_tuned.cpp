// The tuned grid_sample kernels (examples/grid_sample_tuned.h) against the
// composed reference (examples/grid_sample_ref.h) on the CPU: every forward
// variant, the bucketed VJP (x_grad and grid_grad), its determinism, and
// grad through the custom_function, in float32 and float16. Small shapes for
// lavapipe: C = 1, 3, 4, 33, 64 (vec4 and scalar paths), batch 1 and 3, odd H
// and W, grid points outside [-1, 1], and many points per cell (large
// buckets).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <string>

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
using grid_sample_test::expect_value_and_grad_match_the_reference;
using grid_sample_test::grid_sample_ref_fn;
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
  return ca.shape() == cb.shape() && ca.dtype() == cb.dtype() && ca.nbytes() == cb.nbytes() &&
         std::memcmp(ca.raw_data(), cb.raw_data(), ca.nbytes()) == 0;
}

// float16 inputs: x, grid and the cotangent rounded to float16 (half), and
// the rounded values in float32 (exact), from which the reference computes
// in float32 (full).
struct HalfInputs {
  array x, grid, cot;  // float16
  array x32, grid32, cot32;
};

HalfInputs half_inputs(const Case& c, uint64_t seed, float lim = 1.3f) {
  auto [x, grid] = inputs(c, seed, lim);
  auto half = [](const array& a) { return astype(a, float16, kCpu); };
  auto full = [](const array& a) { return astype(a, float32, kCpu); };
  array x16 = half(x), grid16 = half(grid), cot16 = half(cotangent(c, seed + 1));
  HalfInputs h{x16, grid16, cot16, full(x16), full(grid16), full(cot16)};
  eval({h.x, h.grid, h.cot, h.x32, h.grid32, h.cot32});
  return h;
}

// Tolerances of float16 results against the float32 reference on the same
// (rounded) inputs: the kernels compute and sum in float32 and round each
// result once, to float16, whose unit roundoff is 2^-11 = 4.9e-4, so
// rtol = 1e-3 (two units); atol is the float32 tests' own (for what float32
// arithmetic in another order adds, and results near zero).
constexpr double kHalfRtol = 1e-3;

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
  // x_grad with 1, 4 and 8 vectors per thread (where a pixel's vectors
  // allow; the default takes up to 2).
  for (int vectors : {1, 4, 8}) {
    auto stages = examples::grid_sample_tuned_detail::vjp_stages(x, grid, cot, vectors);
    EXPECT_ALLCLOSE(stages.x_grad, grads[0], 1e-4, 1e-5)
        << "x_grad, up to " << vectors << " vectors per thread";
  }
}

// float16: every forward variant (C % 8 == 0 takes variant 1's 8 channels
// per thread, C % 4 == 0 the f16vec4 loads, odd C the scalar kernel, and some
// points outside the image), out in float16.
TEST_P(GridSampleTuned, Float16ForwardVariantsMatchTheReference) {
  const Case c = GetParam();
  const HalfInputs h = half_inputs(c, 21);
  auto [ref, grads] = reference(h.x32, h.grid32, h.cot32);
  for (int variant : {0, 1, 2}) {
    array out = examples::grid_sample_tuned_forward(h.x, h.grid, variant);
    EXPECT_EQ(out.dtype(), float16) << "variant " << variant;
    EXPECT_ALLCLOSE(out, ref, kHalfRtol, 1e-5) << "variant " << variant;
  }
}

// The float16 VJP: x_grad and grid_grad in float16 (summed in float32), and
// the same bits from a second run.
TEST_P(GridSampleTuned, Float16VjpMatchesAutodiffOfTheReferenceAndIsDeterministic) {
  const Case c = GetParam();
  const HalfInputs h = half_inputs(c, 23);
  auto [ref, grads] = reference(h.x32, h.grid32, h.cot32);
  auto [x_grad, grid_grad] = examples::grid_sample_tuned_vjp(h.x, h.grid, h.cot);
  EXPECT_EQ(x_grad.dtype(), float16);
  EXPECT_EQ(grid_grad.dtype(), float16);
  EXPECT_ALLCLOSE(x_grad, grads[0], kHalfRtol, 1e-5) << "x_grad";
  EXPECT_ALLCLOSE(grid_grad, grads[1], kHalfRtol, 1e-5 * c.C * std::max(c.H, c.W)) << "grid_grad";
  for (int vectors : {1, 4, 8}) {
    auto stages = examples::grid_sample_tuned_detail::vjp_stages(h.x, h.grid, h.cot, vectors);
    EXPECT_ALLCLOSE(stages.x_grad, grads[0], kHalfRtol, 1e-5)
        << "x_grad, up to " << vectors << " vectors per thread";
  }
  auto [x_grad2, grid_grad2] = examples::grid_sample_tuned_vjp(h.x, h.grid, h.cot);
  EXPECT_TRUE(bit_identical(x_grad, x_grad2)) << "x_grad";
  EXPECT_TRUE(bit_identical(grid_grad, grid_grad2)) << "grid_grad";
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
// within a cell), whatever order the atomics gave; the last case's 20,402
// cells span five rows of the offsets' 4,096 (row_offset), and its 45,000
// points fill nearly every cell, the rows' last ones included.
TEST_F(GridSampleTunedMisc, BucketsHoldThePointsInIndexOrder) {
  for (const Case& c :
       {Case{2, 4, 5, 3, 24, 20}, Case{3, 9, 11, 4, 7, 5}, Case{2, 100, 100, 3, 150, 150}}) {
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

// Cells over several rows of the offsets (see above): x_grad and grid_grad
// against the reference.
TEST_F(GridSampleTunedMisc, BucketsOverSeveralRowsOfOffsets) {
  const Case c{2, 100, 100, 4, 150, 150};
  auto [x, grid] = inputs(c, 15, 1.05f);
  array cot = cotangent(c, 16);
  auto [ref, grads] = reference(x, grid, cot);
  auto [x_grad, grid_grad] = examples::grid_sample_tuned_vjp(x, grid, cot);
  EXPECT_ALLCLOSE(x_grad, grads[0], 1e-4, 1e-4);
  EXPECT_ALLCLOSE(grid_grad, grads[1], 1e-4, 1e-3);
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

// float16 with many points per cell (buckets of up to ~30 points, summed in
// float32): right and deterministic; and a float32 cotangent for float16
// inputs, read as it is, gives what its float16 rounding would not.
TEST_F(GridSampleTunedMisc, Float16LargeBucketsAreRightAndDeterministic) {
  for (int C : {3, 8}) {
    const Case c{2, 4, 5, C, 24, 20};
    const HalfInputs h = half_inputs(c, 25, 1.1f);
    auto [ref, grads] = reference(h.x32, h.grid32, h.cot32);
    auto [x_grad, grid_grad] = examples::grid_sample_tuned_vjp(h.x, h.grid, h.cot);
    auto [x_grad2, grid_grad2] = examples::grid_sample_tuned_vjp(h.x, h.grid, h.cot);
    EXPECT_ALLCLOSE(x_grad, grads[0], kHalfRtol, 1e-4) << "C " << C;
    EXPECT_ALLCLOSE(grid_grad, grads[1], kHalfRtol, 1e-5 * c.C * 5) << "C " << C;
    EXPECT_TRUE(bit_identical(x_grad, x_grad2)) << "C " << C;
    EXPECT_TRUE(bit_identical(grid_grad, grid_grad2)) << "C " << C;
    // The unrounded float32 cotangent against the reference with it.
    array cot32 = cotangent(c, 26);
    auto [ref32, grads32] = reference(h.x32, h.grid32, cot32);
    auto [x_grad32, grid_grad32] = examples::grid_sample_tuned_vjp(h.x, h.grid, cot32);
    EXPECT_EQ(x_grad32.dtype(), float16);
    EXPECT_ALLCLOSE(x_grad32, grads32[0], kHalfRtol, 1e-4) << "C " << C << ", float32 cotangent";
    EXPECT_ALLCLOSE(grid_grad32, grads32[1], kHalfRtol, 1e-5 * c.C * 5)
        << "C " << C << ", float32 cotangent";
  }
}

// float16 with every grid point outside the image: zeros, in float16.
TEST_F(GridSampleTunedMisc, Float16AllPointsOutside) {
  const Case c{1, 5, 7, 4, 3, 3};
  const HalfInputs h = half_inputs(c, 27);
  array grid = full({c.N, c.gH, c.gW, 2}, 3.0f, float16, kCpu);
  array out = examples::grid_sample_tuned_forward(h.x, grid);
  auto [x_grad, grid_grad] = examples::grid_sample_tuned_vjp(h.x, grid, h.cot);
  EXPECT_EQ(out.dtype(), float16);
  EXPECT_ALLCLOSE(out, zeros({1, 3, 3, 4}, float16, kCpu), 0, 0);
  EXPECT_ALLCLOSE(x_grad, zeros_like(h.x, kCpu), 0, 0);
  EXPECT_ALLCLOSE(grid_grad, zeros_like(grid, kCpu), 0, 0);
}

// grad through the custom_function with float16 inputs: float16 gradients
// (the cotangent of the float16 output is float16), against the reference's
// in float32.
TEST_F(GridSampleTunedMisc, Float16ValueAndGradThroughCustomFunction) {
  const Case c{3, 5, 7, 4, 4, 3};
  const HalfInputs h = half_inputs(c, 29);
  // sum(out^2), out in float32 (the tuned one's rounded to float16 first).
  auto loss = [](auto sampler) -> std::function<array(const std::vector<array>&)> {
    return [sampler](const std::vector<array>& in) {
      return sum(square(astype(sampler(in[0], in[1]), float32)));
    };
  };
  auto tuned = [](const array& a, const array& g) { return examples::grid_sample_tuned(a, g); };
  auto [value, grads] = value_and_grad(loss(tuned), {0, 1})({h.x, h.grid});
  EXPECT_EQ(grads[0].dtype(), float16);
  EXPECT_EQ(grads[1].dtype(), float16);
  DeviceScope cpu(kCpu);
  auto composed = [](const array& a, const array& g) { return examples::grid_sample_ref(a, g); };
  auto [ref_value, ref_grads] = value_and_grad(loss(composed), {0, 1})({h.x32, h.grid32});
  // float16 roundings: out's before it is squared, the cotangent 2 out's,
  // and the gradients' own; 2e-3 is four units of roundoff.
  EXPECT_ALLCLOSE(value, ref_value, 2e-3, 1e-5);
  EXPECT_ALLCLOSE(grads[0], ref_grads[0], 2e-3, 1e-4) << "x";
  EXPECT_ALLCLOSE(grads[1], ref_grads[1], 2e-3, 1e-3) << "grid";
}

// x and grid of different dtypes, and dtypes other than float32 and float16,
// are refused by the forward, the VJP and the custom_function, each with a
// message that says what it expected and what it got.
TEST_F(GridSampleTunedMisc, RejectsMixedAndOtherDtypesWithAClearMessage) {
  auto message = [](const std::function<void()>& f) -> std::string {
    try {
      f();
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "(nothing thrown)";
  };
  const array x32 = zeros({1, 4, 4, 4}, float32, kCpu), g32 = zeros({1, 2, 2, 2}, float32, kCpu);
  const array cot = zeros({1, 2, 2, 4}, float32, kCpu);
  struct Bad {
    Dtype x, grid;
    std::string expected;
  };
  const std::string same = "x and grid must have the same dtype, float32 or float16; got x ";
  const std::string floats = "x and grid must be float32 or float16; got ";
  for (const Bad& b :
       {Bad{float16, float32, same + "float16 and grid float32."},
        Bad{float32, float16, same + "float32 and grid float16."},
        Bad{bfloat16, bfloat16, floats + "bfloat16."}, Bad{int32, int32, floats + "int32."},
        Bad{float16, bfloat16, same + "float16 and grid bfloat16."}}) {
    const array x = astype(x32, b.x, kCpu), grid = astype(g32, b.grid, kCpu);
    EXPECT_THROW(examples::grid_sample_tuned_forward(x, grid), std::invalid_argument);
    EXPECT_THAT(message([&] { examples::grid_sample_tuned_forward(x, grid); }),
                ::testing::HasSubstr(b.expected));
    EXPECT_THAT(message([&] { examples::grid_sample_tuned_vjp(x, grid, cot); }),
                ::testing::HasSubstr(b.expected));
    EXPECT_THAT(message([&] { examples::grid_sample_tuned(x, grid); }),
                ::testing::HasSubstr(b.expected));
  }
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
