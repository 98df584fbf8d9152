// Binary elementwise ops and their operators, against double-precision
// references computed here, on every dtype, on strided, transposed,
// negative-step and broadcast inputs, with MLX's type promotion.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "tests/test_util.h"

using namespace mlx_lite;
using namespace test_util;

namespace {

const std::vector<Dtype> kAll = test_util::default_device_dtypes();
const std::vector<Dtype> kNumeric = {uint8, uint16, uint32,  uint64,   int8,   int16,
                                     int32, int64,  float16, bfloat16, float32};
const std::vector<Dtype> kIntegerAndBool = {bool_, uint8, uint16, uint32, uint64,
                                            int8,  int16, int32,  int64};

// MLX's promotion table written out independently of dtype.cpp, one row per
// dtype, entries in the order of `names` (JAX's lattice: mixed signedness
// widens, uint64 with a signed type is float32, float64 wins, f16 + bf16 is
// float32).
Dtype mlx_promote(Dtype a, Dtype b) {
  const std::vector<Dtype> names = {bool_, uint8, uint16,  uint32,  uint64,  int8,    int16,
                                    int32, int64, float16, float32, float64, bfloat16};
  const char* rows[13][13] = {
      {"b", "u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64", "f16", "f32", "f64", "bf"},
      {"u8", "u8", "u16", "u32", "u64", "i16", "i16", "i32", "i64", "f16", "f32", "f64", "bf"},
      {"u16", "u16", "u16", "u32", "u64", "i32", "i32", "i32", "i64", "f16", "f32", "f64", "bf"},
      {"u32", "u32", "u32", "u32", "u64", "i64", "i64", "i64", "i64", "f16", "f32", "f64", "bf"},
      {"u64", "u64", "u64", "u64", "u64", "f32", "f32", "f32", "f32", "f16", "f32", "f64", "bf"},
      {"i8", "i16", "i32", "i64", "f32", "i8", "i16", "i32", "i64", "f16", "f32", "f64", "bf"},
      {"i16", "i16", "i32", "i64", "f32", "i16", "i16", "i32", "i64", "f16", "f32", "f64", "bf"},
      {"i32", "i32", "i32", "i64", "f32", "i32", "i32", "i32", "i64", "f16", "f32", "f64", "bf"},
      {"i64", "i64", "i64", "i64", "f32", "i64", "i64", "i64", "i64", "f16", "f32", "f64", "bf"},
      {"f16", "f16", "f16", "f16", "f16", "f16", "f16", "f16", "f16", "f16", "f32", "f64", "f32"},
      {"f32", "f32", "f32", "f32", "f32", "f32", "f32", "f32", "f32", "f32", "f32", "f64", "f32"},
      {"f64", "f64", "f64", "f64", "f64", "f64", "f64", "f64", "f64", "f64", "f64", "f64", "f64"},
      {"bf", "bf", "bf", "bf", "bf", "bf", "bf", "bf", "bf", "f32", "f32", "f64", "bf"},
  };
  const std::vector<std::string> codes = {"b",   "u8",  "u16", "u32", "u64", "i8", "i16",
                                          "i32", "i64", "f16", "f32", "f64", "bf"};
  auto pos = [&](Dtype t) { return std::find(names.begin(), names.end(), t) - names.begin(); };
  const std::string code = rows[pos(a)][pos(b)];
  return names[std::find(codes.begin(), codes.end(), code) - codes.begin()];
}

enum class Out { promoted, at_least_float, boolean };

// The kind of values an operand gets.
enum class Values { any, comparable, nonzero, exponent };

double value(Values kind, Dtype dt, int i, int salt) {
  int k = (i * 37 + salt * 11) % 41;
  if (dt == bool_) return ((i + salt) % 3 == 0) ? 1 : 0;
  bool fl = is_floating_point(dt);
  bool un = is_unsigned(dt);
  switch (kind) {
    case Values::any:
      if (fl) return (k - 20) * 0.25 + 0.1 * ((i + salt) % 3);
      return un ? k : k - 20;
    case Values::comparable: {  // few distinct values, so ties are common
      int m = (i * 7 + salt * 5) % 9;
      if (fl) return (m - 4) * 0.5;
      return un ? m : m - 4;
    }
    case Values::nonzero: {
      double v = fl ? (k - 20) * 0.25 + 0.1 : (un ? k + 1 : k - 20);
      return v == 0 ? 3 : v;
    }
    case Values::exponent:
      return fl ? (k % 13) * 0.25 : k % 4;
  }
  return 0;
}

struct BinaryCase {
  std::string name;
  std::function<array(const array&, const array&)> op;
  // Reference on the operands' values, in double (float results) or in
  // int64 (integer results, wrapped to the dtype afterwards).
  std::function<double(double, double)> ref;
  std::vector<Dtype> dtypes;
  Out out;
  Values a_values = Values::any;
  Values b_values = Values::any;
};

double ipow(double base, double e) {
  int64_t r = 1;
  for (int k = 0; k < static_cast<int>(e); ++k) r *= static_cast<int64_t>(base);
  return static_cast<double>(r);
}

std::vector<BinaryCase> cases() {
  auto C = Values::comparable;
  auto lt = [](double a, double b) { return double(a < b); };
  auto le = [](double a, double b) { return double(a <= b); };
  auto gt = [](double a, double b) { return double(a > b); };
  auto ge = [](double a, double b) { return double(a >= b); };
  auto eq = [](double a, double b) { return double(a == b); };
  auto ne = [](double a, double b) { return double(a != b); };
  auto band = [](double a, double b) {
    return double(static_cast<int64_t>(a) & static_cast<int64_t>(b));
  };
  auto bor = [](double a, double b) {
    return double(static_cast<int64_t>(a) | static_cast<int64_t>(b));
  };
  using A = const array&;
  return {
      {"add", [](A a, A b) { return add(a, b); }, [](double a, double b) { return a + b; }, kAll,
       Out::promoted},
      {"operator_plus", [](A a, A b) { return a + b; }, [](double a, double b) { return a + b; },
       kAll, Out::promoted},
      {"subtract", [](A a, A b) { return subtract(a, b); },
       [](double a, double b) { return a - b; }, kNumeric, Out::promoted},
      {"operator_minus", [](A a, A b) { return a - b; }, [](double a, double b) { return a - b; },
       kNumeric, Out::promoted},
      {"multiply", [](A a, A b) { return multiply(a, b); },
       [](double a, double b) { return a * b; }, kAll, Out::promoted},
      {"operator_times", [](A a, A b) { return a * b; }, [](double a, double b) { return a * b; },
       kAll, Out::promoted},
      {"divide", [](A a, A b) { return divide(a, b); }, [](double a, double b) { return a / b; },
       kNumeric, Out::at_least_float, Values::any, Values::nonzero},
      {"operator_divide", [](A a, A b) { return a / b; }, [](double a, double b) { return a / b; },
       kNumeric, Out::at_least_float, Values::any,
       Values::any},  // includes x / 0: inf and nan as IEEE says
      {"maximum", [](A a, A b) { return maximum(a, b); },
       [](double a, double b) { return std::max(a, b); }, kNumeric, Out::promoted, C, C},
      {"minimum", [](A a, A b) { return minimum(a, b); },
       [](double a, double b) { return std::min(a, b); }, kNumeric, Out::promoted, C, C},
      {"power", [](A a, A b) { return power(a, b); }, nullptr, kNumeric, Out::promoted, Values::any,
       Values::exponent},
      {"equal", [](A a, A b) { return equal(a, b); }, eq, kAll, Out::boolean, C, C},
      {"operator_eq", [](A a, A b) { return a == b; }, eq, kAll, Out::boolean, C, C},
      {"not_equal", [](A a, A b) { return not_equal(a, b); }, ne, kAll, Out::boolean, C, C},
      {"operator_ne", [](A a, A b) { return a != b; }, ne, kAll, Out::boolean, C, C},
      {"greater", [](A a, A b) { return greater(a, b); }, gt, kAll, Out::boolean, C, C},
      {"operator_gt", [](A a, A b) { return a > b; }, gt, kAll, Out::boolean, C, C},
      {"greater_equal", [](A a, A b) { return greater_equal(a, b); }, ge, kAll, Out::boolean, C, C},
      {"operator_ge", [](A a, A b) { return a >= b; }, ge, kAll, Out::boolean, C, C},
      {"less", [](A a, A b) { return less(a, b); }, lt, kAll, Out::boolean, C, C},
      {"operator_lt", [](A a, A b) { return a < b; }, lt, kAll, Out::boolean, C, C},
      {"less_equal", [](A a, A b) { return less_equal(a, b); }, le, kAll, Out::boolean, C, C},
      {"operator_le", [](A a, A b) { return a <= b; }, le, kAll, Out::boolean, C, C},
      {"logical_and", [](A a, A b) { return logical_and(a, b); },
       [](double a, double b) { return double(a != 0 && b != 0); }, kAll, Out::boolean, C, C},
      {"operator_and", [](A a, A b) { return a && b; },
       [](double a, double b) { return double(a != 0 && b != 0); }, kAll, Out::boolean, C, C},
      {"logical_or", [](A a, A b) { return logical_or(a, b); },
       [](double a, double b) { return double(a != 0 || b != 0); }, kAll, Out::boolean, C, C},
      {"operator_or", [](A a, A b) { return a || b; },
       [](double a, double b) { return double(a != 0 || b != 0); }, kAll, Out::boolean, C, C},
      {"bitwise_and", [](A a, A b) { return bitwise_and(a, b); }, band, kIntegerAndBool,
       Out::promoted},
      {"operator_bitand", [](A a, A b) { return a & b; }, band, kIntegerAndBool, Out::promoted},
      {"bitwise_or", [](A a, A b) { return bitwise_or(a, b); }, bor, kIntegerAndBool,
       Out::promoted},
      {"operator_bitor", [](A a, A b) { return a | b; }, bor, kIntegerAndBool, Out::promoted},
  };
}

// gtest prints a failing parameter by its name.
void PrintTo(const BinaryCase& c, std::ostream* os) {
  *os << c.name;
}

Dtype out_dtype(Out rule, Dtype a, Dtype b) {
  Dtype p = mlx_promote(a, b);
  switch (rule) {
    case Out::promoted:
      return p;
    case Out::at_least_float:
      return is_floating_point(p) ? p : float32;
    case Out::boolean:
      return bool_;
  }
  return p;
}

// The expected element for op `c` on values x, y giving dtype od.
double expected(const BinaryCase& c, double x, double y, Dtype od) {
  if (c.name == "power") return is_floating_point(od) ? std::pow(x, y) : wrap(ipow(x, y), od);
  double r = c.ref(x, y);
  if (is_floating_point(od)) return r;
  if (od == bool_ && c.out == Out::promoted) return r != 0;  // add is or, multiply is and
  return wrap(r, od);
}

class BinaryOpTest : public ::testing::TestWithParam<BinaryCase> {};

// Every dtype, every shape, each operand in every layout with the other
// contiguous, and both in the same layout.
TEST_P(BinaryOpTest, EveryDtypeAndLayout) {
  const auto& c = GetParam();
  for (Dtype dt : c.dtypes) {
    Dtype od = out_dtype(c.out, dt, dt);
    for (const auto& shape : test_shapes()) {
      const int r = shape.first, cols = shape.second;
      auto la = layouts(dt, r, cols, [&](int i) { return value(c.a_values, dt, i, 0); });
      auto lb = layouts(dt, r, cols, [&](int i) { return value(c.b_values, dt, i, 1); });
      auto check = [&](const Layout& a, const Layout& b) {
        auto what = c.name + " " + describe(dt, a.name + "/" + b.name, r, cols);
        array out = c.op(a.a, b.a);
        ASSERT_EQ(out.dtype(), od) << what;
        ASSERT_EQ(out.shape(), (Shape{r, cols})) << what;
        std::vector<double> want;
        for (size_t i = 0; i < a.vals.size(); ++i)
          want.push_back(expected(c, a.vals[i], b.vals[i], od));
        expect_values(out, want, tolerance(od), what);
      };
      for (size_t k = 0; k < la.size(); ++k) {
        check(la[k], lb[0]);
        check(la[0], lb[k]);
        check(la[k], lb[k]);
      }
    }
  }
}

// Every pair of dtypes: the result dtype follows MLX's table and the values
// are computed after promotion (values 0..3 fit every dtype).
TEST_P(BinaryOpTest, TypePromotionOfEveryPair) {
  const auto& c = GetParam();
  for (Dtype ta : kAll) {
    for (Dtype tb : kAll) {
      Dtype p = mlx_promote(ta, tb);
      bool bitwise = c.name.find("bit") != std::string::npos;
      auto what = c.name + " " + std::string(dtype_name(ta)) + ", " + std::string(dtype_name(tb));
      auto vals = [](Dtype t, int salt) {
        std::vector<double> v;
        for (int i = 0; i < 6; ++i) v.push_back(t == bool_ ? (i + salt) % 2 : (i * 3 + salt) % 4);
        return v;
      };
      auto va = vals(ta, 0), vb = vals(tb, 1);
      if (c.name == "divide" || c.name == "operator_divide") {
        for (auto& v : vb) v = v == 0 ? 1 : v;
      }
      array a = make_array(va, {6}, ta), b = make_array(vb, {6}, tb);
      if (bitwise && is_floating_point(p)) {
        // std::runtime_error, as MLX throws (issue 14).
        auto msg = error_of<std::runtime_error>([&] { c.op(a, b); });
        EXPECT_NE(msg.find("[bitwise_"), std::string::npos) << what << ": " << msg;
        EXPECT_NE(msg.find(std::string(dtype_name(is_floating_point(ta) ? ta : tb))),
                  std::string::npos)
            << what << ": " << msg;
        continue;
      }
      if ((c.name == "subtract" || c.name == "operator_minus") && ta == bool_ && tb == bool_) {
        continue;  // numpy refuses bool - bool; not part of this contract
      }
      Dtype od = out_dtype(c.out, ta, tb);
      array out = c.op(a, b);
      ASSERT_EQ(out.dtype(), od) << what;
      std::vector<double> want;
      for (int i = 0; i < 6; ++i) want.push_back(expected(c, va[i], vb[i], od));
      expect_values(out, want, tolerance(od), what);
    }
  }
}

// Shapes that do not broadcast: the message names the op and both shapes.
TEST_P(BinaryOpTest, BroadcastErrorNamesBothShapes) {
  const auto& c = GetParam();
  Dtype dt = c.dtypes.back();
  array a = make_array(std::vector<double>(6, 1), {2, 3}, dt);
  array b = make_array(std::vector<double>(4, 1), {4}, dt);
  auto msg = error_of([&] { c.op(a, b); });
  EXPECT_FALSE(msg.empty()) << c.name << " did not throw std::invalid_argument";
  EXPECT_EQ(msg.substr(0, 1), "[") << msg;
  EXPECT_NE(msg.find("(2,3)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(4,)"), std::string::npos) << msg;
}

INSTANTIATE_TEST_SUITE_P(Ops, BinaryOpTest, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.name; });

TEST(Binary, PromotionExamplesFromMLX) {
  EXPECT_EQ(add(array({200}, uint8), array({100}, int32)).dtype(), int32);
  EXPECT_EQ(values(add(array({200}, uint8), array({100}, int32))), (std::vector<double>{300}));
  array big = add(array(uint32_t{4000000000u}), array(-1));
  EXPECT_EQ(big.dtype(), int64);
  EXPECT_EQ(big.item<int64_t>(), 3999999999);
  array h = add(array(3), astype(array(0.5f), float16));
  EXPECT_EQ(h.dtype(), float16);
  EXPECT_EQ(static_cast<float>(h.item<float16_t>()), 3.5f);
  array f = add(astype(array(1.0f / 3), float16), astype(array(1.0f / 3), bfloat16));
  EXPECT_EQ(f.dtype(), float32);
  EXPECT_EQ(f.item<float>(), 0.333251953125f + 0.333984375f);
  array bb = add(array({true, true, false}), array({true, false, false}));
  EXPECT_EQ(bb.dtype(), bool_);
  EXPECT_EQ(values(bb), (std::vector<double>{1, 1, 0}));
  EXPECT_EQ(multiply(array({true, true}), array({true, false})).dtype(), bool_);
  EXPECT_EQ(add(array({1}, int64), array({1}, uint32)).dtype(), int64);
  EXPECT_EQ(add(array({1}, int64), astype(array({1.0f}), bfloat16)).dtype(), bfloat16);
}

TEST(Binary, IntegerWrapAround) {
  EXPECT_EQ(values(add(array({200}, uint8), array({100}, uint8))), (std::vector<double>{44}));
  EXPECT_EQ(values(subtract(array({1}, uint8), array({2}, uint8))), (std::vector<double>{255}));
  EXPECT_EQ(add(array(2147483647), array(1)).item<int32_t>(), -2147483647 - 1);
}

TEST(Binary, DivideOfIntegersGivesFloat32) {
  array q = divide(array({1, 2, 3, -7}, int32), array({2}, int32));
  EXPECT_EQ(q.dtype(), float32);
  EXPECT_EQ(values(q), (std::vector<double>{0.5, 1, 1.5, -3.5}));
  EXPECT_EQ(divide(array({1}, uint8), array({4}, uint8)).dtype(), float32);
  EXPECT_EQ(divide(array({1}, int64), array({4}, int64)).item<float>(), 0.25f);
  EXPECT_EQ(divide(array({1}, int32), astype(array({4.0f}), float16)).dtype(), float16);
  auto z = values(divide(array({1, -1, 0}, int32), array(0)));
  EXPECT_EQ(z[0], std::numeric_limits<double>::infinity());
  EXPECT_EQ(z[1], -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(z[2]));
}

TEST(Binary, ComparisonsGiveBool) {
  array a({1.0f, 2.0f, 3.0f});
  array b({3.0f, 2.0f, 1.0f});
  for (auto out : {equal(a, b), not_equal(a, b), greater(a, b), greater_equal(a, b), less(a, b),
                   less_equal(a, b), logical_and(a, b), logical_or(a, b)}) {
    EXPECT_EQ(out.dtype(), bool_);
  }
  EXPECT_EQ(values(less(a, b)), (std::vector<double>{1, 0, 0}));
  EXPECT_EQ(values(equal(array({1}, uint32), array({1.0f}))), (std::vector<double>{1}));
  // NaN compares unequal to everything, itself included.
  array n({NAN, 1.0f});
  EXPECT_EQ(values(equal(n, n)), (std::vector<double>{0, 1}));
  EXPECT_EQ(values(not_equal(n, n)), (std::vector<double>{1, 0}));
  EXPECT_EQ(values(less(n, array(2.0f))), (std::vector<double>{0, 1}));
}

TEST(Binary, OperatorsWithScalars) {
  array a({1.0f, 2.0f, 3.0f});
  expect_values(a + 1, {2, 3, 4}, 1e-6, "a + 1");
  expect_values(1 + a, {2, 3, 4}, 1e-6, "1 + a");
  expect_values(2.0f * a, {2, 4, 6}, 1e-6, "2.0f * a");
  expect_values(a * 2.0f, {2, 4, 6}, 1e-6, "a * 2.0f");
  expect_values(a - 1, {0, 1, 2}, 1e-6, "a - 1");
  expect_values(10 - a, {9, 8, 7}, 1e-6, "10 - a");
  expect_values(a / 2, {0.5, 1, 1.5}, 1e-6, "a / 2");
  expect_values(3.0f / a, {3, 1.5, 1}, 1e-6, "3.0f / a");
  EXPECT_EQ((a + 1).dtype(), float32);
  array lt = a < 3;
  EXPECT_EQ(lt.dtype(), bool_);
  EXPECT_EQ(values(lt), (std::vector<double>{1, 1, 0}));
  EXPECT_EQ(values(a <= 2), (std::vector<double>{1, 1, 0}));
  EXPECT_EQ(values(a > 1), (std::vector<double>{0, 1, 1}));
  EXPECT_EQ(values(a >= 2), (std::vector<double>{0, 1, 1}));
  EXPECT_EQ(values(a == 2), (std::vector<double>{0, 1, 0}));
  EXPECT_EQ(values(a != 2), (std::vector<double>{1, 0, 1}));
  EXPECT_EQ(values(2 < a), (std::vector<double>{0, 0, 1}));
  array i({1, 2, 3}, int32);
  EXPECT_EQ((i + 1).dtype(), int32);
  EXPECT_EQ(values(i * 2), (std::vector<double>{2, 4, 6}));
  EXPECT_EQ((i * 2.0f).dtype(), float32);
  EXPECT_EQ((i / 2).dtype(), float32);
  EXPECT_EQ(values(i & 1), (std::vector<double>{1, 0, 1}));
  EXPECT_EQ(values(i | 4), (std::vector<double>{5, 6, 7}));
  EXPECT_EQ(values((i > 1) && true), (std::vector<double>{0, 1, 1}));
  EXPECT_EQ(values((i > 2) || false), (std::vector<double>{0, 0, 1}));
  // The C++ API has no weak scalars: a scalar is an array of its own dtype.
  EXPECT_EQ((array({1}, uint8) + 1).dtype(), int32);
  EXPECT_EQ((astype(a, float16) + 1).dtype(), float16);
  EXPECT_EQ((astype(a, float16) * 2.0f).dtype(), float32);
}

TEST(Binary, BroadcastShapesAndValues) {
  struct Case {
    Shape a, b, out;
  };
  for (const Case& cs : std::vector<Case>{{{2, 3}, {3}, {2, 3}},
                                          {{4, 1}, {1, 5}, {4, 5}},
                                          {{}, {2, 2}, {2, 2}},
                                          {{2, 1, 3}, {4, 1}, {2, 4, 3}},
                                          {{1}, {7}, {7}},
                                          {{3, 0}, {1}, {3, 0}}}) {
    const Shape &sa = cs.a, &sb = cs.b, &so = cs.out;
    auto size = [](const Shape& s) {
      int n = 1;
      for (auto d : s) n *= d;
      return n;
    };
    std::vector<double> va(size(sa)), vb(size(sb));
    for (size_t i = 0; i < va.size(); ++i) va[i] = i + 1;
    for (size_t i = 0; i < vb.size(); ++i) vb[i] = 10 * (i + 1);
    array out = add(make_array(va, sa, float32), make_array(vb, sb, float32));
    ASSERT_EQ(out.shape(), so);
    // Reference: index each operand by the output index, right-aligned, with
    // size-1 dims pinned to 0.
    auto at = [&](const std::vector<double>& v, const Shape& s, const std::vector<int>& idx) {
      int64_t flat = 0;
      size_t off = so.size() - s.size();
      for (size_t d = 0; d < s.size(); ++d) flat = flat * s[d] + (s[d] == 1 ? 0 : idx[off + d]);
      return v[flat];
    };
    std::vector<double> want;
    std::vector<int> idx(so.size(), 0);
    for (int e = 0; e < size(so); ++e) {
      want.push_back(at(va, sa, idx) + at(vb, sb, idx));
      for (int d = static_cast<int>(so.size()) - 1; d >= 0; --d) {
        if (++idx[d] < so[d]) break;
        idx[d] = 0;
      }
    }
    expect_values(out, want, 1e-6, "broadcast add " + shape_string(sa) + " " + shape_string(sb));
  }
}

TEST(Binary, BroadcastErrors) {
  auto msg = error_of([] { add(ones({2, 3}), ones({3, 2})); });
  EXPECT_NE(msg.find("(2,3)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(3,2)"), std::string::npos) << msg;
  msg = error_of([] { multiply(ones({5, 1, 4}), ones({2, 3})); });
  EXPECT_NE(msg.find("(5,1,4)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(2,3)"), std::string::npos) << msg;
}

TEST(Binary, MaximumMinimumPropagateNaN) {
  for (Dtype dt : {float16, bfloat16, float32}) {
    array a = astype(array({NAN, 1.0f, NAN, -2.0f}), dt);
    array b = astype(array({1.0f, NAN, NAN, 3.0f}), dt);
    auto mx = values(maximum(a, b)), mn = values(minimum(a, b));
    for (int i = 0; i < 3; ++i) {
      EXPECT_TRUE(std::isnan(mx[i])) << dtype_name(dt) << " maximum element " << i;
      EXPECT_TRUE(std::isnan(mn[i])) << dtype_name(dt) << " minimum element " << i;
    }
    EXPECT_EQ(mx[3], 3);
    EXPECT_EQ(mn[3], -2);
  }
}

TEST(Binary, IntegerPower) {
  EXPECT_EQ(power(array(2), array(10)).item<int32_t>(), 1024);
  EXPECT_EQ(power(array(3), array(0)).item<int32_t>(), 1);
  EXPECT_EQ(power(array(-2), array(3)).item<int32_t>(), -8);
  EXPECT_EQ(power(array(int64_t{3}), array(int64_t{30})).item<int64_t>(), 205891132094649);
  EXPECT_EQ(power(array(2), array(0.5f)).dtype(), float32);
  EXPECT_NEAR(power(array(2), array(0.5f)).item<float>(), std::sqrt(2.0), 1e-6);
}

// std::runtime_error, as MLX throws (issue 14).
TEST(Binary, BitwiseOnFloatsThrows) {
  auto msg = error_of<std::runtime_error>([] { bitwise_and(array({1.0f}), array({1}, int32)); });
  EXPECT_NE(msg.find("[bitwise_and]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("float32"), std::string::npos) << msg;
  msg = error_of<std::runtime_error>(
      [] { bitwise_or(array({1}, int32), astype(array({1.0f}), float16)); });
  EXPECT_NE(msg.find("[bitwise_or]"), std::string::npos) << msg;
}

// Integer powers wrap modulo 2^bits, as repeated multiplication does (issue
// 15): the CPU's squaring of the base was a signed overflow, undefined
// behaviour even where the result fits (10^9 in int32 squares 10^8).
TEST(Binary, IntegerPowerWrapsAsMultiplication) {
  auto ref = [](uint64_t base, int e) {
    uint64_t r = 1;
    for (int k = 0; k < e; ++k) r *= base;
    return r;
  };
  for (const Device& d : devices()) {
    const std::string where = device_name(d);
    EXPECT_EQ(power(array(10, int32), array(9, int32), d).item<int32_t>(), 1000000000) << where;
    EXPECT_EQ(power(array(3, int32), array(40, int32), d).item<int32_t>(),
              static_cast<int32_t>(ref(3, 40)))
        << where;
    EXPECT_EQ(power(array(-3, int64), array(41, int64), d).item<int64_t>(),
              static_cast<int64_t>(ref(static_cast<uint64_t>(-3), 41)))
        << where;
    EXPECT_EQ(power(array(255, uint16), array(3, uint16), d).item<uint16_t>(),
              static_cast<uint16_t>(ref(255, 3)))
        << where;
  }
}

TEST(Binary, ScalarsAndEmpty) {
  array s = add(array(1.5f), array(2));
  EXPECT_EQ(s.ndim(), 0);
  EXPECT_EQ(s.item<float>(), 3.5f);
  array e = multiply(zeros({0, 4}), ones({4}));
  EXPECT_EQ(e.shape(), (Shape{0, 4}));
  EXPECT_EQ(values(e).size(), 0u);
}

TEST(Binary, IsLazy) {
  array a({1.0f, 2.0f});
  array s = a + a;
  EXPECT_FALSE(s.is_available());
  EXPECT_EQ(values(s), (std::vector<double>{2, 4}));
}

}  // namespace
