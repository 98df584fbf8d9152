// Matmul on the device's matrix units (shaders/matmul_coop.comp), against the
// CPU: float16 and bfloat16 tiles of 128 x 128 with every edge, the three
// layouts, runs that cannot load as vectors, batches, split K. Every test
// runs on every device: where the device has no matrix units for the dtype
// (lavapipe) they check the tiled kernel that takes over; one test checks
// that the device's report and the choice agree, and the tests that only
// make sense on matrix units skip there. On the GPU machine,
// scripts/gpu_tests.sh runs them as the device chooses and again with
// MLX_LITE_MATRIX_UNITS=khr (float16 on KHR cooperative matrices too).
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

// The extension Matmul of `t` goes through ("" where none), from the
// device's report: "float16 (VK_NV_cooperative_matrix, ...); bfloat16 (...)".
std::string matrix_extension(Dtype t) {
  const std::string report = info("matmul_matrix_units");
  const std::string prefix = fmt::format("{} (VK_", t == float16 ? "float16" : "bfloat16");
  const size_t at = report.find(prefix);
  if (at == std::string::npos || (at > 0 && report[at - 1] != ' ')) return "";
  return report.substr(at + prefix.size() - 3, report.find(',', at) - at - prefix.size() + 3);
}

bool on_matrix_units(Dtype t) {
  return !matrix_extension(t).empty();
}

// Small integers: every product and sum of K <= 256 of them is exact in
// float32, on matrix units or not, in any order, and the result is rounded
// once to the dtype (exactly for float16, |sum| <= 1024 < 2048; for
// bfloat16 as the CPU rounds it), so results must equal the CPU's bit for bit.
array small_integers(const Shape& shape, uint64_t seed, Dtype t) {
  array u = floor(random::uniform(-2, 3, shape, float32, random::key(seed), kCpu), kCpu);
  array out = astype(u, t, kCpu);
  eval(out);
  return out;
}

// Products of K terms in [-1, 1): float32 accumulation in any order
// differs by about K float32 ulps, and the result by one rounding.
void expect_matmul_close(const array& a, const array& b, const std::string& what) {
  const double k = static_cast<double>(a.shape(-1));
  expect_close(matmul(a, b, kGpu), matmul(a, b, kCpu), rtol_of(a.dtype()) * 4, 2e-7 * k + 1e-3,
               what);
}

void expect_matmul_exact(const array& a, const array& b, const std::string& what) {
  expect_close(matmul(a, b, kGpu), matmul(a, b, kCpu), 0, 0, what);
}

class MatrixUnits : public GpuTest, public ::testing::WithParamInterface<Dtype> {
 protected:
  Dtype t() const { return GetParam(); }
  array ints(const Shape& shape, uint64_t seed) const { return small_integers(shape, seed, t()); }
};

bool has_shape(const std::string& key, const std::string& operands) {
  return info(key).find(fmt::format("16x16x16 {0}*{0}+float32->float32", operands)) !=
         std::string::npos;
}

}  // namespace

TEST(MatrixUnitChoice, FollowsTheDevicesReport) {
  if (!gpu::is_available()) GTEST_SKIP() << "no Vulkan device";
  // The driver's lists of fragment shapes decide: 16 x 16 x 16, float32
  // accumulators (what matmul_coop.comp multiplies); float16 through NV
  // where the device has it and MLX_LITE_MATRIX_UNITS allows it (unset, 1
  // or nv), else through KHR (unset, 1 or khr), which bfloat16 needs (only
  // KHR types carry it).
  const auto features = gpu::device_info();
  const bool rest = std::get<size_t>(features.at("float16")) == 1 &&
                    std::get<size_t>(features.at("vulkan_memory_model")) == 1 &&
                    std::get<size_t>(features.at("subgroup_size")) == 32;
  const char* env = std::getenv("MLX_LITE_MATRIX_UNITS");
  const std::string mode = env == nullptr ? "" : env;
  const bool every = mode.empty() || mode == "1";
  const bool nv_allowed = every || mode == "nv", khr_allowed = every || mode == "khr";
  const bool nv16 = nv_allowed && rest && has_shape("cooperative_matrix", "float16");
  const bool khr16 = khr_allowed && rest && has_shape("khr_cooperative_matrix", "float16");
  const bool khr_bf16 = khr_allowed && rest && has_shape("khr_cooperative_matrix", "bfloat16") &&
                        std::get<size_t>(features.at("bfloat16_cooperative_matrix")) == 1;
  EXPECT_EQ(matrix_extension(float16), nv16    ? "VK_NV_cooperative_matrix"
                                       : khr16 ? "VK_KHR_cooperative_matrix"
                                               : "")
      << info("matmul_matrix_units");
  EXPECT_EQ(matrix_extension(bfloat16), khr_bf16 ? "VK_KHR_cooperative_matrix" : "")
      << info("matmul_matrix_units");
  std::cout << "device: " << info("device_name") << ", " << info("driver_info")
            << "; cooperative_matrix: " << info("cooperative_matrix")
            << "; khr_cooperative_matrix: " << info("khr_cooperative_matrix")
            << "; workgroup_cooperative_matrix: " << info("workgroup_cooperative_matrix")
            << "; matmul_matrix_units: " << info("matmul_matrix_units") << "\n";
  if (!nv16 && !khr16 && !khr_bf16) {
    EXPECT_TRUE(info("matmul_matrix_units").starts_with("none (")) << info("matmul_matrix_units");
  }
}

// Run by ctest with MLX_LITE_MATRIX_UNITS=bogus (tests/CMakeLists.txt); a
// skip elsewhere.
TEST(MatrixUnitChoice, MalformedSettingIsReported) {
  const char* env = std::getenv("MLX_LITE_MATRIX_UNITS");
  if (env == nullptr || std::string(env) != "bogus") GTEST_SKIP() << "MLX_LITE_MATRIX_UNITS=bogus";
  if (!gpu::is_available()) GTEST_SKIP() << "no Vulkan device";
  array a = ones({16, 16}, float16, kCpu);
  try {
    eval(matmul(a, a, kGpu));
    FAIL() << "a malformed MLX_LITE_MATRIX_UNITS was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("MLX_LITE_MATRIX_UNITS='bogus'"), std::string::npos)
        << e.what();
  }
}

TEST_P(MatrixUnits, UsesMatrixUnits) {
  if (!on_matrix_units(t())) {
    GTEST_SKIP() << "no matrix units for " << t() << ": " << info("matmul_matrix_units");
  }
  // A product big enough to take many tiles, checked exactly.
  expect_matmul_exact(ints({512, 256}, 1), ints({256, 384}, 2), "512x384x256");
}

TEST_P(MatrixUnits, ExactOnEveryLayoutAndEdge) {
  // (M, N, K): partial tiles on each edge, K below and past one step of 32,
  // and sizes whose rows are not runs of 8 (element-by-element loads).
  const std::vector<std::array<int, 3>> sizes = {{129, 65, 65}, {128, 128, 32},  {1, 200, 40},
                                                 {300, 1, 24},  {257, 130, 256}, {17, 33, 7}};
  for (auto [M, N, K] : sizes) {
    array a = ints({M, K}, 3);
    array b = ints({K, N}, 4);
    array at = transpose(ints({K, M}, 5));
    array bt = transpose(ints({N, K}, 6));
    const std::string shape = fmt::format("{}x{}x{}", M, N, K);
    expect_matmul_exact(a, b, "nn " + shape);
    expect_matmul_exact(a, bt, "nt " + shape);
    expect_matmul_exact(at, b, "tn " + shape);
    expect_matmul_exact(at, bt, "tt " + shape);
  }
}

TEST_P(MatrixUnits, UnalignedAndStridedOperands) {
  // An offset of one element and a row stride of 129 break every run of 8;
  // negative and non-unit steps leave no unit-strided dim at all.
  array big_a = ints({130, 129}, 7);
  array big_b = ints({97, 140}, 8);
  array a = slice(big_a, {1, 1}, {130, 97});  // 129 x 96, offset 130
  array b = slice(big_b, {1, 3}, {97, 132});  // 96 x 129
  expect_matmul_exact(a, b, "offset by one");
  array ra = slice(big_a, {129, 128}, {0, 0}, {-1, -2});  // 129 x 64, no unit stride
  array rb = slice(big_b, {0, 0}, {64, 140}, {1, 3});     // 64 x 47
  expect_matmul_exact(ra, rb, "negative and non-unit steps");
}

TEST_P(MatrixUnits, BatchesAndBroadcastBatchDims) {
  array a = ints({3, 130, 72}, 9);
  array b = ints({3, 72, 140}, 10);
  expect_matmul_exact(a, b, "batched");
  expect_matmul_exact(a, ints({72, 140}, 11), "b shared");
  expect_matmul_exact(ints({2, 1, 40, 64}, 12), ints({1, 3, 64, 136}, 13), "4-d broadcast");
  expect_matmul_exact(transpose(ints({72, 3, 130}, 14), {1, 2, 0}), b,
                      "batch and matrix transposed");
}

TEST_P(MatrixUnits, LargeOutputsAndWholeTiles) {
  // Sizes that are whole tiles with aligned runs load without edge checks
  // (WHOLE_TILES), split K included. Large outputs are where an earlier
  // wide tiling computed half of each tile, unseen until a test reached
  // them: every element is compared.
  if (!on_matrix_units(t())) {
    GTEST_SKIP() << "no matrix units for " << t() << ": " << info("matmul_matrix_units");
  }
  expect_matmul_exact(ints({2048, 48}, 19), ints({48, 4096}, 20), "2048x4096x48");
  array at = transpose(ints({2, 48, 1024}, 21), {0, 2, 1});
  expect_matmul_exact(at, ints({48, 2048}, 22), "tn 2x1024x2048x48");
  expect_matmul_close(test_values({128, 4096}, t(), 23, -1, 1),
                      test_values({4096, 256}, t(), 24, -1, 1), "128x256x4096 split");
}

TEST_P(MatrixUnits, WorkgroupScopeMatricesOnWholeTiles) {
  // Whole tiles of aligned operands run on workgroup-scope matrices where
  // the device has them (shaders/matmul_workgroup.comp): every layout,
  // batches with a shared operand, a longer K (short of a split). Outputs
  // stay small: the host reads arrays in device memory slowly on a
  // discrete GPU (docs/performance.md, issue 17's sixth part).
  const std::string report = info("matmul_matrix_units");
  if (report.find(fmt::format("{} whole tiles on workgroup-scope", dtype_name(t()))) ==
      std::string::npos) {
    GTEST_SKIP() << "no workgroup-scope matrices for " << t() << ": " << report;
  }
  array a = ints({256, 256}, 25);
  array b = ints({256, 384}, 26);
  array at = transpose(ints({256, 256}, 27));
  array bt = transpose(ints({384, 256}, 28));
  expect_matmul_exact(a, b, "nn 256x384x256");
  expect_matmul_exact(a, bt, "nt 256x384x256");
  expect_matmul_exact(at, b, "tn 256x384x256");
  expect_matmul_exact(at, bt, "tt 256x384x256");
  expect_matmul_exact(ints({3, 128, 64}, 29), ints({64, 256}, 30), "batched, b shared");
  expect_matmul_close(test_values({256, 768}, t(), 33, -1, 1),
                      test_values({768, 384}, t(), 34, -1, 1), "256x384x768");
}

TEST_P(MatrixUnits, SplitKAndRounding) {
  // Few tiles over a long K: K is split across workgroups and the float32
  // partial products are summed by a second pass.
  array a = test_values({64, 8192}, t(), 15, -1, 1);
  array b = test_values({8192, 96}, t(), 16, -1, 1);
  expect_matmul_close(a, b, "64x96x8192 split");
  array c = test_values({300, 1000}, t(), 17, -1, 1);
  array d = test_values({1000, 200}, t(), 18, -1, 1);
  expect_matmul_close(c, d, "300x200x1000");
}

TEST_P(MatrixUnits, LargeValuesStayInFloat32UntilTheStore) {
  // Products past float16's range (and bfloat16's precision) that cancel:
  // accumulators are float32, so only the final sum is rounded to the dtype.
  array a = astype(array({300.0f, 300.0f, 1.0f, 300.0f, -300.0f, 2.0f}, {2, 3}), t(), kCpu);
  array b = astype(array({300.0f, -300.0f, 3.0f}, {3, 1}), t(), kCpu);
  array c = matmul(a, b, kGpu);
  // Row 1: inf in float16, 180224 in bfloat16.
  array want = astype(array({3.0f, 180006.0f}, {2, 1}), t(), kCpu);
  expect_close(c, want, 0, 0, "cancelling products");
}

INSTANTIATE_TEST_SUITE_P(Dtypes, MatrixUnits, ::testing::Values(float16, bfloat16),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });
