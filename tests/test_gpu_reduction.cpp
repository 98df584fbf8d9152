// Differential tests: the GPU kernels of Reduce, ArgReduce and Scan against
// the CPU backend, for every op and dtype, over axes and layouts, long rows
// (the two-pass paths), many rows (grids folded past 65535 workgroups), and
// the CPU kernels' edge cases (integer wraparound, NaN, ties).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "gpu_test_util.h"

using namespace mlx_lite;
using namespace gpu_test;

namespace {

using Reduction = array (*)(const array&, const std::vector<int>&, bool, StreamOrDevice);

class GpuReduce : public gpu_test::GpuTest {};
class GpuArgReduce : public gpu_test::GpuTest {};
class GpuScan : public gpu_test::GpuTest {};

std::string dt(Dtype t) {
  return std::string(dtype_name(t));
}

// Every layout the kernels read: dense, transposed, reversed with an offset,
// and broadcast (stride 0), all of shape (4, 5, 6) from `base` (4, 5, 6).
std::vector<std::pair<std::string, array>> layouts(const array& base) {
  return {{"dense", base},
          {"transposed", reshape(transpose(base, {2, 0, 1}), {4, 5, 6}, kCpu)},
          {"transposed view", transpose(transpose(base, {2, 0, 1}), {1, 2, 0})},
          {"reversed", slice(base, {3, 4, 5}, {-5, -6, -7}, {-1, -2, -1})},
          {"broadcast", broadcast_to(slice(base, {0, 0, 0}, {1, 5, 6}), {4, 5, 6})}};
}

// Multiples of 1/8 in [lo, hi): every dtype holds them, and float sums of a
// few million of them are exact, so float results compare bit for bit.
array dyadic_values(const Shape& shape, Dtype dtype, uint64_t seed, float lo = -4, float hi = 4) {
  if (!is_floating_point(dtype)) return test_values(shape, dtype, seed, lo, hi);
  array u = random::uniform(lo * 8, hi * 8, shape, float32, random::key(seed), kCpu);
  array out = astype(divide(floor(u, kCpu), array(8.0f), kCpu), dtype, kCpu);
  eval(out);
  return out;
}

// a (dense float32) with NaN at every `period`-th element, from `first`.
array with_nans(const array& a, int period, int first) {
  std::vector<float> v(a.data<float>(), a.data<float>() + a.size());
  for (size_t i = first; i < v.size(); i += period) v[i] = NAN;
  return array(v.begin(), a.shape(), float32);
}

// Exact equality of integer (or bool) results, element by element.
void expect_same(const array& gpu_result, const array& cpu_result, const std::string& what) {
  ASSERT_EQ(gpu_result.shape(), cpu_result.shape()) << what;
  ASSERT_EQ(gpu_result.dtype(), cpu_result.dtype()) << what;
  array g = contiguous(astype(gpu_result, int64, kCpu), false, kCpu);
  array c = contiguous(astype(cpu_result, int64, kCpu), false, kCpu);
  eval({g, c});
  for (size_t i = 0; i < g.size(); ++i) {
    ASSERT_EQ(g.data<int64_t>()[i], c.data<int64_t>()[i]) << what << " at " << i;
  }
}

}  // namespace

// ---------------------------------------------------------------------------
// Reduce

TEST_F(GpuReduce, EveryReductionDtypeAxesAndLayout) {
  const std::vector<std::pair<std::string, Reduction>> ops = {
      {"sum", sum}, {"prod", prod}, {"max", max}, {"min", min}, {"all", all}, {"any", any}};
  const std::vector<std::vector<int>> axes_sets = {{}, {0}, {2}, {0, 2}, {1, 2}, {0, 1, 2}};
  for (auto dtype : gpu_test::gpu_dtypes) {
    for (const auto& [layout, a] : layouts(test_values({4, 5, 6}, dtype, 1, -3, 3))) {
      for (const auto& axes : axes_sets) {
        for (const auto& [name, op] : ops) {
          const double tol = is_floating_point(dtype) ? (dtype == float32 ? 1e-5 : 1e-2) : 0;
          expect_close(op(a, axes, false, kGpu), op(a, axes, false, kCpu), tol, tol,
                       name + " " + dt(dtype) + " " + layout);
        }
      }
    }
  }
}

TEST_F(GpuReduce, FullReductionsOfEverySize) {
  // 1000003 elements of one row take the two-pass path.
  const std::vector<std::pair<std::string, Reduction>> ops = {
      {"sum", sum}, {"max", max}, {"min", min}, {"all", all}, {"any", any}};
  for (int n : {1, 7, 1000003}) {
    for (auto dtype : gpu_test::gpu_dtypes) {
      array a = dyadic_values({n}, dtype, 4);
      for (const auto& [name, op] : ops) {
        const bool logical = name == "all" || name == "any";
        if (n > 7 && logical && dtype != bool_ && dtype != float32) continue;  // test time
        // Sums of eighths are exact in float; rounding them to 16 bits once is too.
        expect_close(op(a, {0}, false, kGpu), op(a, {0}, false, kCpu), 0, 0,
                     name + " " + dt(dtype) + " of " + std::to_string(n));
      }
    }
  }
  for (int n : {1, 7}) {
    for (auto dtype : gpu_test::gpu_dtypes) {
      array a = test_values({n}, dtype, 5, -3, 3);
      expect_close(prod(a, {0}, false, kGpu), prod(a, {0}, false, kCpu), rtol_of(dtype), 0,
                   "prod " + dt(dtype) + " of " + std::to_string(n));
    }
  }
}

TEST_F(GpuReduce, FewLongRowsTakeTwoPasses) {
  for (auto dtype : gpu_test::gpu_dtypes) {
    // Rows of 50000: 12 chunks each; dense, then a transposed view.
    array a = dyadic_values({3, 50000}, dtype, 6);
    for (const auto& [layout, x] :
         std::vector<std::pair<std::string, array>>{{"dense", a}, {"transposed", transpose(a)}}) {
      const int axis = layout == "dense" ? 1 : 0;
      for (Reduction op : std::vector<Reduction>{sum, max, min, all, any}) {
        expect_close(op(x, {axis}, false, kGpu), op(x, {axis}, false, kCpu), 0, 0,
                     dt(dtype) + " " + layout);
      }
    }
  }
  // Random float32 sums: the GPU's float partials against the CPU's double.
  array r = test_values({2, 300000}, float32, 7, -3, 3);
  expect_close(sum(r, {1}, false, kGpu), sum(r, {1}, false, kCpu), 1e-5, 3e-7 * 300000 * 3,
               "random float32 sums");
  array h = test_values({2, 300000}, float16, 7, -3, 3);
  expect_close(sum(h, {1}, false, kGpu), sum(h, {1}, false, kCpu), 2e-3, 3e-7 * 300000 * 3,
               "random float16 sums");
  // Products of values near 1 over two passes.
  array p = test_values({2, 20000}, float32, 8, 0.999f, 1.001f);
  expect_close(prod(p, {1}, false, kGpu), prod(p, {1}, false, kCpu), 1e-4, 0, "long products");
}

// Short rows share a workgroup (reduction.cpp's row_threads: about 16
// elements per thread, the rest of the 256 on the next rows): row lengths
// around each power of two of threads, row counts that leave the last
// workgroup part full, dense and transposed, against the CPU bit for bit.
TEST_F(GpuReduce, ShortRowsShareWorkgroups) {
  const std::vector<std::pair<std::string, Reduction>> ops = {
      {"sum", sum}, {"max", max}, {"min", min}, {"any", any}};
  for (int len : {1, 2, 16, 17, 100, 1024, 1025, 4097}) {
    const int rows = len > 1000 ? 37 : 1001;
    for (auto dtype : {float32, int32}) {
      array a = dyadic_values({rows, len}, dtype, 40 + len);
      for (const auto& [name, x] : std::vector<std::pair<std::string, array>>{
               {"dense", a}, {"transposed", transpose(dyadic_values({len, rows}, dtype, 41))}}) {
        for (const auto& [op_name, op] : ops) {
          expect_close(
              op(x, {1}, false, kGpu), op(x, {1}, false, kCpu), 0, 0,
              op_name + " of rows of " + std::to_string(len) + " " + name + " " + dt(dtype));
        }
      }
    }
  }
}

// Dense rows of 32-bit elements whose runs of 4 are whole and aligned load
// them as vectors (reduction.cpp's whole_runs): extremes and NaN at each
// place of a run and at a chunk's start, one and two passes (the second over
// 5 partials, not whole runs; or 64, whole), and the near misses that load
// element by element, all against the CPU bit for bit (sums of eighths are
// exact).
TEST_F(GpuReduce, RunsOfFourAndTheirNearMisses) {
  const std::vector<std::pair<std::string, Reduction>> ops = {
      {"sum", sum}, {"max", max}, {"min", min}};
  const int len = 65548;  // 5 chunks of 16384 per row
  array base = dyadic_values({3, len}, float32, 60);
  std::vector<float> v(base.data<float>(), base.data<float>() + base.size());
  auto at = [&](int row, int col) -> float& { return v[size_t(row) * len + col]; };
  at(0, 61503) = 10.0f;     // element 3 of its run
  at(0, 16385) = -10.0f;    // element 1 of the second chunk's first run
  at(1, 16384) = 10.0f;     // element 0 of a chunk
  at(1, len - 2) = -10.0f;  // element 2 of the last run
  at(2, 30002) = NAN;       // element 2: max and min of row 2 are NaN
  const array a(v.begin(), {3, len}, float32);
  const array finite = slice(a, {0, 0}, {2, len});
  for (auto dtype : {float32, int32, uint32}) {
    array x = dtype == float32 ? a : astype(finite * 8.0f + 100.0f, dtype, kCpu);
    eval(x);
    for (const auto& [name, op] : ops) {
      const std::string what = name + " " + dt(dtype);
      expect_close(op(x, {1}, false, kGpu), op(x, {1}, false, kCpu), 0, 0, what + ", rows");
      if (dtype != float32) {
        expect_close(op(x, {0, 1}, false, kGpu), op(x, {0, 1}, false, kCpu), 0, 0, what + ", full");
      }
    }
  }
  // One row of 2^20: 64 partials, reduced as runs too.
  array row = dyadic_values({1 << 20}, float32, 61);
  for (const auto& [name, op] : ops) {
    expect_close(op(row, {0}, false, kGpu), op(row, {0}, false, kCpu), 0, 0, name + " of 2^20");
  }
  // Rows of 16 (a run or four a thread) and of 4 (one run).
  for (int short_len : {4, 16}) {
    array rows = dyadic_values({999, short_len}, int32, 62);
    for (const auto& [name, op] : ops) {
      expect_close(op(rows, {1}, false, kGpu), op(rows, {1}, false, kCpu), 0, 0,
                   name + " of rows of " + std::to_string(short_len));
    }
  }
  // An offset of 4, whole runs; near misses: an offset of 1, a length of
  // 4k + 3, 16-bit elements.
  const array flat = reshape(finite, {2 * len}, kCpu);
  for (const auto& [what, x] :
       std::vector<std::pair<std::string, array>>{{"offset 4, runs", slice(flat, {4}, {4 + len})},
                                                  {"offset 1", slice(flat, {1}, {1 + len})},
                                                  {"length 4k + 3", slice(flat, {0}, {len - 1})},
                                                  {"float16", astype(finite, float16, kCpu)}}) {
    for (const auto& [name, op] : ops) {
      const std::vector<int> axes = x.ndim() == 1 ? std::vector<int>{0} : std::vector<int>{0, 1};
      expect_close(op(x, axes, false, kGpu), op(x, axes, false, kCpu), 0, 0, name + ", " + what);
    }
  }
}

TEST_F(GpuReduce, TwoPassIntegersWrapAsTheCpu) {
  // Sums past 2^31 (int32), 2^32 (uint32 and uint8's uint32) and 2^63 (int64).
  array i32 = full({2, 40000}, 1 << 30, int32, kCpu);
  expect_same(sum(i32, {1}, false, kGpu), sum(i32, {1}, false, kCpu), "int32 wraps");
  array u32 = full({40000}, 3000000000u, uint32, kCpu);
  expect_same(sum(u32, {0}, false, kGpu), sum(u32, {0}, false, kCpu), "uint32 wraps");
  array u8 = full({40000}, 255, uint8, kCpu);
  expect_same(sum(u8, {0}, false, kGpu), sum(u8, {0}, false, kCpu), "uint8 sums to uint32");
  array i64 = full({40000}, int64_t{1} << 60, int64, kCpu);
  expect_same(sum(i64, {0}, false, kGpu), sum(i64, {0}, false, kCpu), "int64 wraps");
  array b = greater(test_values({3, 40000}, float32, 9), array(0.0f), kCpu);
  expect_same(sum(b, {1}, false, kGpu), sum(b, {1}, false, kCpu), "bool counts");
  array odd = full({3, 40000}, 3, int32, kCpu);
  expect_same(prod(odd, {1}, false, kGpu), prod(odd, {1}, false, kCpu), "int32 products wrap");
}

TEST_F(GpuReduce, NaNWinsMaxAndMinOverTwoPasses) {
  array a = with_nans(test_values({2, 100003}, float32, 10), 1 << 30, 77777);  // row 0 only
  for (Reduction op : std::vector<Reduction>{max, min}) {
    array g = op(a, {1}, false, kGpu);
    expect_close(g, op(a, {1}, false, kCpu), 0, 0, "NaN in a long row");
    EXPECT_TRUE(std::isnan(g.data<float>()[0]));
    EXPECT_FALSE(std::isnan(g.data<float>()[1]));
  }
  array h = astype(with_nans(test_values({100003}, float32, 11), 100003, 5), bfloat16, kCpu);
  EXPECT_TRUE(std::isnan(static_cast<float>(max(h, kGpu).item<bfloat16_t>())));
  EXPECT_TRUE(std::isnan(static_cast<float>(min(h, kGpu).item<bfloat16_t>())));
}

TEST_F(GpuReduce, DenseAfterFlippingAndSortingReducedAxes) {
  // A full reduction of a reversed transposed array reads it as one dense run.
  array a = dyadic_values({300, 400}, float32, 12);
  array v = transpose(slice(a, {299, 399}, {-301, -401}, {-1, -1}));
  expect_close(sum(v, kGpu), sum(v, kCpu), 0, 0, "reversed transposed sum");
  expect_close(max(v, {0, 1}, false, kGpu), max(v, {0, 1}, false, kCpu), 0, 0, "reversed max");
  array b = broadcast_to(slice(a, {0, 0}, {1, 400}), {300, 400});
  expect_close(sum(b, kGpu), sum(b, kCpu), 0, 0, "broadcast sum");
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

// Float32 sums of many elements against a float64 reference, on both devices
// (issue 15, item 2). Pairwise summation's bound is about log2(n) * 2^-24 *
// sum |x| (n = 2^26: 1.6e-6); terms added one at a time to one float32
// accumulator can be off by up to n * 2^-24.
constexpr double kSumRtol = 1e-6;

// The relative error of a float32 result against the float64 sum `want`.
double rel_error(const array& got, double want) {
  return std::abs(static_cast<double>(astype(got, float32, kCpu).item<float>()) - want) /
         std::abs(want);
}

TEST_F(GpuReduce, Float32SumsOfManyElementsAreAccurate) {
  // 2^24 + 5 random floats in [0, 1), dense.
  const int n = (1 << 24) + 5;
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> v(n);
  double want = 0;
  for (auto& e : v) {
    e = dist(gen);
    want += e;
  }
  array x(v.begin(), {n}, float32);
  // 2^26 broadcast ones (one element read over and over).
  array ones = broadcast_to(array(1.0f), {1 << 13, 1 << 13});
  for (const Device& d : {kCpu, kGpu}) {
    const std::string where = d == kCpu ? "cpu" : "gpu";
    EXPECT_LT(rel_error(sum(x, false, d), want), kSumRtol) << where;
    EXPECT_EQ(sum(ones, false, d).item<float>(), static_cast<float>(1 << 26)) << where;
  }
}

TEST_F(GpuReduce, Float32SumsOfLargeThenSmallTermsAreAccurate) {
  // The hard case for terms added one at a time: columns of 65536 whose
  // first 256 terms are 1 and the rest far smaller (below half an ulp of 1,
  // so adding each to a running 1 loses it). 1024 such columns (one column
  // vector, broadcast) summed over axis 0: the many-rows path, where one
  // workgroup took a whole column and each thread added 256 terms in turn.
  const int len = 1 << 16;
  std::mt19937 gen(11);
  std::uniform_real_distribution<float> tiny(0.0f, std::ldexp(1.0f, -24));
  std::vector<float> v(len);
  double want = 0;
  for (int i = 0; i < len; ++i) {
    v[i] = i < 256 ? 1.0f : tiny(gen);
    want += v[i];
  }
  array col = broadcast_to(array(v.begin(), {len, 1}, float32), {len, 1024});
  for (const Device& d : {kCpu, kGpu}) {
    const std::string where = d == kCpu ? "cpu" : "gpu";
    array s = sum(col, {0}, false, d);
    EXPECT_LT(rel_error(max(s, false, kCpu), want), kSumRtol) << where;
    EXPECT_LT(rel_error(min(s, false, kCpu), want), kSumRtol) << where;
  }
}

// ---------------------------------------------------------------------------
// ArgReduce

TEST_F(GpuArgReduce, EveryDtypeAxisAndLayout) {
  // Values in [-3, 3) make many ties: the first index must win.
  for (auto dtype : gpu_test::gpu_dtypes) {
    for (const auto& [layout, a] : layouts(test_values({4, 5, 6}, dtype, 20, -3, 3))) {
      for (int axis = 0; axis < 3; ++axis) {
        expect_same(argmax(a, axis, false, kGpu), argmax(a, axis, false, kCpu),
                    "argmax " + dt(dtype) + " " + layout + " axis " + std::to_string(axis));
        expect_same(argmin(a, axis, false, kGpu), argmin(a, axis, false, kCpu),
                    "argmin " + dt(dtype) + " " + layout + " axis " + std::to_string(axis));
      }
      expect_same(argmax(a, kGpu), argmax(a, kCpu), "full argmax " + dt(dtype) + " " + layout);
    }
  }
}

TEST_F(GpuArgReduce, TiesAndNaN) {
  // Lines of 40 (one workgroup each) holding ties, a NaN, two NaNs.
  array a = test_values({3, 40}, float32, 21, -2, 2);
  array i = reshape(arange(120, kCpu), {3, 40}, kCpu);
  array nan_at =
      logical_or(equal(i, array(50), kCpu),
                 logical_or(equal(i, array(90), kCpu), equal(i, array(95), kCpu), kCpu), kCpu);
  a = where(nan_at, array(NAN), a, kCpu);
  for (auto dtype : {float32, float16, bfloat16}) {
    array x = astype(a, dtype, kCpu);
    for (int axis : {0, 1}) {
      expect_same(argmax(x, axis, false, kGpu), argmax(x, axis, false, kCpu),
                  "argmax " + dt(dtype));
      expect_same(argmin(x, axis, false, kGpu), argmin(x, axis, false, kCpu),
                  "argmin " + dt(dtype));
    }
  }
  array equal_values = zeros({1000}, int32, kCpu);
  EXPECT_EQ(argmax(equal_values, kGpu).item<uint32_t>(), 0u);
  EXPECT_EQ(argmin(equal_values, kGpu).item<uint32_t>(), 0u);
}

TEST_F(GpuArgReduce, LongLinesTakeTwoPasses) {
  for (auto dtype : gpu_test::gpu_dtypes) {
    array a = test_values({1000003}, dtype, 22, -3, 3);  // ties everywhere
    expect_same(argmax(a, kGpu), argmax(a, kCpu), "argmax of 1000003 " + dt(dtype));
    expect_same(argmin(a, kGpu), argmin(a, kCpu), "argmin of 1000003 " + dt(dtype));
  }
  // NaN in a late chunk beats every number; the first of two NaNs wins: NaNs
  // at column 45000 of each row, and at (0, 30001) and (2, 2).
  array a = with_nans(test_values({3, 50000}, float32, 23), 50000, 45000);
  a = with_nans(a, 70001, 30001);
  for (int axis : {0, 1}) {
    expect_same(argmax(a, axis, false, kGpu), argmax(a, axis, false, kCpu), "NaN argmax");
    expect_same(argmin(a, axis, false, kGpu), argmin(a, axis, false, kCpu), "NaN argmin");
  }
  array t = transpose(a);  // strided lines of 50000
  expect_same(argmax(t, 0, false, kGpu), argmax(t, 0, false, kCpu), "strided long lines");
}

// Contiguous 32-bit lines of whole runs of 4 that start at multiples of 4
// load as vectors (RUNS): winners at each place in a run, ties across runs
// and chunks (16 chunks of 4100 a line, the last shorter), NaN; and the near
// misses that take the scalar loads (an odd offset, a length not a multiple
// of 4, 16-bit elements), all against the CPU.
TEST_F(GpuArgReduce, RunsOfFourAndTheirNearMisses) {
  const int len = 65548;
  std::vector<float> v(3 * len);
  std::mt19937 rng(26);
  for (auto& x : v) x = static_cast<float>(static_cast<int>(rng() % 48) - 24) / 8.0f;
  auto at = [&](int row, int col) -> float& { return v[size_t(row) * len + col]; };
  at(0, 61503) = at(0, 61507) = 10.0f;  // ties: the first, element 3 of its run
  at(0, 4101) = -10.0f;                 // element 1 of its run, in the second chunk
  at(1, 30002) = NAN;                   // element 2; the later NaN must not win
  at(1, len - 1) = NAN;
  at(2, 4096) = at(2, 2) = -10.0f;  // element 0 of a run at a chunk's start; element 2
  at(2, len - 4) = 10.0f;
  const array a(v.begin(), {3, len}, float32);
  for (auto dtype : {float32, int32, uint32}) {
    array x = dtype == float32 ? a
                               : astype(where(isnan(a, kCpu), array(20.0f), a, kCpu) * 8.0f +
                                            (dtype == uint32 ? 200.0f : 0.0f),
                                        dtype, kCpu);
    eval(x);
    expect_same(argmax(x, 1, false, kGpu), argmax(x, 1, false, kCpu), "argmax " + dt(dtype));
    expect_same(argmin(x, 1, false, kGpu), argmin(x, 1, false, kCpu), "argmin " + dt(dtype));
    expect_same(argmax(x, kGpu), argmax(x, kCpu), "full argmax " + dt(dtype));
  }
  // One line of 64 (one chunk, fewer runs than threads) and 4 x 4 rows.
  array s = slice(a, {0, 61500}, {1, 61564});
  expect_same(argmax(s, 1, false, kGpu), argmax(s, 1, false, kCpu), "one short chunk");
  array rows = reshape(slice(a, {1, 30000}, {2, 30016}), {4, 4}, kCpu);
  expect_same(argmax(rows, 1, false, kGpu), argmax(rows, 1, false, kCpu), "lines of one run");

  const array flat = reshape(a, {3 * len}, kCpu);
  array odd_offset = slice(flat, {1}, {1 + len});
  array odd_length = slice(flat, {0}, {len - 1});
  array halves = astype(a, float16, kCpu);
  for (const auto& [what, x] : std::vector<std::pair<std::string, array>>{
           {"offset 1", odd_offset}, {"length 4k + 3", odd_length}, {"float16", halves}}) {
    expect_same(argmax(x, kGpu), argmax(x, kCpu), "argmax, " + what);
    expect_same(argmin(x, kGpu), argmin(x, kCpu), "argmin, " + what);
  }
}

TEST_F(GpuArgReduce, ManyLines) {
  // 70,000 lines of 20: one workgroup each, folded past 65535 into y.
  array a = test_values({70000, 20}, int32, 24, -3, 3);
  expect_same(argmax(a, 1, false, kGpu), argmax(a, 1, false, kCpu), "70000 lines");
  // 40,000 lines across the fast axis: one thread each.
  array b = test_values({40, 40000}, float32, 25, -3, 3);
  expect_same(argmin(b, 0, false, kGpu), argmin(b, 0, false, kCpu), "40000 columns");
  expect_same(argmin(transpose(b), 1, false, kGpu), argmin(transpose(b), 1, false, kCpu),
              "40000 transposed rows");
}

// ---------------------------------------------------------------------------
// Scan

namespace {

// cumsum on the GPU and the CPU for every axis, direction and inclusiveness.
void expect_cumsums(const array& a, double rtol, double atol, const std::string& what) {
  for (int axis = 0; axis < a.ndim(); ++axis) {
    for (bool reverse : {false, true}) {
      for (bool inclusive : {true, false}) {
        const auto name = what + " axis " + std::to_string(axis) + (reverse ? " reverse" : "") +
                          (inclusive ? "" : " exclusive");
        array g = cumsum(a, axis, reverse, inclusive, kGpu);
        array c = cumsum(a, axis, reverse, inclusive, kCpu);
        if (is_floating_point(a.dtype())) {
          expect_close(g, c, rtol, atol, name);
        } else {
          expect_same(g, c, name);
        }
      }
    }
  }
}

}  // namespace

TEST_F(GpuScan, EveryDtypeAxisAndLayout) {
  // Lines of 4 to 6: one thread each. Eighths sum exactly: results match exactly.
  for (auto dtype : gpu_test::gpu_dtypes) {
    for (const auto& [layout, a] : layouts(dyadic_values({4, 5, 6}, dtype, 30))) {
      expect_cumsums(a, 0, 0, dt(dtype) + " " + layout);
    }
  }
}

TEST_F(GpuScan, WorkgroupPerLine) {
  // Lines of 70 (64 threads) and 1100 (256 threads, past one tile of 1024),
  // contiguous and strided.
  for (auto dtype : gpu_test::gpu_dtypes) {
    array a = dyadic_values({2, 70, 1100}, dtype, 31);
    expect_cumsums(a, 0, 0, dt(dtype));
    if (dtype == float32 || dtype == bool_) {
      expect_cumsums(transpose(a, {2, 0, 1}), 0, 0, dt(dtype) + " transposed");
    }
  }
  array s =
      slice(dyadic_values({3, 70, 1100}, int32, 32), {2, 69, 1099}, {-4, -71, -1101}, {-1, -2, -3});
  expect_cumsums(s, 0, 0, "reversed int32");
}

TEST_F(GpuScan, LongLines) {
  for (auto dtype : {float32, int32, int64, uint8, bfloat16}) {
    array a = dyadic_values({2, 100003}, dtype, 33, dtype == uint8 ? 0 : -4, 4);
    // uint8 wraps; bfloat16 rounds each exact float prefix once, as the CPU.
    for (bool reverse : {false, true}) {
      array g = cumsum(a, 1, reverse, true, kGpu), c = cumsum(a, 1, reverse, true, kCpu);
      if (is_floating_point(dtype)) {
        expect_close(g, c, 0, 0, "long " + dt(dtype));
      } else {
        expect_same(g, c, "long " + dt(dtype));
      }
    }
  }
  // Random float32 values: the GPU's compensated float sums against the
  // CPU's double ones, within a few ulps of the running sum's scale.
  array r = test_values({100003}, float32, 34);
  array g = cumsum(r, 0, false, true, kGpu), c = cumsum(r, 0, false, true, kCpu);
  expect_close(g, c, 1e-5, 4 * 1.2e-7 * std::sqrt(100003.0) * 4, "random float32");
  array h = test_values({100003}, float16, 35, -1, 1);
  expect_close(cumsum(h, 0, true, true, kGpu), cumsum(h, 0, true, true, kCpu), 1e-3,
               std::sqrt(100003.0) * 1e-3, "random float16");
}

TEST_F(GpuScan, ManyLines) {
  // 70,000 lines of 70: one workgroup each, folded past 65535 into y.
  array a = dyadic_values({70000, 70}, int32, 36);
  expect_same(cumsum(a, 1, false, true, kGpu), cumsum(a, 1, false, true, kCpu), "70000 lines");
  // 40,000 lines across the fast axis: one thread each, folded too.
  array b = dyadic_values({40, 70000}, float32, 37);
  expect_close(cumsum(b, 0, true, false, kGpu), cumsum(b, 0, true, false, kCpu), 0, 0,
               "70000 columns");
}
