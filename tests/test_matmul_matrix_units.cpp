// Matmul on the device's matrix units (shaders/matmul_coop.comp), against the
// CPU: float16 tiles of 128 x 128 with every edge, the three layouts, runs
// that cannot load as vectors, batches, split K. Every test runs on every
// device: where the device has no matrix units (lavapipe) they check the
// tiled kernel that takes over; one test checks that the device's report
// and the choice agree, and UsesMatrixUnits skips there. On the GPU machine,
// scripts/gpu_tests.sh runs them.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdlib>
#include <iostream>
#include <string>

#include "gpu_test_util.h"

using namespace mlx_lite;
using namespace gpu_test;

namespace {

std::string info(const std::string& key) {
  return std::get<std::string>(gpu::device_info().at(key));
}

bool on_matrix_units() {
  return info("matmul_matrix_units").starts_with("float16");
}

// Small integers: every product and sum of K <= 256 of them is exact in
// float32 and in float16 (|sum| <= 1024 < 2048), on matrix units or not, in
// any order, so results must equal the CPU's bit for bit.
array small_integers(const Shape& shape, uint64_t seed) {
  array u = floor(random::uniform(-2, 3, shape, float32, random::key(seed), kCpu), kCpu);
  array out = astype(u, float16, kCpu);
  eval(out);
  return out;
}

// float16 products of K terms in [-1, 1): float32 accumulation in any order
// differs by about K float32 ulps, and the result by one float16 rounding.
void expect_matmul_close(const array& a, const array& b, const std::string& what) {
  const double k = static_cast<double>(a.shape(-1));
  expect_close(matmul(a, b, kGpu), matmul(a, b, kCpu), rtol_of(float16) * 4, 2e-7 * k + 1e-3, what);
}

void expect_matmul_exact(const array& a, const array& b, const std::string& what) {
  expect_close(matmul(a, b, kGpu), matmul(a, b, kCpu), 0, 0, what);
}

class MatrixUnits : public GpuTest {};

}  // namespace

TEST_F(MatrixUnits, ChoiceFollowsTheDevicesReport) {
  // The driver's list of fragment shapes decides: float16 A and B, float32
  // accumulators, 16 x 16 x 16 (what matmul_coop.comp multiplies).
  const bool fragments =
      info("cooperative_matrix").find("16x16x16 float16*float16+float32->float32") !=
      std::string::npos;
  const auto features = gpu::device_info();
  const bool rest = std::get<size_t>(features.at("float16")) == 1 &&
                    std::get<size_t>(features.at("vulkan_memory_model")) == 1 &&
                    std::get<size_t>(features.at("subgroup_size")) == 32;
  const char* off = std::getenv("MLX_LITE_MATRIX_UNITS");
  const bool turned_off = off != nullptr && std::string(off) == "0";
  EXPECT_EQ(on_matrix_units(), fragments && rest && !turned_off) << info("matmul_matrix_units");
  std::cout << "device: " << info("device_name") << ", " << info("driver_info")
            << "; cooperative_matrix: " << info("cooperative_matrix")
            << "; matmul_matrix_units: " << info("matmul_matrix_units") << "\n";
  if (!on_matrix_units()) {
    EXPECT_TRUE(info("matmul_matrix_units").starts_with("none (")) << info("matmul_matrix_units");
  }
}

TEST_F(MatrixUnits, UsesMatrixUnits) {
  if (!on_matrix_units()) {
    GTEST_SKIP() << "no matrix units for float16: " << info("matmul_matrix_units");
  }
  // A product big enough to take many tiles, checked exactly.
  expect_matmul_exact(small_integers({512, 256}, 1), small_integers({256, 384}, 2), "512x384x256");
}

TEST_F(MatrixUnits, ExactOnEveryLayoutAndEdge) {
  // (M, N, K): partial tiles on each edge, K below and past one step of 32,
  // and sizes whose rows are not runs of 8 (element-by-element loads).
  const std::vector<std::array<int, 3>> sizes = {{129, 65, 65}, {128, 128, 32},  {1, 200, 40},
                                                 {300, 1, 24},  {257, 130, 256}, {17, 33, 7}};
  for (auto [M, N, K] : sizes) {
    array a = small_integers({M, K}, 3);
    array b = small_integers({K, N}, 4);
    array at = transpose(small_integers({K, M}, 5));
    array bt = transpose(small_integers({N, K}, 6));
    const std::string shape = fmt::format("{}x{}x{}", M, N, K);
    expect_matmul_exact(a, b, "nn " + shape);
    expect_matmul_exact(a, bt, "nt " + shape);
    expect_matmul_exact(at, b, "tn " + shape);
    expect_matmul_exact(at, bt, "tt " + shape);
  }
}

TEST_F(MatrixUnits, UnalignedAndStridedOperands) {
  // An offset of one element and a row stride of 129 break every run of 8;
  // negative and non-unit steps leave no unit-strided dim at all.
  array big_a = small_integers({130, 129}, 7);
  array big_b = small_integers({97, 140}, 8);
  array a = slice(big_a, {1, 1}, {130, 97});  // 129 x 96, offset 130
  array b = slice(big_b, {1, 3}, {97, 132});  // 96 x 129
  expect_matmul_exact(a, b, "offset by one");
  array ra = slice(big_a, {129, 128}, {0, 0}, {-1, -2});  // 129 x 64, no unit stride
  array rb = slice(big_b, {0, 0}, {64, 140}, {1, 3});     // 64 x 47
  expect_matmul_exact(ra, rb, "negative and non-unit steps");
}

TEST_F(MatrixUnits, BatchesAndBroadcastBatchDims) {
  array a = small_integers({3, 130, 72}, 9);
  array b = small_integers({3, 72, 140}, 10);
  expect_matmul_exact(a, b, "batched");
  expect_matmul_exact(a, small_integers({72, 140}, 11), "b shared");
  expect_matmul_exact(small_integers({2, 1, 40, 64}, 12), small_integers({1, 3, 64, 136}, 13),
                      "4-d broadcast");
  expect_matmul_exact(transpose(small_integers({72, 3, 130}, 14), {1, 2, 0}), b,
                      "batch and matrix transposed");
}

TEST_F(MatrixUnits, LargeOutputsAndWholeTiles) {
  // Sizes that are whole tiles with aligned runs load without edge checks
  // (WHOLE_TILES), split K included. Large outputs are where an earlier
  // wide tiling computed half of each tile, unseen until a test reached
  // them: every element is compared.
  if (!on_matrix_units()) {
    GTEST_SKIP() << "no matrix units for float16: " << info("matmul_matrix_units");
  }
  expect_matmul_exact(small_integers({2048, 48}, 19), small_integers({48, 4096}, 20),
                      "2048x4096x48");
  array at = transpose(small_integers({2, 48, 1024}, 21), {0, 2, 1});
  expect_matmul_exact(at, small_integers({48, 2048}, 22), "tn 2x1024x2048x48");
  expect_matmul_close(test_values({128, 4096}, float16, 23, -1, 1),
                      test_values({4096, 256}, float16, 24, -1, 1), "128x256x4096 split");
}

TEST_F(MatrixUnits, SplitKAndRounding) {
  // Few tiles over a long K: K is split across workgroups and the float32
  // partial products are summed by a second pass.
  array a = test_values({64, 8192}, float16, 15, -1, 1);
  array b = test_values({8192, 96}, float16, 16, -1, 1);
  expect_matmul_close(a, b, "64x96x8192 split");
  array c = test_values({300, 1000}, float16, 17, -1, 1);
  array d = test_values({1000, 200}, float16, 18, -1, 1);
  expect_matmul_close(c, d, "300x200x1000");
}

TEST_F(MatrixUnits, LargeValuesStayInFloat32UntilTheStore) {
  // Products past float16's range that cancel: accumulators are float32, so
  // only the final sum (small) is rounded to float16.
  array a = astype(array({300.0f, 300.0f, 1.0f, 300.0f, -300.0f, 2.0f}, {2, 3}), float16, kCpu);
  array b = astype(array({300.0f, -300.0f, 3.0f}, {3, 1}), float16, kCpu);
  array c = matmul(a, b, kGpu);
  array want = astype(array({3.0f, 180006.0f}, {2, 1}), float16, kCpu);  // row 1: inf
  expect_close(c, want, 0, 0, "cancelling products");
}
