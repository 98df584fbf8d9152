// cumprod, cummax, cummin and logcumsumexp (and cumsum beside them) on the
// CPU and the GPU against a reference loop written here (double for floats,
// wrapping 64-bit integers for the integer dtypes): every dtype, every axis
// (negative too), reverse and exclusive, views, empty and length-1 axes,
// NaN, lines past one GPU tile; their gradients (check_grads, including
// zeros in cumprod and ties in cummax) and their errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "mlx_lite/gpu.h"
#include "mlx_lite/testing.h"
#include "test_util.h"

namespace {

using namespace test_util;

const Device kCpu(Device::cpu);
const Device kGpu(Device::gpu);

enum class Op { Sum, Prod, Max, Min, LogAddExp };
const Op kOps[] = {Op::Sum, Op::Prod, Op::Max, Op::Min, Op::LogAddExp};

const char* op_name(Op op) {
  static const char* names[] = {"cumsum", "cumprod", "cummax", "cummin", "logcumsumexp"};
  return names[static_cast<int>(op)];
}

array run(Op op, const array& a, int axis, bool reverse, bool inclusive, StreamOrDevice s) {
  switch (op) {
    case Op::Sum:
      return cumsum(a, axis, reverse, inclusive, s);
    case Op::Prod:
      return cumprod(a, axis, reverse, inclusive, s);
    case Op::Max:
      return cummax(a, axis, reverse, inclusive, s);
    case Op::Min:
      return cummin(a, axis, reverse, inclusive, s);
    case Op::LogAddExp:
      return logcumsumexp(a, axis, reverse, inclusive, s);
  }
  return a;
}

Dtype output_dtype(Op op, Dtype in) {
  if (op == Op::Sum && in == bool_) return int32;
  if (op == Op::LogAddExp && !is_floating_point(in)) return float32;
  return in;
}

// The identity of op over dtype t (an exclusive scan's first output).
double identity(Op op, Dtype t) {
  const double inf = std::numeric_limits<double>::infinity();
  switch (op) {
    case Op::Sum:
      return 0;
    case Op::Prod:
      return 1;
    case Op::LogAddExp:
      return -inf;
    case Op::Max:
    case Op::Min:
      break;
  }
  const bool mx = op == Op::Max;
  if (is_floating_point(t)) return mx ? -inf : inf;
  if (t == bool_) return mx ? 0 : 1;
  // The integer's lowest or highest value.
  return dispatch_dtype(t, [&]<typename T>() {
    return static_cast<double>(mx ? std::numeric_limits<T>::lowest()
                                  : std::numeric_limits<T>::max());
  });
}

double combine(Op op, double acc, double x, bool integral) {
  switch (op) {
    case Op::Sum:
      return acc + x;
    case Op::Prod:
      // Integers wrap at 64 bits (then to the dtype), as the kernels do.
      return integral ? static_cast<double>(
                            static_cast<int64_t>(static_cast<uint64_t>(static_cast<int64_t>(acc)) *
                                                 static_cast<uint64_t>(static_cast<int64_t>(x))))
                      : acc * x;
    case Op::Max:
      return std::isnan(acc) ? acc : (std::isnan(x) || x > acc ? x : acc);
    case Op::Min:
      return std::isnan(acc) ? acc : (std::isnan(x) || x < acc ? x : acc);
    case Op::LogAddExp: {
      if (std::isnan(acc) || std::isnan(x)) return NAN;
      const double hi = std::max(acc, x), lo = std::min(acc, x);
      return std::isinf(hi) ? hi : hi + std::log(1 + std::exp(lo - hi));
    }
  }
  return 0;
}

// The reference scan of `a` along `axis`, row-major, as the output dtype
// stores it.
std::vector<double> reference(Op op, const array& a, int axis, bool reverse, bool inclusive) {
  const int ax = axis < 0 ? axis + a.ndim() : axis;
  const auto v = values(a);
  const Dtype out = output_dtype(op, a.dtype());
  const bool integral = !is_floating_point(out);
  std::vector<double> r(v.size());
  const int64_t n = a.shape(ax);
  if (n == 0) return r;
  int64_t inner = 1;
  for (int d = ax + 1; d < a.ndim(); ++d) inner *= a.shape(d);
  for (int64_t line = 0; line < static_cast<int64_t>(v.size()) / n; ++line) {
    const int64_t base = (line / inner) * n * inner + line % inner;
    double acc = identity(op, out);
    for (int64_t p = 0; p < n; ++p) {
      const int64_t i = base + (reverse ? n - 1 - p : p) * inner;
      if (inclusive) acc = combine(op, acc, v[i], integral);
      // An integer identity (the dtype's lowest or highest) is stored as is.
      if (!integral) {
        r[i] = stored(acc, out);
      } else {
        r[i] = std::abs(acc) < 9.2e18 ? wrap(acc, out) : acc;
      }
      if (!inclusive) acc = combine(op, acc, v[i], integral);
    }
  }
  return r;
}

// Whether a result must match exactly: integers, max and min.
bool exact(Op op, Dtype out) {
  return !is_floating_point(out) || op == Op::Max || op == Op::Min;
}

void expect_matches(const std::vector<double>& got, const std::vector<double>& want, bool is_exact,
                    double tol, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      ASSERT_TRUE(std::isnan(got[i])) << what << " at " << i;
    } else if (is_exact || std::isinf(want[i])) {
      ASSERT_EQ(got[i], want[i]) << what << " at " << i;
    } else {
      ASSERT_NEAR(got[i], want[i], tol * (1 + std::abs(want[i]))) << what << " at " << i;
    }
  }
}

double tol_of(Dtype t) {
  return t == float32 ? 2e-5 : (t == float16 ? 4e-3 : 3e-2);
}

// Every scan of `a` along every axis (negative ones too), both directions
// and inclusivenesses: the CPU against the reference, the GPU against the
// CPU (bit for bit where exact).
void expect_scans(const array& a, const std::string& what, std::vector<Op> ops = {}) {
  if (ops.empty()) ops.assign(std::begin(kOps), std::end(kOps));
  for (Op op : ops) {
    for (int axis = -a.ndim(); axis < a.ndim(); ++axis) {
      for (bool reverse : {false, true}) {
        for (bool inclusive : {true, false}) {
          const std::string name = what + " " + op_name(op) + " axis " + std::to_string(axis) +
                                   (reverse ? " reverse" : "") + (inclusive ? "" : " exclusive");
          array c = run(op, a, axis, reverse, inclusive, kCpu);
          const Dtype out = output_dtype(op, a.dtype());
          ASSERT_EQ(c.dtype(), out) << name;
          ASSERT_EQ(c.shape(), a.shape()) << name;
          const bool is_exact = exact(op, out);
          const auto cv = values(c);
          expect_matches(cv, reference(op, a, axis, reverse, inclusive), is_exact, tol_of(out),
                         name + " cpu");
          if (!gpu::is_available()) continue;
          array g = run(op, a, axis, reverse, inclusive, kGpu);
          ASSERT_EQ(g.dtype(), out) << name;
          expect_matches(values(g), cv, is_exact, tol_of(out), name + " gpu");
        }
      }
    }
  }
}

// Small values (products stay small for floats; integers wrap exactly).
array small_values(const Shape& shape, Dtype dtype, uint64_t seed, float lo = -2, float hi = 2) {
  array u = random::uniform(lo, hi, shape, float32, random::key(seed), kCpu);
  if (!is_floating_point(dtype)) u = floor(u, kCpu);
  if (dtype == bool_) u = greater(u, array(-1.0f), kCpu);
  if (is_unsigned(dtype)) u = abs(u, kCpu);
  array out = astype(u, dtype, kCpu);
  eval(out);
  return out;
}

TEST(Scans, EveryDtypeAxisAndDirection) {
  for (Dtype dtype : all_dtypes) {
    if (!test_util::runs_on(dtype, default_device())) continue;
    expect_scans(small_values({3, 4, 9}, dtype, 1), std::string(dtype_name(dtype)));
  }
}

TEST(Scans, ViewsEmptyAndLengthOne) {
  array base = small_values({5, 8, 6}, float32, 2);
  expect_scans(transpose(base, {2, 0, 1}), "transposed");
  expect_scans(slice(base, {4, 7, 0}, {-6, -9, 6}, {-1, -3, 2}), "reversed slice");
  for (const Shape& shape : {Shape{0}, Shape{3, 0}, Shape{4, 1}, Shape{1}}) {
    expect_scans(small_values(shape, int32, 3), "small int32");
    expect_scans(small_values(shape, float16, 3), "small float16");
  }
}

// Lines of one GPU tile (up to 4096) and past it (9000: three tiles) in the
// workgroup-per-line mode, and many short lines in the thread-per-line mode.
TEST(Scans, LongAndManyLines) {
  for (int n : {3000, 9000}) {
    const std::string what = "2 x " + std::to_string(n);
    expect_scans(small_values({2, n}, float32, 4, -1, 1), what, {Op::Max, Op::Min, Op::LogAddExp});
    expect_scans(small_values({2, n}, int64, 5, -3, 3), what + " int64", {Op::Prod, Op::Max});
  }
  expect_scans(small_values({3000, 2}, uint8, 6, 0, 4), "3000 x 2 uint8",
               {Op::Prod, Op::Max, Op::Min});
  // cumprod of floats near 1 stays finite over long lines.
  expect_scans(small_values({1, 2500}, float32, 7, 0.999f, 1.001f), "2500 near 1", {Op::Prod});
}

// Axes longer than 65536 scan in blocks of 4096 on the GPU (each block,
// then the blocks' totals, combined back): the same results as the CPU's one
// pass, in both directions, inclusive and exclusive, NaN included.
TEST(Scans, LongAxesScanInBlocks) {
  // Integer-valued floats: the sums are exact in float32, so the blocks'
  // combination is checked bit for bit (a float32 sum of 70000 real values
  // differs from the CPU's double sum by its rounding, in either order).
  auto integers = [](const Shape& shape, Dtype dtype, uint64_t seed) {
    return astype(floor(small_values(shape, float32, seed, -2, 2), kCpu), dtype, kCpu);
  };
  expect_scans(integers({2, 70000}, float32, 8), "2 x 70000",
               {Op::Sum, Op::Max, Op::Min, Op::LogAddExp});
  expect_scans(integers({70000}, int32, 9), "70000 int32", {Op::Sum, Op::Max});
  expect_scans(integers({70000}, float16, 11), "70000 float16", {Op::Sum, Op::Min});
  // Products of +-1 are exact too.
  array signs = sign(small_values({1, 70001}, float32, 10, -1, 1), kCpu);
  expect_scans(signs, "70001 signs", {Op::Prod});
  expect_scans(astype(signs, int32, kCpu), "70001 int32 signs", {Op::Prod});
  array with_nan = where(equal(arange(70000), array(5000)), array(std::nanf("")),
                         integers({70000}, float32, 12), kCpu);
  expect_scans(with_nan, "70000 with NaN", {Op::Max, Op::Sum});
}

// Contiguous 32-bit lines whose length and start are multiples of 4 load
// and store runs of 4 as vectors on the GPU (scan.comp's RUNS), forward and
// reversed, over a tile of 4096 and a last tile of one run; the near
// misses take element loads: a start 1 past a run, a length of 4k + 2, 16-bit
// and 8-bit dtypes, a strided axis. Integer-valued floats keep float sums
// exact, so every sum compares bit for bit with the CPU's.
TEST(Scans, RunsOfFourAndTheirNearMisses) {
  auto integers = [](const Shape& shape, Dtype dtype, uint64_t seed) {
    return astype(floor(small_values(shape, float32, seed, -3, 3), kCpu), dtype, kCpu);
  };
  expect_scans(small_values({3, 4100}, int32, 20), "3 x 4100 int32");
  expect_scans(small_values({2, 2052}, uint32, 21, 0, 4), "2 x 2052 uint32");
  array floats = integers({2, 4100}, float32, 22);
  expect_scans(floats, "2 x 4100 float32", {Op::Sum, Op::Max, Op::Min, Op::Prod});
  expect_scans(small_values({2, 1028}, float32, 23, -1, 1), "2 x 1028 logaddexp", {Op::LogAddExp});
  // A NaN in the second tile of one line.
  array with_nan = where(equal(arange(8200), array(4098)), array(std::nanf("")),
                         integers({8200}, float32, 24), kCpu);
  expect_scans(reshape(with_nan, {2, 4100}), "NaN in a run", {Op::Sum, Op::Max, Op::Min});
  // Lines of one tile of 64 threads, the shortest that a workgroup scans,
  // and of one tile of 128 threads that the last 3 threads miss.
  expect_scans(small_values({5, 68}, int32, 25), "5 x 68 int32", {Op::Sum, Op::Max});
  expect_scans(small_values({2, 2000}, int32, 31), "2 x 2000 int32", {Op::Sum, Op::Min});

  // Contiguous lines that start 1 past a run (a view of a flat buffer).
  array flat = small_values({1 + 2 * 4100}, int32, 26);
  array off_by_one = reshape(slice(flat, {1}, {1 + 2 * 4100}), {2, 4100});
  expect_scans(off_by_one, "int32 starting at 1", {Op::Sum, Op::Min});
  expect_scans(small_values({3, 1030}, int32, 30), "int32 of 1030", {Op::Sum, Op::Prod});
  expect_scans(integers({2, 2048}, float16, 27), "2 x 2048 float16", {Op::Sum, Op::Max});
  expect_scans(greater(small_values({2, 2048}, float32, 28), array(0.0f), kCpu), "2 x 2048 bool",
               {Op::Sum, Op::Max});
  expect_scans(small_values({1028, 3}, int32, 29), "1028 x 3 int32", {Op::Sum});
}

TEST(Scans, NaNPropagatesAndInfinitiesStay) {
  const float nan = std::nanf(""), inf = INFINITY;
  for (Dtype dtype : {float32, float16, bfloat16}) {
    array a = astype(array({1.0f, -inf, 3.0f, nan, 2.0f, inf, -1.0f}, {7}), dtype, kCpu);
    expect_scans(a, std::string(dtype_name(dtype)) + " nan");
    auto m = values(cummax(a, 0, false, true, kCpu));
    EXPECT_EQ(m[2], 3.0);
    EXPECT_TRUE(std::isnan(m[3]) && std::isnan(m[6]));
  }
  // logcumsumexp of large values does not overflow; of -inf stays -inf.
  array big = array({1000.0f, 1000.0f, -inf}, {3});
  auto l = values(logcumsumexp(big, 0, false, true, kCpu));
  EXPECT_NEAR(l[1], 1000 + std::log(2.0), 1e-3);
  EXPECT_EQ(values(logcumsumexp(array({-inf, -inf}, {2}), 0, false, true, kCpu))[1], -INFINITY);
}

// IEEE on both devices: an infinity stays infinite through sums and
// products (the GPU's compensated sum once turned it into NaN), inf - inf
// and inf * 0 make NaN where they meet, NaN wins max and min; in every float
// dtype, direction and inclusiveness, on short lines (a thread each), lines
// of several tiles (a workgroup each) and axes scanned in blocks.
TEST(Scans, InfinitiesAndNaNFollowIEEE) {
  const double inf = INFINITY, nan = NAN;
  struct Case {
    Op op;
    std::vector<double> in;
    bool reverse, inclusive;
    std::vector<double> want;
  };
  const Case cases[] = {
      {Op::Sum, {1, inf, 2, 3}, false, true, {1, inf, inf, inf}},
      {Op::Sum, {1, inf, 2, 3}, true, true, {inf, inf, 5, 3}},
      {Op::Sum, {1, inf, 2, 3}, false, false, {0, 1, inf, inf}},
      {Op::Sum, {1, -inf, 2, -inf}, true, false, {-inf, -inf, -inf, 0}},
      {Op::Sum, {1, inf, -inf, 2}, false, true, {1, inf, nan, nan}},
      {Op::Prod, {2, inf, 0, 1}, false, true, {2, inf, nan, nan}},
      {Op::Prod, {-2, inf, 3}, false, true, {-2, -inf, -inf}},
      {Op::Prod, {-2, inf, 3}, true, false, {inf, 3, 1}},
      {Op::Max, {1, -inf, inf, 2, nan, 5}, false, true, {1, 1, inf, inf, nan, nan}},
      {Op::Min, {1, inf, -inf, 2, nan, 5}, false, true, {1, 1, -inf, -inf, nan, nan}},
      {Op::Min, {1, inf, -inf, 2, nan, 5}, true, false, {nan, nan, nan, nan, 5, inf}},
  };
  for (Dtype dtype : {float32, float16, bfloat16}) {
    for (const Case& c : cases) {
      const int n = static_cast<int>(c.in.size());
      array a = test_util::make_array(c.in, {n}, dtype);
      const std::string what = std::string(dtype_name(dtype)) + " " + op_name(c.op) +
                               (c.reverse ? " reverse" : "") + (c.inclusive ? "" : " exclusive");
      for (Device d : {kCpu, kGpu}) {
        if (d == kGpu && !gpu::is_available()) continue;
        expect_matches(values(run(c.op, a, 0, c.reverse, c.inclusive, d)), c.want, true, 0,
                       what + (d == kCpu ? " cpu" : " gpu"));
      }
    }
  }
  // Long lines: +inf in one tile or block, -inf (or a 0 for products, a NaN
  // for max and min) in a later one. Zeros elsewhere keep every sum exact.
  for (int n : {3000, 9000, 70001}) {
    const int p = n / 3, q = 2 * n / 3;
    for (Dtype dtype : {float32, float16, bfloat16}) {
      auto with = [&](double base, double first, double second) {
        std::vector<double> v(n, base);
        v[p] = first;
        v[q] = second;
        return test_util::make_array(v, {n}, dtype);
      };
      const std::string what = std::to_string(n) + " " + std::string(dtype_name(dtype));
      array sums = with(0, inf, -inf);
      expect_scans(sums, what + " inf then -inf", {Op::Sum, Op::Max, Op::Min, Op::LogAddExp});
      expect_scans(with(1, inf, 0), what + " inf then 0", {Op::Prod});
      expect_scans(with(1, -inf, nan), what + " -inf then NaN", {Op::Max, Op::Min});
      // By hand: 0 before p, inf from p, NaN from q (from the other end
      // reversed: -inf from q, NaN from p).
      std::vector<double> want(n), want_reverse(n);
      for (int i = 0; i < n; ++i) {
        want[i] = i < p ? 0 : (i < q ? inf : nan);
        want_reverse[i] = i > q ? 0 : (i > p ? -inf : nan);
      }
      if (!gpu::is_available()) continue;
      expect_matches(values(cumsum(sums, 0, false, true, kGpu)), want, true, 0, what + " gpu");
      expect_matches(values(cumsum(sums, 0, true, true, kGpu)), want_reverse, true, 0,
                     what + " gpu reverse");
    }
  }
}

TEST(Scans, FlattenedFormsAndDtypes) {
  array a = small_values({3, 4}, int32, 8);
  EXPECT_EQ(values(cumprod(a)), values(cumprod(flatten(a), 0)));
  EXPECT_EQ(values(cummax(a, true)), values(cummax(flatten(a), 0, true)));
  EXPECT_EQ(values(cummin(a, false, false)), values(cummin(flatten(a), 0, false, false)));
  EXPECT_EQ(values(logcumsumexp(a)), values(logcumsumexp(flatten(a), 0)));
  EXPECT_EQ(cumprod(array({true, false}, bool_)).dtype(), bool_);
  EXPECT_EQ(cummax(array({1, 2}, uint8)).dtype(), uint8);
  EXPECT_EQ(logcumsumexp(array({1, 2}, int32)).dtype(), float32);
  EXPECT_EQ(logcumsumexp(array({1, 2}, float16)).dtype(), float16);
}

TEST(Scans, Gradients) {
  using mlx_lite::test::check_grads;
  array x = random::normal({3, 6}, float32, 0, 1, random::key(9), kCpu);
  // Values away from 0 for cumprod's regular path, with zeros for its
  // first-zero path, and distinct values for cummax/cummin (ties in a
  // separate exact check).
  array with_zeros =
      array({0.5f, 0.0f, 2.0f, -1.5f, 0.0f, 3.0f, 1.2f, -0.7f, 1.1f, 0.0f, 0.9f, 2.0f}, {2, 6});
  for (int axis : {1, 0, -1}) {
    for (bool reverse : {false, true}) {
      for (bool inclusive : {true, false}) {
        for (Op op : {Op::Prod, Op::Max, Op::Min, Op::LogAddExp, Op::Sum}) {
          // An exclusive max, min or logaddexp starts at an infinity, where
          // finite differences are NaN: those are checked exactly below.
          if (!inclusive && op != Op::Prod && op != Op::Sum) continue;
          auto f = [=](const std::vector<array>& in) {
            return std::vector<array>{run(op, in[0], axis, reverse, inclusive, {})};
          };
          EXPECT_TRUE(check_grads(f, {x}))
              << op_name(op) << " axis " << axis << reverse << inclusive;
          if (op == Op::Prod) {
            EXPECT_TRUE(check_grads(f, {with_zeros}))
                << "cumprod with zeros axis " << axis << reverse << inclusive;
          }
        }
      }
    }
  }
  // cummax routes each output's cotangent to the latest position holding
  // the running maximum.
  array t = array({1.0f, 3.0f, 2.0f, 3.0f, 0.0f}, {5});
  auto g = vjp([](const std::vector<array>& in) { return std::vector<array>{cummax(in[0])}; }, {t},
               {array({1.0f, 10.0f, 100.0f, 1000.0f, 10000.0f}, {5})});
  EXPECT_EQ(values(g.second[0]), (std::vector<double>{1, 110, 0, 11000, 0}));
  // Exclusive: out = (-inf, 1, 3); out_0 has no source.
  auto ge = vjp(
      [](const std::vector<array>& in) { return std::vector<array>{cummax(in[0], false, false)}; },
      {array({1.0f, 3.0f, 2.0f}, {3})}, {array({1.0f, 10.0f, 100.0f}, {3})});
  EXPECT_EQ(values(ge.second[0]), (std::vector<double>{10, 100, 0}));
  auto gm = vjp(
      [](const std::vector<array>& in) { return std::vector<array>{cummin(in[0], true, false)}; },
      {array({1.0f, 3.0f, 2.0f}, {3})}, {array({1.0f, 10.0f, 100.0f}, {3})});
  // Reverse exclusive min: out = (2, 2, +inf), both from position 2.
  EXPECT_EQ(values(gm.second[0]), (std::vector<double>{0, 0, 11}));
  // logcumsumexp exclusive: out_1 = x_0, out_2 = log(e^x0 + e^x1).
  auto gl = vjp(
      [](const std::vector<array>& in) {
        return std::vector<array>{logcumsumexp(in[0], false, false)};
      },
      {array({0.0f, 0.0f, 5.0f}, {3})}, {array({1.0f, 1.0f, 1.0f}, {3})});
  auto glv = values(gl.second[0]);
  EXPECT_NEAR(glv[0], 1.5, 1e-6);
  EXPECT_NEAR(glv[1], 0.5, 1e-6);
  EXPECT_NEAR(glv[2], 0.0, 1e-6);
  // cumprod through a zero: d/dx of prod(x) at x = (2, 0, 3) is (0, 6, 0).
  auto gp = grad([](const array& in) { return sum(cumprod(in, 0, false, true)); })(
      array({2.0f, 0.0f, 3.0f}, {3}));
  EXPECT_EQ(values(gp), (std::vector<double>{1, 2 + 6, 0}));
}

TEST(Scans, Errors) {
  array a = small_values({3, 4}, float32, 10);
  for (Op op : kOps) {
    const std::string msg = error_of([&] { run(op, a, 2, false, true, {}); });
    EXPECT_EQ(msg.rfind(std::string("[") + op_name(op) + "]", 0), 0u) << msg;
    EXPECT_THROW(run(op, a, -3, false, true, {}), std::invalid_argument);
  }
}

}  // namespace
