// grid_sample with custom kernels (examples/grid_sample_kernels.h): the
// forward kernel against a scalar loop and the composed reference
// (examples/grid_sample_ref.h) on the GPU and the CPU; the VJP kernel (x_grad
// and grid_grad) against autodiff of the composed reference on the CPU; the
// VJP and JVP kernels against finite differences (check_grads), and the
// seed's forward and VJP kernels under custom_vjp (no JVP) by check_grads in
// reverse mode on the GPU, where a VJP 1% off must fail. Small shapes
// for lavapipe: odd H and W, C = 1, 3, 33 (not multiples of any subgroup
// size), batch 1 and 3, grid points outside [-1, 1].
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>

#include "examples/grid_sample_kernels.h"
#include "gpu_test_util.h"
#include "grid_sample_test_util.h"
#include "mlx_lite/testing.h"
#include "test_util.h"

using namespace mlx_lite;
using gpu_test::kCpu;
using gpu_test::kGpu;
using grid_sample_test::Case;
using grid_sample_test::cotangent;
using grid_sample_test::DeviceScope;
using grid_sample_test::expect_value_and_grad_match_the_reference;
using grid_sample_test::grid_sample_ref_fn;
using test_util::values;

namespace {

// x ~ N(0, 1); grid uniform in [-1.3, 1.3] (some samples partly or wholly
// outside x) with a few points set far outside and on the edges.
std::pair<array, array> inputs(const Case& c, uint64_t seed, Dtype dtype = float32) {
  std::mt19937 gen(static_cast<unsigned>(seed));
  std::normal_distribution<float> pixel(0.0f, 1.0f);
  std::uniform_real_distribution<float> coord(-1.3f, 1.3f);
  std::vector<float> xs(static_cast<size_t>(c.N) * c.H * c.W * c.C);
  std::vector<float> gs(static_cast<size_t>(c.N) * c.gH * c.gW * 2);
  for (auto& v : xs) v = pixel(gen);
  for (auto& v : gs) v = coord(gen);
  gs[0] = 5.0f;  // far outside: every corner masked
  gs[1] = -5.0f;
  if (gs.size() > 4) {
    gs[2] = -1.0f;  // the image's corner
    gs[3] = 1.0f;
  }
  array x = astype(array(xs.begin(), {c.N, c.H, c.W, c.C}), dtype, kCpu);
  array grid = astype(array(gs.begin(), {c.N, c.gH, c.gW, 2}), dtype, kCpu);
  eval({x, grid});
  return {x, grid};
}

// Grid points whose pixel coordinates lie 0.3 to 0.7 past an integer (from
// -1 to W - 1, so samples straddle the borders too): finite differences of
// step 1e-2 along a normal direction stay within one bilinear cell, where the
// function is smooth.
array smooth_grid(const Case& c, uint64_t seed) {
  std::mt19937 gen(static_cast<unsigned>(seed));
  std::uniform_real_distribution<float> frac(0.3f, 0.7f);
  std::vector<float> gs;
  for (int i = 0; i < c.N * c.gH * c.gW; ++i) {
    for (int size : {c.W, c.H}) {
      std::uniform_int_distribution<int> cell(-1, size - 1);
      const float pos = static_cast<float>(cell(gen)) + frac(gen);
      gs.push_back((2.0f * pos + 1.0f) / static_cast<float>(size) - 1.0f);
    }
  }
  array grid(gs.begin(), {c.N, c.gH, c.gW, 2});
  eval(grid);
  return grid;
}

// Bilinear, zero padding, align_corners=false, in double.
std::vector<double> grid_sample_loop(const std::vector<double>& x, const std::vector<double>& grid,
                                     const Case& c) {
  std::vector<double> out;
  auto pixel = [&](int n, int y, int xx, int ch) -> double {
    if (y < 0 || y >= c.H || xx < 0 || xx >= c.W) return 0.0;
    return x[((static_cast<size_t>(n) * c.H + y) * c.W + xx) * c.C + ch];
  };
  for (int n = 0; n < c.N; ++n) {
    for (int p = 0; p < c.gH * c.gW; ++p) {
      const size_t g = (static_cast<size_t>(n) * c.gH * c.gW + p) * 2;
      const double fx = ((grid[g] + 1.0) * c.W - 1.0) / 2.0;
      const double fy = ((grid[g + 1] + 1.0) * c.H - 1.0) / 2.0;
      const int x0 = static_cast<int>(std::floor(fx)), y0 = static_cast<int>(std::floor(fy));
      const double ax = fx - x0, ay = fy - y0;
      for (int ch = 0; ch < c.C; ++ch) {
        out.push_back(
            (1 - ax) * (1 - ay) * pixel(n, y0, x0, ch) + ax * (1 - ay) * pixel(n, y0, x0 + 1, ch) +
            (1 - ax) * ay * pixel(n, y0 + 1, x0, ch) + ax * ay * pixel(n, y0 + 1, x0 + 1, ch));
      }
    }
  }
  return out;
}

std::vector<array> grid_sample_fn(const std::vector<array>& in) {
  return {examples::grid_sample(in[0], in[1])};
}

// Custom kernels need the GPU backend: skip where there is no Vulkan device
// or MLX_LITE_DEVICE=cpu keeps the process off it (the CPU default device
// would make grid_sample the reference, and these tests vacuous).
class KernelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!gpu::is_available() || default_device().type != Device::gpu) {
      GTEST_SKIP() << "no usable Vulkan device";
    }
  }
};

class GridSampleKernels : public KernelTest, public ::testing::WithParamInterface<Case> {};

TEST_P(GridSampleKernels, ForwardMatchesLoopAndReference) {
  const Case c = GetParam();
  auto [x, grid] = inputs(c, 1);
  array out = examples::grid_sample_forward(x, grid);
  ASSERT_EQ(out.shape(), (Shape{c.N, c.gH, c.gW, c.C}));
  ASSERT_EQ(out.dtype(), float32);
  const auto got = values(out);
  const auto want = grid_sample_loop(values(x), values(grid), c);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], 1e-5 * (1 + std::abs(want[i]))) << "at flat index " << i;
  }
  for (int ch = 0; ch < c.C; ++ch) EXPECT_EQ(got[ch], 0.0f) << "the far-outside point";

  // The composed reference, on the GPU and on the CPU.
  EXPECT_ALLCLOSE(out, examples::grid_sample_ref(x, grid), 1e-5, 1e-5);
  array ref_cpu = [&] {
    DeviceScope cpu(kCpu);
    return examples::grid_sample_ref(x, grid);
  }();
  EXPECT_ALLCLOSE(out, ref_cpu, 1e-5, 1e-5);
  // Through the custom_function, the same kernel.
  EXPECT_ALLCLOSE(examples::grid_sample(x, grid), out, 0, 0);
}

TEST_P(GridSampleKernels, VjpMatchesAutodiffOfReference) {
  const Case c = GetParam();
  auto [x, grid] = inputs(c, 2);
  array cot = cotangent(c, 3);
  auto [outs, grads] = vjp(grid_sample_fn, {x, grid}, {cot});
  ASSERT_EQ(grads.size(), 2u);
  ASSERT_EQ(grads[0].shape(), x.shape());
  ASSERT_EQ(grads[1].shape(), grid.shape());
  ASSERT_EQ(grads[0].dtype(), float32);
  ASSERT_EQ(grads[1].dtype(), float32);

  DeviceScope cpu(kCpu);
  auto [ref_outs, ref_grads] = vjp(grid_sample_ref_fn, {x, grid}, {cot});
  EXPECT_ALLCLOSE(outs[0], ref_outs[0], 1e-5, 1e-5);
  // float32 atomics add in any order: a few ulps of the largest terms.
  EXPECT_ALLCLOSE(grads[0], ref_grads[0], 1e-4, 1e-5) << "x_grad";
  EXPECT_ALLCLOSE(grads[1], ref_grads[1], 1e-4, 1e-4 * c.C * std::max(c.H, c.W)) << "grid_grad";
  // The far-outside point has no gradient.
  EXPECT_EQ(values(grads[1])[0], 0.0f);
  EXPECT_EQ(values(grads[1])[1], 0.0f);
}

TEST_P(GridSampleKernels, VjpAndJvpMatchFiniteDifferences) {
  const Case c = GetParam();
  array x = inputs(c, 4).first;
  array grid = smooth_grid(c, 5);
  // The jvp and vjp kernels, and the finite differences of the forward
  // kernel, on the GPU (grid_sample refuses float64, the finite
  // differences' first choice).
  EXPECT_TRUE(mlx_lite::test::check_grads(grid_sample_fn, {x, grid}));
}

// The seed's forward and VJP kernels under custom_vjp, as the seed pairs
// them: no JVP, and no CPU twin (the kernels name the GPU). x_scale and
// grid_scale scale x_grad and grid_grad (1: the right rule).
std::function<std::vector<array>(const std::vector<array>&)> seed_pair(float x_scale = 1,
                                                                       float grid_scale = 1) {
  return custom_vjp(
      [](const std::vector<array>& in) {
        return std::vector<array>{examples::grid_sample_forward(in[0], in[1])};
      },
      [=](const std::vector<array>& primals, const std::vector<array>& cotangents,
          const std::vector<array>&) {
        auto [x_grad, grid_grad] = examples::grid_sample_vjp(primals[0], primals[1], cotangents[0]);
        return std::vector<array>{x_grad * x_scale, grid_grad * grid_scale};
      });
}

TEST_P(GridSampleKernels, SeedVjpPassesCheckGradsOnTheGpuInReverseMode) {
  const Case c = GetParam();
  array x = inputs(c, 6).first;
  array grid = smooth_grid(c, 7);
  auto r = mlx_lite::test::check_grads(seed_pair(), {x, grid}, 1, mlx_lite::test::Modes::rev);
  EXPECT_TRUE(r);
  EXPECT_THAT(r.message(), ::testing::HasSubstr("default device gpu, inputs in float32"));
}

INSTANTIATE_TEST_SUITE_P(Shapes, GridSampleKernels,
                         ::testing::Values(Case{1, 5, 7, 1, 4, 3}, Case{3, 5, 7, 3, 3, 4},
                                           Case{1, 6, 4, 33, 3, 2}, Case{3, 7, 5, 33, 2, 3},
                                           Case{3, 1, 1, 3, 2, 2}),
                         ::testing::PrintToStringParamName());

class GridSampleKernelsMisc : public KernelTest {};

TEST_F(GridSampleKernelsMisc, CheckGradsCatchesAWrongSeedVjp) {
  // The vjp is checked along one random projection per input, whose size
  // decides how small an error shows: here <x_grad, v> is about 8.5 (with
  // seeds 8 and 9 it was 0.02, which a 1% error does not move past the
  // tolerance), so a 1% error in either gradient must fail.
  const Case c{3, 5, 7, 3, 3, 4};
  array x = inputs(c, 10).first;
  array grid = smooth_grid(c, 11);
  for (auto [x_scale, grid_scale] : {std::pair{1.01f, 1.0f}, std::pair{1.0f, 1.01f}}) {
    auto r = mlx_lite::test::check_grads(seed_pair(x_scale, grid_scale), {x, grid}, 1,
                                         mlx_lite::test::Modes::rev);
    EXPECT_FALSE(r) << "x_grad scaled by " << x_scale << ", grid_grad by " << grid_scale;
    EXPECT_THAT(r.message(), ::testing::HasSubstr("the vjp disagrees"));
  }
  // Forward mode needs a jvp, which the pair does not have.
  auto r = mlx_lite::test::check_grads(seed_pair(), {x, grid});
  EXPECT_FALSE(r);
  EXPECT_THAT(r.message(), ::testing::HasSubstr("can be checked in reverse mode only"));
}

// The JVP kernel against jvp of the composed reference, with tangents for
// one input at a time (the other's tangent is zero).
TEST_F(GridSampleKernelsMisc, JvpMatchesAutodiffOfReference) {
  const Case c{2, 5, 7, 3, 3, 4};
  auto [x, grid] = inputs(c, 6);
  array tx = random::normal(x.shape(), float32, random::key(7), kCpu);
  array tg = random::normal(grid.shape(), float32, random::key(8), kCpu);
  auto [outs, tangents] = jvp(grid_sample_fn, {x, grid}, {tx, tg});
  auto only_x = jvp([&](const array& a) { return examples::grid_sample(a, grid); }, x, tx).second;
  auto only_grid =
      jvp([&](const array& g) { return examples::grid_sample(x, g); }, grid, tg).second;
  DeviceScope cpu(kCpu);
  auto ref = jvp(grid_sample_ref_fn, {x, grid}, {tx, tg}).second;
  auto ref_x =
      jvp([&](const array& a) { return examples::grid_sample_ref(a, grid); }, x, tx).second;
  auto ref_grid =
      jvp([&](const array& g) { return examples::grid_sample_ref(x, g); }, grid, tg).second;
  EXPECT_ALLCLOSE(tangents[0], ref[0], 1e-4, 1e-4);
  EXPECT_ALLCLOSE(only_x, ref_x, 1e-4, 1e-4);
  EXPECT_ALLCLOSE(only_grid, ref_grid, 1e-4, 1e-4);
}

// float16 x and grid: the kernels compute in float32 and round once, so the
// results are float32's rounded to float16.
TEST_F(GridSampleKernelsMisc, Float16MatchesFloat32Reference) {
  for (const Case& c : {Case{1, 5, 7, 3, 4, 3}, Case{3, 7, 5, 33, 2, 3}}) {
    SCOPED_TRACE(::testing::PrintToString(c));
    auto [x, grid] = inputs(c, 9, float16);
    array x32 = astype(x, float32, kCpu), grid32 = astype(grid, float32, kCpu);
    array out = examples::grid_sample(x, grid);
    ASSERT_EQ(out.dtype(), float16);
    DeviceScope cpu(kCpu);
    EXPECT_ALLCLOSE(out, examples::grid_sample_ref(x32, grid32), 2e-3, 2e-3);

    array cot = astype(random::normal(out.shape(), float32, random::key(10)), float16);
    std::vector<array> grads;
    {
      DeviceScope gpu(kGpu);
      grads = vjp(grid_sample_fn, {x, grid}, {cot}).second;
    }
    ASSERT_EQ(grads[0].dtype(), float16);
    ASSERT_EQ(grads[1].dtype(), float16);
    auto ref = vjp(grid_sample_ref_fn, {x32, grid32}, {astype(cot, float32)}).second;
    EXPECT_ALLCLOSE(grads[0], ref[0], 5e-3, 5e-3) << "x_grad";
    EXPECT_ALLCLOSE(grads[1], ref[1], 5e-3, 5e-3 * c.C * std::max(c.H, c.W)) << "grid_grad";
  }
}

// Inside a larger graph, under value_and_grad: the custom rules compose with
// the built-in ones.
TEST_F(GridSampleKernelsMisc, ValueAndGradOfALargerGraph) {
  const Case c{3, 5, 7, 3, 4, 3};
  auto [x, grid] = inputs(c, 11);
  expect_value_and_grad_match_the_reference(
      [](const array& a, const array& g) { return examples::grid_sample(a, g); }, x, grid);
}

// With the CPU as default device, grid_sample is the composed reference
// (custom kernels run on the GPU only), derivatives included.
TEST_F(GridSampleKernelsMisc, CpuDefaultDeviceUsesTheReference) {
  const Case c{1, 5, 7, 3, 4, 3};
  auto [x, grid] = inputs(c, 12);
  array cot = cotangent(c, 13);
  DeviceScope cpu(kCpu);
  auto [outs, grads] = vjp(grid_sample_fn, {x, grid}, {cot});
  auto [ref_outs, ref_grads] = vjp(grid_sample_ref_fn, {x, grid}, {cot});
  EXPECT_ALLCLOSE(outs[0], ref_outs[0], 0, 0);
  EXPECT_ALLCLOSE(grads[0], ref_grads[0], 0, 0);
  EXPECT_ALLCLOSE(grads[1], ref_grads[1], 0, 0);
}

TEST_F(GridSampleKernelsMisc, BadInputsThrow) {
  array x = zeros({1, 4, 4, 2});
  EXPECT_THROW(examples::grid_sample(x, zeros({1, 3, 3, 3})), std::invalid_argument);
  EXPECT_THROW(examples::grid_sample(x, zeros({2, 3, 3, 2})), std::invalid_argument);
  EXPECT_THROW(examples::grid_sample(zeros({4, 4, 2}), zeros({1, 3, 3, 2})), std::invalid_argument);
  EXPECT_THROW(examples::grid_sample(zeros({1, 4, 4, 2}, int32), zeros({1, 3, 3, 2})),
               std::invalid_argument);
}

}  // namespace
