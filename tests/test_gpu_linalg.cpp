// Differential tests: the GPU kernels of Matmul, Softmax and LogSumExp against
// the CPU backend, for every float dtype, over odd and edge sizes, transposed,
// strided and broadcast operands, long rows, many rows and special values.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <array>
#include <limits>
#include <string>
#include <utility>

#include "gpu_test_util.h"

using namespace mlx_lite;
using namespace gpu_test;

namespace {

const std::vector<Dtype> kFloatDtypes = {float32, float16, bfloat16};

std::string describe(const std::string& what, Dtype t) {
  return what + " " + std::string(dtype_name(t));
}

// Both backends accumulate in float32, in different orders: a dot product of
// K terms of magnitude <= 1 differs by about K float32 ulps, and a 16-bit
// result by one rounding of its own on top.
std::pair<double, double> matmul_tolerance(Dtype t, int64_t k) {
  return {rtol_of(t) * 4, 2e-7 * static_cast<double>(k) + (t == float32 ? 0 : 1e-3)};
}

void expect_matmul_close(const array& a, const array& b, const std::string& what) {
  const Dtype t = a.dtype();
  const auto [rtol, atol] = matmul_tolerance(t, a.shape(-1));
  expect_close(matmul(a, b, kGpu), matmul(a, b, kCpu), rtol, atol, describe(what, t));
}

// Two GPU products of the same operands (K = k) whose tilings add along K
// in the same order match bit for bit where both run the tiled kernel:
// float32 always, and every dtype on a device without matrix units. float16
// and bfloat16 on matrix units may take kernels that add in other orders by
// shape (workgroup-scope matrices, subgroup fragments): those match within
// the dtype's tolerance. Compared on the GPU, one flag read back, so it stays
// quick on a host that reads device memory slowly.
void expect_same_product(const array& x, const array& y, int64_t k, const std::string& what) {
  static const bool matrix_units =
      !std::get<std::string>(gpu::device_info().at("matmul_matrix_units")).starts_with("none (");
  const Dtype t = x.dtype();
  if (t == float32 || !matrix_units) {
    EXPECT_TRUE(array_equal(x, y, kGpu).item<bool>()) << describe(what + ", bit for bit", t);
  } else {
    const auto [rtol, atol] = matmul_tolerance(t, k);
    EXPECT_TRUE(allclose(x, y, rtol, atol, false, kGpu).item<bool>())
        << describe(what + ", within the tolerance", t);
  }
}

// A batch of rows x cols matrices, or of their transposes' transposes (a
// column-major view) where `transposed`, made on the CPU or on `where`.
array operand(int batch, int rows, int cols, bool transposed, Dtype t, int seed,
              const Device& where = kCpu) {
  return transposed ? transpose(test_values({batch, cols, rows}, t, seed, -1, 1, where), {0, 2, 1})
                    : test_values({batch, rows, cols}, t, seed, -1, 1, where);
}

class GpuMatmul : public gpu_test::GpuTest {};
class GpuSoftmax : public gpu_test::GpuTest {};

}  // namespace

TEST_F(GpuMatmul, OddAndEdgeSizes) {
  // (M, N, K)
  const std::vector<std::array<int, 3>> sizes = {{1, 1, 1},       {7, 5, 3},    {65, 33, 17},
                                                 {128, 128, 128}, {1, 1000, 1}, {1, 1, 1000},
                                                 {1000, 1, 1},    {3, 200, 64}};
  for (auto t : kFloatDtypes) {
    for (auto [M, N, K] : sizes) {
      array a = test_values({M, K}, t, 1, -1, 1);
      array b = test_values({K, N}, t, 2, -1, 1);
      expect_matmul_close(a, b, fmt::format("{}x{}x{}", M, N, K));
    }
  }
}

TEST_F(GpuMatmul, TransposedAndStridedOperands) {
  const int M = 37, N = 29, K = 41;
  for (auto t : kFloatDtypes) {
    array a = test_values({M, K}, t, 3, -1, 1);
    array b = test_values({K, N}, t, 4, -1, 1);
    // Transposed views: unit stride on the other dim, no copy.
    array at = transpose(test_values({K, M}, t, 5, -1, 1));
    array bt = transpose(test_values({N, K}, t, 6, -1, 1));
    expect_matmul_close(at, b, "a transposed");
    expect_matmul_close(a, bt, "b transposed");
    expect_matmul_close(at, bt, "both transposed");
    // Negative steps with offsets: no unit stride at all.
    array big_a = test_values({2 * M + 1, 3 * K + 2}, t, 7, -1, 1);
    array big_b = test_values({2 * K + 3, 2 * N}, t, 8, -1, 1);
    array sa = slice(big_a, {2 * M, 3 * K + 1}, {0, 1}, {-2, -3});
    array sb = slice(big_b, {2 * K + 2, 1}, {2, 2 * N}, {-2, 2});
    ASSERT_EQ(sa.shape(), (Shape{M, K}));
    ASSERT_EQ(sb.shape(), (Shape{K, N}));
    expect_matmul_close(sa, sb, "reversed strided");
    // Reversed columns of a and rows of b (strides -1 and -N).
    array ra = slice(a, {0, K - 1}, {M, -K - 1}, {1, -1});
    array rb = slice(b, {K - 1, 0}, {-K - 1, N}, {-1, 1});
    expect_matmul_close(ra, rb, "reversed");
  }
}

TEST_F(GpuMatmul, BatchedWithBroadcastBatchDims) {
  for (auto t : kFloatDtypes) {
    array a = test_values({3, 20, 40}, t, 9, -1, 1);
    array b = test_values({3, 40, 30}, t, 10, -1, 1);
    array b2 = test_values({40, 30}, t, 11, -1, 1);
    array a1 = test_values({1, 20, 40}, t, 12, -1, 1);
    expect_matmul_close(a, b, "batched");
    expect_matmul_close(a, b2, "b shared");
    expect_matmul_close(a1, b, "a broadcast");
    // Two batch dims, each broadcast in one operand, and a transposed batch.
    array a4 = test_values({2, 1, 20, 40}, t, 13, -1, 1);
    array b4 = test_values({1, 3, 40, 30}, t, 14, -1, 1);
    expect_matmul_close(a4, b4, "4-d broadcast");
    expect_matmul_close(transpose(test_values({40, 3, 20}, t, 15, -1, 1), {1, 2, 0}), b,
                        "batch and matrix transposed");
    // 1-D operands.
    array v = test_values({40}, t, 16, -1, 1);
    expect_close(matmul(a, v, kGpu), matmul(a, v, kCpu), rtol_of(t) * 4, 1e-3,
                 describe("matrix-vector", t));
    expect_close(matmul(v, b, kGpu), matmul(v, b, kCpu), rtol_of(t) * 4, 1e-3,
                 describe("vector-matrix", t));
  }
}

TEST_F(GpuMatmul, WideTilesWithEdges) {
  // Enough 128 x 128 tiles to take the 8 x 8-per-thread kernel (512: 60
  // matrices of 3 x 3), with partial tiles on every edge.
  for (auto t : kFloatDtypes) {
    array a = test_values({60, 257, 20}, t, 17, -1, 1);
    array b = test_values({60, 20, 259}, t, 18, -1, 1);
    expect_matmul_close(a, b, "wide tiles");
    expect_matmul_close(transpose(test_values({60, 20, 257}, t, 19, -1, 1), {0, 2, 1}),
                        transpose(test_values({60, 259, 20}, t, 20, -1, 1), {0, 2, 1}),
                        "wide tiles transposed");
  }
}

// M and N multiples of the tile and K of the step (16) load without bounds
// checks (WHOLE_TILES): both tile sizes, with and without a split K, in
// every layout; and the near miss of a K that is no multiple of 16 beside
// whole tiles, which keeps the checks (they keep reads inside the operands'
// buffers: what lies past M, N or K never reaches a stored output). Each
// product matches the checked path bit for bit: the same product without
// its last column is no longer whole, and keeps the tiles, the splits of K
// and the order of every sum. That comparison runs on the GPU and reads back
// one flag (expect_same_product: float16 and bfloat16 on matrix units
// within the tolerance, whole tiles there taking workgroup-scope matrices
// where the near miss takes subgroup fragments); the small products also
// match the CPU.
TEST_F(GpuMatmul, WholeTilesAndTheirNearMisses) {
  auto expect_as_checked = [](const array& a, const array& b, const std::string& what) {
    Shape stop = b.shape();
    stop.back() -= 1;
    array checked = matmul(a, slice(b, Shape(b.ndim(), 0), stop, kGpu), kGpu);
    array whole = slice(matmul(a, b, kGpu), Shape(b.ndim(), 0), checked.shape(), kGpu);
    expect_same_product(whole, checked, a.shape(-1), what + ": whole against checked");
  };
  // {batch, M, N, K}: 64 x 64 tiles; those over 32 splits of K; 128 x 128
  // tiles (512 of them); K = 100 beside whole 64 x 64 tiles.
  const std::array<int, 4> cases[] = {
      {1, 128, 128, 96}, {1, 64, 64, 16384}, {512, 128, 128, 16}, {1, 128, 192, 100}};
  for (auto t : kFloatDtypes) {
    for (auto [batch, M, N, K] : cases) {
      for (int layout = 0; layout < 3; ++layout) {  // nn, tn, nt
        const std::string what = fmt::format("{} x {}x{}x{} layout {}", batch, M, N, K, layout);
        // Products too large for a quick CPU reference take GPU-made operands.
        const bool on_cpu = batch * M * N * K <= (1 << 24);
        array a = operand(batch, M, K, layout == 1, t, 40, on_cpu ? kCpu : kGpu);
        array b = operand(batch, K, N, layout == 2, t, 41, on_cpu ? kCpu : kGpu);
        expect_as_checked(a, b, what);
        if (on_cpu) expect_matmul_close(a, b, what);
      }
    }
  }
  // 128 x 128 tiles over 64 splits of K (4 tiles by K = 32768).
  expect_as_checked(test_values({256, 32768}, float32, 42, -1, 1, kGpu),
                    test_values({32768, 256}, float32, 43, -1, 1, kGpu), "256 x 256 by 32768");
}

// Runs of 4 along the unit-strided dim load as vectors where they are
// aligned and whole: every layout with M, N and K multiples of 4 but not of
// a tile, in both tile sizes, and the near misses that load element by
// element (an offset, a row stride and a K that are not multiples of 4).
TEST_F(GpuMatmul, RunsOfFourAndTheirNearMisses) {
  for (auto t : kFloatDtypes) {
    // 1 matrix takes 64 x 64 tiles; 128 of 2 x 2 wide tiles take 128 x 128.
    for (auto [batch, M, N, K] : {std::array{1, 68, 36, 20}, std::array{128, 132, 132, 12}}) {
      for (bool ta : {false, true}) {
        for (bool tb : {false, true}) {
          expect_matmul_close(
              operand(batch, M, K, ta, t, 21), operand(batch, K, N, tb, t, 22),
              fmt::format("{}x{}x{}x{} {}{}", batch, M, N, K, ta ? 't' : 'n', tb ? 't' : 'n'));
        }
      }
    }
    array a = test_values({68, 42}, t, 23, -1, 1);
    array b = test_values({42, 36}, t, 24, -1, 1);
    expect_matmul_close(slice(a, {0, 1}, {68, 41}), slice(b, {1, 0}, {41, 36}), "offset 1");
    expect_matmul_close(slice(a, {0, 0}, {68, 40}), slice(b, {0, 0}, {40, 36}), "row stride 42");
    expect_matmul_close(slice(a, {0, 0}, {68, 39}), slice(b, {0, 0}, {39, 36}), "K = 39");
  }
}

// float32 operands read along k (A in nn, B in nt) load as blocks of 4 rows
// by a pair of k in 128 x 128 tiles where K is even and every pair is
// aligned (A_PAIRS, B_PAIRS in shaders/matmul.comp): partial tiles and a K
// past the last whole step of 16, and whole tiles, against the CPU; and bit
// for bit against the same values read element by element, at an odd
// offset (rows K + 1 apart, so each row's pairs straddle a pair boundary).
// The near misses K = 17 and an odd row stride load element by element.
TEST_F(GpuMatmul, PairsOfKAndTheirNearMisses) {
  // {batch, M, N, K}: 128 matrices of 2 x 2 tiles, or of one whole tile
  // each, take 128 x 128 tiles.
  for (auto [batch, M, N, K] : {std::array{128, 132, 132, 18}, std::array{512, 128, 128, 32},
                                std::array{128, 132, 132, 17}}) {
    for (bool nt : {false, true}) {
      const std::string what = fmt::format("{}x{}x{}x{} {}", batch, M, N, K, nt ? "nt" : "nn");
      // The k-fast operand, and a copy of it one element into rows of K + 1.
      const int rows = nt ? N : M;
      array fast = test_values({batch, rows, K}, float32, nt ? 60 : 61, -1, 1);
      array padded = concatenate({zeros({batch, rows, 1}, float32), fast}, 2);
      array shifted = slice(padded, {0, 0, 1}, {batch, rows, K + 1});
      array other =
          nt ? operand(batch, M, K, false, float32, 62) : operand(batch, K, N, false, float32, 63);
      auto product = [&](const array& x) {
        return nt ? matmul(other, transpose(x, {0, 2, 1}), kGpu) : matmul(x, other, kGpu);
      };
      if (batch * M * N * K <= (1 << 26)) {
        expect_matmul_close(nt ? other : fast, nt ? transpose(fast, {0, 2, 1}) : other, what);
      }
      expect_same_product(product(fast), product(shifted), K, what + ": against offset 1");
    }
  }
  // A row stride of 19 beside K = 18: element by element.
  array a = test_values({128, 132, 19}, float32, 64, -1, 1);
  expect_matmul_close(slice(a, {0, 0, 0}, {128, 132, 18}),
                      test_values({128, 18, 132}, float32, 65, -1, 1), "row stride 19");
}

// 8 matrices of test values made on the CPU, and 64 copies of them made on
// the GPU: batches of 512 whose CPU reference reads the 8 alone (a host
// reads a GPU's device memory slowly). rows x cols, or, where `transposed`,
// the transposes' transposes (column-major views).
std::pair<array, array> repeated_operand(int rows, int cols, bool transposed, Dtype t, int seed) {
  array few = test_values(transposed ? Shape{8, cols, rows} : Shape{8, rows, cols}, t, seed, -1, 1);
  array many = tile(few, {64, 1, 1}, kGpu);
  if (!transposed) return {few, many};
  return {transpose(few, {0, 2, 1}), transpose(many, {0, 2, 1})};
}

// 64 x 64 tiles over 512 or more workgroups step along K by 8, not 16
// (backend/vulkan/matmul.cpp): K of whole steps of 8 and 16 and of neither,
// partial tiles, a transposed operand; the last 8 products against the CPU,
// and all but the last bit for bit against the same products over 511
// batch matrices, which step by 16 (a thread adds along K in the same order
// either way; expect_same_product).
TEST_F(GpuMatmul, ManyWorkgroupsStepByEight) {
  for (auto t : kFloatDtypes) {
    for (auto [M, N, K, layout] : {std::array{64, 64, 48, 0}, std::array{64, 64, 40, 1},
                                   std::array{60, 50, 21, 2}, std::array{64, 64, 8, 0}}) {
      const std::string what = fmt::format("512 x {}x{}x{} layout {}", M, N, K, layout);
      const auto [a8, a] = repeated_operand(M, K, layout == 1, t, 50);
      const auto [b8, b] = repeated_operand(K, N, layout == 2, t, 51);
      array c = matmul(a, b, kGpu);
      const auto [rtol, atol] = matmul_tolerance(t, K);
      expect_close(slice(c, {504, 0, 0}, {512, M, N}, kGpu), matmul(a8, b8, kCpu), rtol, atol,
                   describe(what + ": the last 8 against the CPU", t));
      array fewer =
          matmul(slice(a, {0, 0, 0}, {511, M, K}), slice(b, {0, 0, 0}, {511, K, N}), kGpu);
      expect_same_product(slice(c, {0, 0, 0}, {511, M, N}, kGpu), fewer, K,
                          what + ": against 511 matrices");
    }
  }
}

// Without matrix units, float16 takes the float32 kernel's arithmetic in the
// float32 kernel's order, whether the tiled kernel converts each element as
// it loads it or (from 2^30 multiply-adds with M, N and K of at least 256)
// the operands are converted to float32 once: either way C has the bits of
// the float32 product rounded to float16.
TEST_F(GpuMatmul, Float16HasTheFloat32ProductsBits) {
  const auto report = std::get<std::string>(gpu::device_info().at("matmul_matrix_units"));
  if (report.starts_with("float16 (VK_")) {
    // They add in their own order, and the CPU reference of these sizes
    // would read the operands from device memory for minutes.
    GTEST_SKIP() << "float16 takes the matrix units here: " << report;
  }
  auto rounded_f32_product = [](const array& a, const array& b) {
    return astype(matmul(astype(a, float32, kGpu), astype(b, float32, kGpu), kGpu), float16, kGpu);
  };
  auto check = [&](const array& a, const array& b, const std::string& what) {
    expect_close(matmul(a, b, kGpu), rounded_f32_product(a, b), 0, 0, what);
    expect_matmul_close(a, b, what);
  };
  check(test_values({3, 65, 70}, float16, 25, -1, 1), test_values({70, 33}, float16, 26, -1, 1),
        "converted as loaded");
  // 8 x 512^3: converted once. b is shared by the batch (one matrix
  // converted), a's columns run backwards from an offset.
  array big_a = test_values({8, 512, 515}, float16, 27, -1, 1);
  array a = slice(big_a, {0, 0, 513}, {8, 512, 1}, {1, 1, -1});
  ASSERT_EQ(a.shape(), (Shape{8, 512, 512}));
  check(a, test_values({512, 512}, float16, 28, -1, 1), "converted once");
  check(transpose(test_values({8, 512, 512}, float16, 29, -1, 1), {0, 2, 1}),
        transpose(test_values({512, 512}, float16, 30, -1, 1)), "converted once, transposed");
}

TEST_F(GpuMatmul, EmptyAndZeroK) {
  for (auto t : kFloatDtypes) {
    array a = zeros({4, 0}, t, kCpu);
    array b = zeros({0, 5}, t, kCpu);
    expect_close(matmul(a, b, kGpu), zeros({4, 5}, t, kCpu), 0, 0, describe("K = 0", t));
    EXPECT_EQ(matmul(zeros({0, 3}, t, kCpu), zeros({3, 5}, t, kCpu), kGpu).shape(), (Shape{0, 5}));
  }
}

TEST_F(GpuMatmul, MoreTilesThanOneGridDimension) {
  // 70,000 batch matrices, one workgroup each, folded past 65535 into y.
  array a = test_values({70000, 2, 3}, float32, 21, -1, 1);
  array b = test_values({70000, 3, 2}, float32, 22, -1, 1);
  expect_matmul_close(a, b, "70000 batches");
}

TEST_F(GpuSoftmax, RowLengthsDtypesAndLayouts) {
  for (auto t : kFloatDtypes) {
    const double rtol = t == float32 ? 1e-5 : rtol_of(t);
    const double atol = t == float32 ? 1e-7 : 1e-4;
    for (int len : {1, 7, 1000, 100003}) {
      const int rows = len > 1000 ? 2 : 5;
      array a = test_values({rows, len}, t, 30 + len, -8, 8);
      for (bool precise : {false, true}) {
        expect_close(softmax(a, -1, precise, kGpu), softmax(a, -1, precise, kCpu), rtol, atol,
                     describe(fmt::format("softmax len {}", len), t));
      }
      expect_close(logsumexp(a, -1, false, kGpu), logsumexp(a, -1, false, kCpu), rtol, rtol * 10,
                   describe(fmt::format("logsumexp len {}", len), t));
    }
    // Strided rows: a transpose (the last axis has stride 5), a reversed
    // slice with an offset, and a broadcast (stride-0 rows).
    array base = test_values({4, 6, 5}, t, 40, -8, 8);
    const std::vector<std::pair<std::string, array>> layouts = {
        {"transposed", transpose(base, {2, 0, 1})},
        {"reversed", slice(base, {3, 5, 4}, {-5, -7, -6}, {-1, -2, -1})},
        {"broadcast", broadcast_to(slice(base, {0, 0, 0}, {4, 1, 5}), {4, 3, 5})}};
    for (const auto& [name, x] : layouts) {
      expect_close(softmax(x, -1, false, kGpu), softmax(x, -1, false, kCpu), rtol, atol,
                   describe("softmax " + name, t));
      expect_close(logsumexp(x, -1, true, kGpu), logsumexp(x, -1, true, kCpu), rtol, rtol * 10,
                   describe("logsumexp " + name, t));
    }
  }
}

namespace {

// Softmax and logsumexp over the last axis of a rows x len array and of a
// transposed one (stride `rows`), in every float dtype, against the CPU.
void expect_rows_like_cpu(int rows, int len, double atol32, double atol16,
                          const std::string& what) {
  for (auto t : kFloatDtypes) {
    const double rtol = t == float32 ? 1e-5 : rtol_of(t);
    const double atol = t == float32 ? atol32 : atol16;
    array dense = test_values({rows, len}, t, 60 + rows, -8, 8);
    array transposed = transpose(test_values({len, rows}, t, 61 + rows, -8, 8));
    for (const auto& [name, x] : {std::pair{"rows", dense}, std::pair{"transposed", transposed}}) {
      expect_close(softmax(x, -1, false, kGpu), softmax(x, -1, false, kCpu), rtol, atol,
                   describe(fmt::format("{} softmax {}", what, name), t));
      expect_close(logsumexp(x, -1, false, kGpu), logsumexp(x, -1, false, kCpu), rtol, rtol * 10,
                   describe(fmt::format("{} logsumexp {}", what, name), t));
    }
  }
}

}  // namespace

// Short rows share a workgroup (backend/vulkan/softmax.cpp): 1001 rows of
// 129 take 32 threads each (about 8 elements a thread), 8 rows to a
// workgroup, the last one short; rows of 33 take 8 threads, whose stats
// combine by subgroup shuffles where the subgroup holds 8 or more (every
// device with shuffles, lavapipe included) and through shared memory
// otherwise.
TEST_F(GpuSoftmax, ShortRowsShareWorkgroups) {
  expect_rows_like_cpu(1001, 129, 1e-7, 1e-4, "short-row");
  expect_rows_like_cpu(1001, 33, 1e-7, 1e-4, "subgroup-row");
}

// Few rows of at least 2 * 8192 elements are split over several workgroups
// each (backend/vulkan/softmax.cpp): 3 rows of 3 * 8192 + 5 take 3 parts
// (the last one short).
TEST_F(GpuSoftmax, FewLongRowsSplitAcrossWorkgroups) {
  expect_rows_like_cpu(3, 3 * 8192 + 5, 1e-9, 1e-6, "split");
}

// Rows whose runs of 4 are whole and aligned load and store them as vectors
// (float32, rows read once; softmax.comp's RUNS): rows of 128 from offset 0
// and from a whole row in; and the near misses that load element by element:
// an offset of 2 elements, rows of 130, and float16.
TEST_F(GpuSoftmax, RunsOfFourAndTheirNearMisses) {
  for (auto t : {float32, float16}) {
    array flat = test_values({9 * 130 + 2}, t, 70, -8, 8);
    const std::vector<std::pair<std::string, array>> cases = {
        {"rows of 128", reshape(slice(flat, {0}, {8 * 128}), {8, 128})},
        {"from row 1", slice(reshape(slice(flat, {0}, {9 * 128}), {9, 128}), {1, 0}, {9, 128})},
        {"offset 2", reshape(slice(flat, {2}, {2 + 8 * 128}), {8, 128})},
        {"rows of 130", reshape(slice(flat, {0}, {8 * 130}), {8, 130})}};
    for (auto [name, x] : cases) {
      x.eval();
      if (name == "offset 2") {
        ASSERT_EQ(x.offset(), 2) << "the view moved: the case tests nothing";
      }
      expect_close(softmax(x, -1, false, kGpu), softmax(x, -1, false, kCpu), rtol_of(t), 1e-7,
                   describe("softmax " + name, t));
      expect_close(logsumexp(x, -1, false, kGpu), logsumexp(x, -1, false, kCpu), rtol_of(t), 1e-6,
                   describe("logsumexp " + name, t));
    }
  }
}

namespace {

// Four rows of `len`: -inf everywhere but one element near the end; a +inf
// at inf_at; a NaN at nan_at; all -inf. Softmax and logsumexp of them in
// every float dtype must be the CPU's two-pass results.
void expect_special_rows_like_cpu(int len, int inf_at, int nan_at, const std::string& what) {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> v(4 * len, 0.5f);
  std::fill(v.begin(), v.begin() + len, -inf);
  v[len - 2] = 1.5f;
  v[len + inf_at] = inf;
  v[2 * len + nan_at] = std::numeric_limits<float>::quiet_NaN();
  std::fill(v.begin() + 3 * len, v.end(), -inf);
  array x(v.begin(), {4, len});
  for (auto t : kFloatDtypes) {
    array a = astype(x, t, kCpu);
    expect_close(softmax(a, -1, false, kGpu), softmax(a, -1, false, kCpu), rtol_of(t), 1e-7,
                 describe(what + " softmax special values", t));
    expect_close(logsumexp(a, -1, false, kGpu), logsumexp(a, -1, false, kCpu), rtol_of(t), 1e-6,
                 describe(what + " logsumexp special values", t));
  }
}

}  // namespace

// Special values in different parts of split rows give what the CPU's two
// passes give.
TEST_F(GpuSoftmax, SpecialValuesAcrossTheParts) {
  expect_special_rows_like_cpu(3 * 8192, 9000, 17, "split");
}

// Rows of up to 256 * 16 elements are read once, 16 elements in each
// thread's registers (softmax.comp's cached_stats), longer ones twice: the
// special values in other threads' elements than the winner's, on both
// sides of that limit, and in rows of 40 (8 threads, combined by subgroup
// shuffles where the device has them).
TEST_F(GpuSoftmax, SpecialValuesInRowsReadOnceOrTwice) {
  for (int len : {40, 1000, 4096, 4097}) {
    expect_special_rows_like_cpu(len, len / 3, len / 2 + 1, fmt::format("len {}", len));
  }
}

TEST_F(GpuSoftmax, MoreRowsThanOneGridDimension) {
  array a = test_values({70000, 3}, float32, 50, -8, 8);
  expect_close(softmax(a, -1, false, kGpu), softmax(a, -1, false, kCpu), 1e-5, 1e-7,
               "softmax 70000 rows");
  expect_close(logsumexp(a, -1, false, kGpu), logsumexp(a, -1, false, kCpu), 1e-5, 1e-5,
               "logsumexp 70000 rows");
}

TEST_F(GpuSoftmax, InfinitiesAndNaN) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // Rows: finite; some -inf; all -inf; one +inf; two +inf; a NaN; -inf and NaN.
  array x({1.0f, 2.0f, 3.0f, 4.0f,  //
           -inf, 1.0f, -inf, 0.5f,  //
           -inf, -inf, -inf, -inf,  //
           1.0f, inf,  2.0f, -inf,  //
           inf,  inf,  0.0f, 1.0f,  //
           1.0f, nan,  2.0f, 3.0f,  //
           -inf, nan,  -inf, -inf},
          {7, 4});
  for (auto t : kFloatDtypes) {
    array a = astype(x, t, kCpu);
    expect_close(softmax(a, -1, false, kGpu), softmax(a, -1, false, kCpu), rtol_of(t), 1e-7,
                 describe("softmax special values", t));
    expect_close(logsumexp(a, -1, false, kGpu), logsumexp(a, -1, false, kCpu), rtol_of(t), 1e-6,
                 describe("logsumexp special values", t));
  }
}
