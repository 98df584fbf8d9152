// The composed grid_sample_ref against an independent scalar loop.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "examples/grid_sample_ref.h"

using namespace mlx_lite;

namespace {

// Bilinear, zero padding, align_corners=false; NHWC x, grid (N, gH, gW, 2).
std::vector<double> grid_sample_loop(const std::vector<float>& x, const std::vector<float>& grid,
                                     int N, int H, int W, int C, int gH, int gW) {
  std::vector<double> out(static_cast<size_t>(N) * gH * gW * C, 0.0);
  auto pixel = [&](int n, int y, int xx, int c) -> double {
    if (y < 0 || y >= H || xx < 0 || xx >= W) return 0.0;
    return x[((static_cast<size_t>(n) * H + y) * W + xx) * C + c];
  };
  for (int n = 0; n < N; ++n) {
    for (int i = 0; i < gH; ++i) {
      for (int j = 0; j < gW; ++j) {
        size_t g = ((static_cast<size_t>(n) * gH + i) * gW + j) * 2;
        double fx = ((grid[g] + 1.0) * W - 1.0) / 2.0;
        double fy = ((grid[g + 1] + 1.0) * H - 1.0) / 2.0;
        int x0 = static_cast<int>(std::floor(fx)), y0 = static_cast<int>(std::floor(fy));
        double ax = fx - x0, ay = fy - y0;
        for (int c = 0; c < C; ++c) {
          out[(((static_cast<size_t>(n) * gH + i) * gW + j)) * C + c] =
              (1 - ax) * (1 - ay) * pixel(n, y0, x0, c) + ax * (1 - ay) * pixel(n, y0, x0 + 1, c) +
              (1 - ax) * ay * pixel(n, y0 + 1, x0, c) + ax * ay * pixel(n, y0 + 1, x0 + 1, c);
        }
      }
    }
  }
  return out;
}

struct Case {
  int N, H, W, C, gH, gW;
};

class GridSampleRef : public ::testing::TestWithParam<Case> {};

TEST_P(GridSampleRef, MatchesScalarLoop) {
  const auto [N, H, W, C, gH, gW] = GetParam();
  std::mt19937 gen(N * 1000 + H * 100 + W * 10 + C);
  std::normal_distribution<float> pixel(0.0f, 1.0f);
  // Grid points reach past [-1, 1] so some samples fall (partly) outside.
  std::uniform_real_distribution<float> coord(-1.3f, 1.3f);
  std::vector<float> xs(static_cast<size_t>(N) * H * W * C),
      gs(static_cast<size_t>(N) * gH * gW * 2);
  for (auto& v : xs) v = pixel(gen);
  for (auto& v : gs) v = coord(gen);
  gs[0] = -1.0f;  // exact corners and edges
  gs[1] = 1.0f;
  gs[2] = 5.0f;  // far outside: all four neighbours masked
  gs[3] = -5.0f;

  array x(xs.begin(), {N, H, W, C});
  array grid(gs.begin(), {N, gH, gW, 2});
  array out = examples::grid_sample_ref(x, grid);
  ASSERT_EQ(out.shape(), (Shape{N, gH, gW, C}));
  ASSERT_EQ(out.dtype(), float32);
  auto want = grid_sample_loop(xs, gs, N, H, W, C, gH, gW);
  const float* got = out.data<float>();
  ASSERT_TRUE(out.flags().row_contiguous);
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], 1e-5 * (1 + std::abs(want[i]))) << "at flat index " << i;
  }
  for (int c = 0; c < C; ++c) EXPECT_EQ(got[C + c], 0.0f);  // the far-outside point
}

INSTANTIATE_TEST_SUITE_P(Shapes, GridSampleRef,
                         ::testing::Values(Case{1, 5, 7, 1, 4, 3}, Case{3, 6, 4, 3, 5, 5},
                                           Case{1, 8, 8, 64, 3, 4}, Case{3, 9, 5, 64, 2, 6},
                                           Case{3, 1, 1, 3, 2, 2}));

TEST(GridSampleRefDtype, Float16FollowsTheInputs) {
  array x = astype(reshape(arange(16), {1, 4, 4, 1}), float16);
  array grid = astype(array({0.0f, 0.0f, -0.25f, 0.25f}, {1, 1, 2, 2}), float16);
  array out = examples::grid_sample_ref(x, grid);
  EXPECT_EQ(out.dtype(), float16);
  // Centre of a 4x4 ramp 0..15 is the mean of 5, 6, 9, 10.
  EXPECT_FLOAT_EQ(static_cast<float>(out.data<float16_t>()[0]), 7.5f);
  // (-0.25, 0.25) -> pixel coords (1, 2): exactly pixel (row 2, col 1) = 9.
  EXPECT_FLOAT_EQ(static_cast<float>(out.data<float16_t>()[1]), 9.0f);
}

}  // namespace
