// MLX's remaining binary ops (issue 14): arctan2, logaddexp, floor_divide,
// remainder, divmod, bitwise_xor, left_shift, right_shift and the operators
// % ^ << >>. Each is checked on both devices against an independent
// reference (double-precision <cmath>, or 64-bit integer arithmetic with
// Python's and numpy's rules) in every dtype it takes, on hand-computed edge
// values (NaN, +-inf, +-0, negative operands, division by zero, INT_MIN / -1,
// shift counts out of range), broadcasting, empty and non-contiguous inputs,
// GPU against CPU bit for bit where the results are exact, and the
// differentiable ones with check_grads.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>

#include "mlx_lite/gpu.h"
#include "mlx_lite/testing.h"
#include "tests/test_util.h"

using namespace mlx_lite;
using namespace test_util;
using mlx_lite::test::check_grads;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kPi = std::numbers::pi;
constexpr int32_t kIntMin = std::numeric_limits<int32_t>::min();
constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();

const Device kCpu(Device::cpu);
const Device kGpu(Device::gpu);

using BinaryFn = array (*)(const array&, const array&, StreamOrDevice);

// ---- References, independent of the kernels: doubles for floats, int64 for
// integers (then wrapped to the dtype).

// Python's // on integers (0 for a zero divisor, this library's definition).
int64_t floor_div_ref(int64_t a, int64_t b) {
  if (b == 0) return 0;
  if (b == -1) return static_cast<int64_t>(0 - static_cast<uint64_t>(a));  // wraps at the minimum
  int64_t q = a / b;
  if (q * b != a && ((a < 0) != (b < 0))) --q;
  return q;
}

int64_t remainder_ref(int64_t a, int64_t b) {
  if (b == 0 || b == -1) return 0;
  // q * b can pass INT64_MIN when a is near it (the remainder itself fits):
  // computed modulo 2^64, which a signed product must not overflow.
  const uint64_t q = static_cast<uint64_t>(floor_div_ref(a, b));
  return static_cast<int64_t>(static_cast<uint64_t>(a) - q * static_cast<uint64_t>(b));
}

// Python's float %: fmod, moved to the sign of b; a zero takes b's sign.
double remainder_float_ref(double a, double b) {
  double r = std::fmod(a, b);
  if (r == 0) return std::copysign(0.0, b);
  if ((r < 0) != (b < 0)) r += b;
  return r;
}

double logaddexp_ref(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return kNaN;
  const double hi = std::max(a, b), lo = std::min(a, b);
  if (hi == kInf || lo == -kInf) return hi;
  return hi + std::log1p(std::exp(lo - hi));
}

// numpy's shifts of a `bits`-wide value: counts outside [0, bits) give 0
// (or -1 for a right shift of a negative value).
int64_t left_shift_ref(int64_t a, int64_t b, int bits) {
  if (b < 0 || b >= bits) return 0;
  return static_cast<int64_t>(static_cast<uint64_t>(a) << b);
}
int64_t right_shift_ref(int64_t a, int64_t b, int bits) {
  if (b < 0 || b >= bits) return a < 0 ? -1 : 0;
  return a >> b;
}

int bits_of(Dtype dt) {
  return 8 * size_of(dt);
}

// ---- Operand pairs in every layout.

struct Pair {
  std::string name;
  array a, b;
  std::vector<double> av, bv;  // logical row-major values
};

// a and b of dtype dt, shape (r, c): a in one layout and b in another (or a
// broadcast row), their values from ga and gb.
std::vector<Pair> pairs(Dtype dt, int r, int c, const std::function<double(int)>& ga,
                        const std::function<double(int)>& gb) {
  auto la = layouts(dt, r, c, ga), lb = layouts(dt, r, c, gb);
  std::vector<Pair> out;
  for (size_t i = 0; i < la.size(); ++i) {
    const auto& b = lb[(i + 1) % lb.size()];
    out.push_back({la[i].name + "/" + b.name, la[i].a, b.a, la[i].vals, b.vals});
  }
  // A (1, c) row broadcast against a full (r, c).
  std::vector<double> row(c), rows(static_cast<size_t>(r) * c);
  for (int j = 0; j < c; ++j) row[j] = stored(gb(j), dt);
  for (int i = 0; i < r * c; ++i) rows[i] = row[i % c];
  out.push_back({"broadcast_row", la[0].a, make_array(row, {1, c}, dt), la[0].vals, rows});
  return out;
}

struct BinaryCase {
  std::string name;
  BinaryFn op;
  std::vector<Dtype> dtypes;
  std::function<double(int, Dtype)> ga, gb;          // operand values (before storing in the dtype)
  std::function<double(double, double, Dtype)> ref;  // in the result dtype's compute precision
  double tol_scale;                                  // of the dtype's tolerance (0: exact)
};

const std::vector<Dtype> kIntegers = {uint8, uint32, int32, int64};
const std::vector<Dtype> kNumeric = {uint8, uint32, int32, int64, float16, bfloat16, float32};
const std::vector<Dtype> kAllDtypes(std::begin(all_dtypes), std::end(all_dtypes));

double signed_spread(int i, Dtype dt, double lo, double hi) {
  double v = lo + (hi - lo) * ((i * 37) % 101) / 100.0;
  if (!is_floating_point(dt)) v = std::floor(v);
  if (is_unsigned(dt)) v = std::fabs(v);
  if (dt == uint8) v = std::fmod(v, 256);
  if (dt == bool_) v = (i % 3) != 0;
  return v;
}

// The float result the kernels compute for a float dtype: in float32, then
// stored in the dtype (float64 computes in double).
double float_result(double v, Dtype dt) {
  return dt == float64 ? v : stored(static_cast<float>(v), dt);
}

std::vector<BinaryCase> cases() {
  return {
      {"arctan2", arctan2, kAllDtypes, [](int i, Dtype dt) { return signed_spread(i, dt, -9, 9); },
       [](int i, Dtype dt) { return signed_spread(i * 3 + 1, dt, -9, 9); },
       [](double a, double b, Dtype) { return std::atan2(a, b); }, 2},
      {"logaddexp", logaddexp, kAllDtypes,
       [](int i, Dtype dt) { return signed_spread(i, dt, -30, 30); },
       [](int i, Dtype dt) { return signed_spread(i * 3 + 1, dt, -30, 30); },
       [](double a, double b, Dtype) { return logaddexp_ref(a, b); }, 2},
      {"floor_divide", floor_divide, kAllDtypes,
       [](int i, Dtype dt) { return signed_spread(i, dt, -40, 40); },
       [](int i, Dtype dt) {
         double v = signed_spread(i * 3 + 1, dt, -7, 7);
         return is_floating_point(dt) && v == 0 ? 0.5 : v;  // integers keep their zeros
       },
       [](double a, double b, Dtype dt) {
         if (dt == float64) return std::floor(a / b);
         if (is_floating_point(dt)) return float_result(std::floor(static_cast<float>(a / b)), dt);
         return wrap(
             static_cast<double>(floor_div_ref(static_cast<int64_t>(a), static_cast<int64_t>(b))),
             dt);
       },
       0},
      {"remainder", remainder, kAllDtypes,
       [](int i, Dtype dt) { return signed_spread(i, dt, -40, 40); },
       [](int i, Dtype dt) {
         double v = signed_spread(i * 3 + 1, dt, -7, 7);
         return is_floating_point(dt) && v == 0 ? -1.25 : v;
       },
       [](double a, double b, Dtype dt) {
         if (is_floating_point(dt)) return float_result(remainder_float_ref(a, b), dt);
         return wrap(
             static_cast<double>(remainder_ref(static_cast<int64_t>(a), static_cast<int64_t>(b))),
             dt);
       },
       0},
      {"bitwise_xor",
       bitwise_xor,
       {bool_, uint8, uint32, int32, int64},
       [](int i, Dtype dt) { return signed_spread(i, dt, -300, 300); },
       [](int i, Dtype dt) { return signed_spread(i * 3 + 1, dt, -300, 300); },
       [](double a, double b, Dtype dt) {
         return wrap(static_cast<double>(static_cast<int64_t>(a) ^ static_cast<int64_t>(b)), dt);
       },
       0},
      {"left_shift", left_shift, kIntegers,
       [](int i, Dtype dt) { return signed_spread(i, dt, -300, 300); },
       [](int i, Dtype dt) { return signed_spread(i * 3 + 1, dt, -4, 70); },
       [](double a, double b, Dtype dt) {
         return wrap(static_cast<double>(left_shift_ref(static_cast<int64_t>(a),
                                                        static_cast<int64_t>(b), bits_of(dt))),
                     dt);
       },
       0},
      {"right_shift", right_shift, kIntegers,
       [](int i, Dtype dt) { return signed_spread(i, dt, -3000, 3000); },
       [](int i, Dtype dt) { return signed_spread(i * 3 + 1, dt, -4, 70); },
       [](double a, double b, Dtype dt) {
         return wrap(static_cast<double>(right_shift_ref(static_cast<int64_t>(a),
                                                         static_cast<int64_t>(b), bits_of(dt))),
                     dt);
       },
       0},
  };
}

void PrintTo(const BinaryCase& c, std::ostream* os) {
  *os << c.name;
}

Dtype result_dtype(const std::string& name, Dtype dt) {
  if (name == "arctan2" || name == "logaddexp") return is_floating_point(dt) ? dt : float32;
  return dt;
}

class MlxBinary : public ::testing::TestWithParam<BinaryCase> {};

TEST_P(MlxBinary, MatchesReferenceEveryDtypeLayoutAndDevice) {
  const auto& c = GetParam();
  for (const Device& dev : devices()) {
    for (Dtype dt : c.dtypes) {
      if (!test_util::runs_on(dt, dev)) continue;
      const Dtype od = result_dtype(c.name, dt);
      for (auto [r, cols] : test_shapes()) {
        auto ga = [&](int i) { return c.ga(i, dt); };
        auto gb = [&](int i) { return c.gb(i, dt); };
        for (auto& p : pairs(dt, r, cols, ga, gb)) {
          const auto what = c.name + " " + device_name(dev) + " " + describe(dt, p.name, r, cols);
          array out = c.op(p.a, p.b, dev);
          ASSERT_EQ(out.dtype(), od) << what;
          ASSERT_EQ(out.shape(), (Shape{r, cols})) << what;
          std::vector<double> want;
          for (size_t i = 0; i < p.av.size(); ++i) want.push_back(c.ref(p.av[i], p.bv[i], od));
          expect_values(out, want, c.tol_scale * tolerance(od), what);
        }
      }
    }
  }
}

// The GPU against the CPU on wider, random operands: bit for bit for the
// exact ops (integers, floor_divide and remainder, whose float fmod is exact).
TEST_P(MlxBinary, GpuMatchesCpu) {
  if (!gpu::is_available()) GTEST_SKIP() << "no Vulkan device";
  const auto& c = GetParam();
  for (Dtype dt : c.dtypes) {
    if (!test_util::runs_on(dt, kGpu)) continue;
    std::vector<double> av, bv;
    for (int i = 0; i < 4096; ++i) {
      av.push_back(c.ga(i * 13 + 5, dt) * (is_floating_point(dt) ? std::pow(2.0, i % 40 - 20) : 1));
      bv.push_back(c.gb(i * 7 + 3, dt) * (is_floating_point(dt) ? std::pow(2.0, i % 23 - 11) : 1));
    }
    array a = make_array(av, {64, 64}, dt), b = make_array(bv, {64, 64}, dt);
    for (auto [x, y] : {std::pair{a, b}, std::pair{transpose(a), b}}) {
      array want = c.op(x, y, kCpu), got = c.op(x, y, kGpu);
      const double rtol = c.tol_scale * tolerance(want.dtype());
      EXPECT_TRUE(test::allclose(got, want, rtol, rtol == 0 ? 0 : 1e-6, true))
          << c.name << " " << dtype_name(dt);
    }
  }
}

TEST_P(MlxBinary, EmptyScalarAndBroadcastShapes) {
  const auto& c = GetParam();
  const Dtype dt = c.dtypes.back();
  for (const Device& dev : devices()) {
    array e = c.op(zeros({0, 3}, dt), ones({3}, dt), dev);
    eval(e);
    EXPECT_EQ(e.shape(), (Shape{0, 3})) << c.name;
    EXPECT_EQ(c.op(zeros({2, 1}, dt), ones({1, 5}, dt), dev).shape(), (Shape{2, 5})) << c.name;
    EXPECT_EQ(c.op(astype(array(3), dt), astype(array(1), dt), dev).ndim(), 0) << c.name;
    auto msg = error_of([&] { c.op(zeros({2, 3}, dt), zeros({4}, dt), dev); });
    EXPECT_NE(msg.find(c.name), std::string::npos) << msg;
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, MlxBinary, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.name; });

// op(a[i], b[i]) of float32 operands on each device against hand-computed
// values; zeros and infinities exactly, with their signs.
void expect_float_edges(const std::string& name, BinaryFn op, const std::vector<float>& a,
                        const std::vector<float>& b, const std::vector<double>& want,
                        double rel = 2.5e-7) {
  const int n = static_cast<int>(a.size());
  for (const Device& dev : devices()) {
    auto got =
        values_as<float>(op(array(a.begin(), {n}, float32), array(b.begin(), {n}, float32), dev));
    for (int i = 0; i < n; ++i) {
      const std::string what = name + "(" + std::to_string(a[i]) + ", " + std::to_string(b[i]) +
                               ") on " + device_name(dev);
      if (std::isnan(want[i])) {
        EXPECT_TRUE(std::isnan(got[i])) << what << " is " << got[i];
      } else if (want[i] == 0 || std::isinf(want[i])) {
        EXPECT_EQ(got[i], want[i]) << what;
        EXPECT_EQ(std::signbit(got[i]), std::signbit(want[i])) << what << ": sign";
      } else {
        EXPECT_NEAR(got[i], want[i], rel * std::fabs(want[i])) << what;
      }
    }
  }
}

// Integer results of op on dtype dt, on each device.
void expect_int_edges(const std::string& name, BinaryFn op, Dtype dt, const std::vector<int64_t>& a,
                      const std::vector<int64_t>& b, const std::vector<int64_t>& want) {
  const int n = static_cast<int>(a.size());
  for (const Device& dev : devices()) {
    array out =
        op(astype(array(a.begin(), {n}, int64), dt), astype(array(b.begin(), {n}, int64), dt), dev);
    ASSERT_EQ(out.dtype(), dt) << name;
    auto got = values_as<int64_t>(astype(out, int64));
    for (int i = 0; i < n; ++i) {
      EXPECT_EQ(got[i], want[i]) << name << "(" << a[i] << ", " << b[i] << ") as " << dtype_name(dt)
                                 << " on " << device_name(dev);
    }
  }
}

TEST(MlxBinaryEdges, FloorDivideFloorsNegativeIntegersAndDefinesDivisionByZero) {
  for (Dtype dt : {int32, int64}) {
    expect_int_edges("floor_divide", floor_divide, dt, {-7, 7, -7, 7, -6, 5, 0, -5, 1},
                     {2, -2, -2, 2, 3, 0, -3, 0, -1}, {-4, -4, 3, 3, -2, 0, 0, 0, -1});
  }
  expect_int_edges("floor_divide", floor_divide, int32, {kIntMin, kIntMin, kIntMin}, {-1, 1, 2},
                   {kIntMin, kIntMin, kIntMin / 2});
  expect_int_edges("floor_divide", floor_divide, int64, {kInt64Min, kInt64Min}, {-1, 1},
                   {kInt64Min, kInt64Min});
  expect_int_edges("floor_divide", floor_divide, uint32, {7, 5, 4294967295}, {2, 0, 2},
                   {3, 0, 2147483647});
  expect_int_edges("floor_divide", floor_divide, uint8, {255, 9, 3}, {2, 0, 4}, {127, 0, 0});
  // Floats: floor(a / b), with IEEE's division by zero.
  expect_float_edges("floor_divide", floor_divide, {-7, 7.5f, -0.5f, 1, -1, 0, NAN, INFINITY},
                     {2, -2, 3, 0, 0, 0, 1, 2}, {-4, -4, -1, kInf, -kInf, kNaN, kNaN, kInf});
  // bool // bool: x // 0 is 0, x // 1 is x.
  for (const Device& dev : devices()) {
    array q = floor_divide(array({true, true, false}), array({true, false, true}), dev);
    EXPECT_EQ(q.dtype(), bool_);
    EXPECT_EQ(values(q), (std::vector<double>{1, 0, 0}));
  }
}

TEST(MlxBinaryEdges, RemainderTakesTheSignOfTheDivisor) {
  for (Dtype dt : {int32, int64}) {
    expect_int_edges("remainder", remainder, dt, {-7, 7, -7, 7, -6, 5, 0, kIntMin},
                     {2, -2, -2, 2, 3, 0, -3, -1}, {1, -1, -1, 1, 0, 0, 0, 0});
  }
  expect_int_edges("remainder", remainder, int64, {kInt64Min, kInt64Min}, {-1, 3},
                   {0, remainder_ref(kInt64Min, 3)});
  expect_int_edges("remainder", remainder, uint32, {7, 5, 4294967295}, {2, 0, 10}, {1, 0, 5});
  expect_int_edges("remainder", remainder, uint8, {255, 9}, {7, 0}, {3, 0});
  // Floats: Python's %, zero results with the divisor's sign; fmod is exact,
  // so remainder(1e30, 3) is 1e30's exact remainder, not 0.
  expect_float_edges(
      "remainder", remainder,
      {7.5f, -7.5f, 5, INFINITY, -1, 1, -0.0f, 4, -4, 1e30f, 2, NAN, -1e30f},
      {-2, 2, 0, 2, INFINITY, INFINITY, 2, -2, 2, 3, 0.3f, 1, 7},
      {-0.5, 0.5, kNaN, kNaN, kInf, 1, 0.0, -0.0, 0.0, std::fmod(1e30f, 3.0),
       std::fmod(2.0, static_cast<double>(0.3f)), kNaN, remainder_float_ref(-1e30f, 7)});
}

TEST(MlxBinaryEdges, DivmodIsFloorDivideAndRemainder) {
  for (const Device& dev : devices()) {
    for (Dtype dt : {int32, int64, uint8, float32, float16}) {
      const bool un = is_unsigned(dt);
      array a = astype(un ? array({7, 7, 9, 9, 100, 3}) : array({-7, 7, 9, -9, 100, 3}), dt);
      array b = astype(un ? array({2, 3, 4, 4, 7, 5}) : array({2, -3, 4, -4, 7, 5}), dt);
      auto qr = divmod(a, b, dev);
      ASSERT_EQ(qr.size(), 2u);
      EXPECT_EQ(qr[0].dtype(), dt);
      EXPECT_EQ(qr[1].dtype(), dt);
      EXPECT_EQ(values(qr[0]), values(floor_divide(a, b, kCpu))) << dtype_name(dt);
      EXPECT_EQ(values(qr[1]), values(remainder(a, b, kCpu))) << dtype_name(dt);
      // a == q * b + r exactly (small integers in every dtype).
      EXPECT_EQ(values(add(multiply(qr[0], b, kCpu), qr[1], kCpu)), values(a)) << dtype_name(dt);
    }
  }
}

TEST(MlxBinaryEdges, Arctan2ZerosAndInfinities) {
  const float inf = INFINITY, nan = NAN;
  expect_float_edges("arctan2", arctan2, {0,    -0.0f, 0, -0.0f, 1,   -1,  0, -0.0f, inf, inf, -inf,
                                          -inf, 1,     1, -1,    inf, nan, 1, 1e30f, 3,   -3},
                     {0,    0,   -0.0f, -0.0f, 0, 0, -1,  -1,     inf, -inf, inf,
                      -inf, inf, -inf,  -inf,  1, 1, nan, 1e-30f, -4,  -4},
                     {0,
                      -0.0,
                      kPi,
                      -kPi,
                      kPi / 2,
                      -kPi / 2,
                      kPi,
                      -kPi,
                      kPi / 4,
                      3 * kPi / 4,
                      -kPi / 4,
                      -3 * kPi / 4,
                      0,
                      kPi,
                      -kPi,
                      kPi / 2,
                      kNaN,
                      kNaN,
                      kPi / 2,
                      std::atan2(3.0, -4.0),
                      std::atan2(-3.0, -4.0)});
  EXPECT_EQ(arctan2(array(1), array(2)).dtype(), float32);
  EXPECT_EQ(arctan2(array(1.0f, float16), array(2.0f, bfloat16)).dtype(), float32);
}

TEST(MlxBinaryEdges, LogaddexpInfinitiesAndLargeValues) {
  const float inf = INFINITY, nan = NAN;
  const double ln2 = std::numbers::ln2;
  expect_float_edges("logaddexp", logaddexp,
                     {-inf, inf, inf, -inf, nan, 1, 0, 1000, -1000, 100, -0.5f, 88.7f},
                     {-inf, inf, -inf, 3, 1, nan, 0, 1000, -1000, -100, 20, 88.7f},
                     {-kInf, kInf, kInf, 3, kNaN, kNaN, ln2, 1000 + ln2, -1000 + ln2, 100,
                      logaddexp_ref(-0.5, 20), 88.7f + ln2});
  EXPECT_EQ(logaddexp(array(1), array(true)).dtype(), float32);
}

TEST(MlxBinaryEdges, ShiftsDefineOutOfRangeCounts) {
  expect_int_edges("left_shift", left_shift, int32, {1, 1, 1, -1, 3, 5}, {31, 32, -1, 4, 0, 100},
                   {kIntMin, 0, 0, -16, 3, 0});
  expect_int_edges("right_shift", right_shift, int32, {-16, -16, 16, -16, kIntMin, 7},
                   {2, 40, 40, -1, 31, 0}, {-4, -1, 0, -1, -1, 7});
  expect_int_edges("left_shift", left_shift, int64, {1, 1, 3}, {63, 64, 40},
                   {kInt64Min, 0, int64_t{3} << 40});
  expect_int_edges("right_shift", right_shift, int64, {kInt64Min, -1, int64_t{1} << 40},
                   {63, 64, 40}, {-1, -1, 1});
  expect_int_edges("left_shift", left_shift, uint8, {1, 1, 255, 3}, {7, 8, 4, 200},
                   {128, 0, 240, 0});
  expect_int_edges("right_shift", right_shift, uint8, {255, 128, 200}, {7, 8, 2}, {1, 0, 50});
  expect_int_edges("left_shift", left_shift, uint32, {1, 1, 0xffffffff}, {31, 32, 16},
                   {2147483648, 0, 0xffff0000});
  expect_int_edges("right_shift", right_shift, uint32, {0xffffffff, 0xffffffff}, {31, 32}, {1, 0});
  // bool operands shift as uint8, as in MLX.
  for (const Device& dev : devices()) {
    array l = left_shift(array({true, true}), array({true, false}), dev);
    EXPECT_EQ(l.dtype(), uint8);
    EXPECT_EQ(values(l), (std::vector<double>{2, 1}));
    array r = right_shift(array({true}), array(2, int32), dev);
    EXPECT_EQ(r.dtype(), int32);
    EXPECT_EQ(values(r), (std::vector<double>{0}));
  }
}

TEST(MlxBinaryEdges, BitwiseXor) {
  expect_int_edges("bitwise_xor", bitwise_xor, int32, {5, -1, kIntMin}, {3, 7, -1},
                   {6, -8, std::numeric_limits<int32_t>::max()});
  expect_int_edges("bitwise_xor", bitwise_xor, uint8, {255, 15}, {15, 15}, {240, 0});
  for (const Device& dev : devices()) {
    array x =
        bitwise_xor(array({true, true, false, false}), array({true, false, true, false}), dev);
    EXPECT_EQ(x.dtype(), bool_);
    EXPECT_EQ(values(x), (std::vector<double>{0, 1, 1, 0}));
  }
  EXPECT_EQ(bitwise_xor(array(1, uint32), array(1, int32)).dtype(), int64);
}

TEST(MlxBinaryEdges, Operators) {
  array a = array({-7, 7, 12}), b = array({2, -2, 5});
  EXPECT_EQ(values(a % b), (std::vector<double>{1, -1, 2}));
  EXPECT_EQ(values(a % 4), (std::vector<double>{1, 3, 0}));
  EXPECT_EQ(values(15 % b), (std::vector<double>{1, -1, 0}));
  EXPECT_EQ(values(a ^ b), (std::vector<double>{-7 ^ 2, 7 ^ -2, 12 ^ 5}));
  EXPECT_EQ(values(a ^ 1), (std::vector<double>{-8, 6, 13}));
  EXPECT_EQ(values(array({1, 2}) << array({3, 1})), (std::vector<double>{8, 4}));
  EXPECT_EQ(values(array({-16, 16}) >> array({2, 2})), (std::vector<double>{-4, 4}));
  EXPECT_EQ(values(array({5.5f}) % 2.0f), (std::vector<double>{1.5}));
}

TEST(MlxBinaryEdges, WrongDtypesThrowNamingTheOpAndDtypes) {
  for (auto [name, op] :
       std::vector<std::pair<std::string, BinaryFn>>{{"left_shift", left_shift},
                                                     {"right_shift", right_shift},
                                                     {"bitwise_xor", bitwise_xor}}) {
    for (Dtype dt : {float32, float16, bfloat16}) {
      auto msg = error_of<std::runtime_error>([&] { op(zeros({2}, dt), array({1, 2}), {}); });
      EXPECT_NE(msg.find("[" + name + "]"), std::string::npos) << msg;
      EXPECT_NE(msg.find(std::string(dtype_name(dt))), std::string::npos) << msg;
    }
  }
  EXPECT_NE(error_of<std::runtime_error>([] { array(1.5f) << array(1); }).find("[left_shift]"),
            std::string::npos);
}

// ---- Gradients.

class MlxBinaryGrads : public ::testing::TestWithParam<Device::DeviceType> {
 protected:
  void SetUp() override {
    if (GetParam() == Device::gpu && !gpu::is_available()) GTEST_SKIP() << "no Vulkan device";
    saved_ = default_device();
    set_default_device(Device(GetParam()));
  }
  void TearDown() override { set_default_device(saved_); }

 private:
  Device saved_{Device::cpu};
};

INSTANTIATE_TEST_SUITE_P(Devices, MlxBinaryGrads, ::testing::Values(Device::cpu, Device::gpu),
                         [](const auto& info) {
                           return std::string(info.param == Device::cpu ? "cpu" : "gpu");
                         });

array uniform(const Shape& shape, uint64_t seed, float lo, float hi) {
  array a = random::uniform(lo, hi, shape, float32, random::key(seed), kCpu);
  eval(a);
  return a;
}

using Fn = std::function<std::vector<array>(const std::vector<array>&)>;

TEST_P(MlxBinaryGrads, Arctan2BothArguments) {
  Fn f = [](const std::vector<array>& in) { return std::vector<array>{arctan2(in[0], in[1])}; };
  // All four quadrants, away from the branch cut on the negative x axis.
  array y = array({0.5f, -0.7f, 1.2f, -0.4f, 0.9f, 2.0f}, {2, 3});
  array x = array({1.1f, 0.8f, -0.6f, 1.5f, -2.0f, 0.3f}, {2, 3});
  EXPECT_TRUE(check_grads(f, {y, x}, 2));
  // Broadcast operands: the gradient of the broadcast one is summed.
  EXPECT_TRUE(check_grads(f, {y, array(1.3f)}, 1));
  // Hand-computed at (1, 1): d/dy = x / (x^2 + y^2) = 0.5, d/dx = -0.5.
  auto g = grad([](const std::vector<array>& in) { return arctan2(in[0], in[1]); },
                std::vector<int>{0, 1})({array(1.0f), array(1.0f)});
  EXPECT_FLOAT_EQ(g[0].item<float>(), 0.5f);
  EXPECT_FLOAT_EQ(g[1].item<float>(), -0.5f);
}

TEST_P(MlxBinaryGrads, LogaddexpBothArguments) {
  Fn f = [](const std::vector<array>& in) { return std::vector<array>{logaddexp(in[0], in[1])}; };
  EXPECT_TRUE(check_grads(f, {uniform({3, 4}, 1, -3, 3), uniform({3, 4}, 2, -3, 3)}, 2));
  // At a == b each operand gets half.
  auto g = grad([](const std::vector<array>& in) { return logaddexp(in[0], in[1]); },
                std::vector<int>{0, 1})({array(2.0f), array(2.0f)});
  EXPECT_FLOAT_EQ(g[0].item<float>(), 0.5f);
  EXPECT_FLOAT_EQ(g[1].item<float>(), 0.5f);
}

TEST_P(MlxBinaryGrads, RemainderAndFloorDivide) {
  // Away from the jumps of remainder (a / b not near an integer).
  array a = array({2.3f, -3.4f, 5.7f, -1.2f, 7.6f, 0.4f});
  array b = array({1.5f, 1.5f, -2.5f, -2.5f, 3.5f, 1.5f});
  Fn rem = [](const std::vector<array>& in) { return std::vector<array>{remainder(in[0], in[1])}; };
  EXPECT_TRUE(check_grads(rem, {a, b}, 1, 1e-3));
  // Exact: d/da = 1, d/db = -floor(a / b).
  auto g = grad([](const std::vector<array>& in) { return sum(remainder(in[0], in[1])); },
                std::vector<int>{0, 1})({a, b});
  EXPECT_EQ(values(g[0]), (std::vector<double>{1, 1, 1, 1, 1, 1}));
  EXPECT_EQ(values(g[1]), (std::vector<double>{-1, 3, 3, -0.0, -2, -0.0}));
  // floor_divide is piecewise constant: zero for both operands.
  auto z = grad([](const std::vector<array>& in) { return sum(floor_divide(in[0], in[1])); },
                std::vector<int>{0, 1})({a, b});
  EXPECT_EQ(values(z[0]), (std::vector<double>(6, 0)));
  EXPECT_EQ(values(z[1]), (std::vector<double>(6, 0)));
  auto [out, tangent] = jvp([](const array& v) { return floor_divide(v, array(2.0f)); },
                            array({3.0f}), array({1.0f}));
  EXPECT_EQ(values(tangent), (std::vector<double>{0}));
}

TEST_P(MlxBinaryGrads, IntegerOpsGiveZeroGradients) {
  array x = array({1.0f, 2.0f, 3.0f});
  auto g = grad([](const array& v) {
    array i = astype(v, int32);
    array bits =
        astype(bitwise_xor(i, left_shift(i, array(1)), {}) + right_shift(i, array(1)), float32);
    return sum(bits * v);
  })(x);
  // Only the outer multiply carries a gradient: d/dv (c v) = c.
  array i = array({1, 2, 3});
  EXPECT_EQ(
      values(g),
      values(astype(bitwise_xor(i, left_shift(i, array(1))) + right_shift(i, array(1)), float32)));
}

}  // namespace
