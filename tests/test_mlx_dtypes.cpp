// MLX's remaining dtypes: int8, int16, uint16, uint64 on both devices and
// float64 on the CPU only. Expectations are written out by hand (MLX's and
// JAX's published promotion table, C++'s modular integer casts, numpy's limits)
// or computed by plain C++ on the host; GPU results are also compared with the
// CPU's.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <vector>

#include "mlx_lite/mlx_lite.h"
#include "tests/test_util.h"

using namespace mlx_lite;
using test_util::device_name;
using test_util::devices;
using test_util::values_as;

namespace {

const Device kCpu(Device::cpu);
const Device kGpu(Device::gpu);
const std::vector<Dtype> kNewInts = {int8, int16, uint16, uint64};

template <typename T>
array arr(std::vector<T> v) {
  return array(v.begin(), Shape{static_cast<ShapeElem>(v.size())}, TypeToDtype<T>());
}

template <typename T>
std::vector<T> host(const array& a) {
  return values_as<T>(a);
}

// ---- Promotion, written out from MLX's table (docs: "Type Promotion").

TEST(MlxDtypes, PromotionTableCells) {
  struct Cell {
    Dtype a, b, want;
  };
  const std::vector<Cell> cells = {
      {int8, uint8, int16},        {int8, uint16, int32},        {int16, uint16, int32},
      {int8, uint32, int64},       {int16, uint32, int64},       {uint16, int32, int32},
      {uint64, int8, float32},     {uint64, int64, float32},     {uint64, int32, float32},
      {uint64, uint8, uint64},     {uint64, uint32, uint64},     {int8, int16, int16},
      {int8, int64, int64},        {uint16, uint32, uint32},     {uint8, uint16, uint16},
      {bool_, int8, int8},         {bool_, uint16, uint16},      {bool_, uint64, uint64},
      {float16, int64, float16},   {float16, uint64, float16},   {bfloat16, uint64, bfloat16},
      {bfloat16, int8, bfloat16},  {float64, float32, float64},  {float64, bfloat16, float64},
      {float64, float16, float64}, {float64, int64, float64},    {float64, uint64, float64},
      {float64, bool_, float64},   {float16, bfloat16, float32}, {float32, bfloat16, float32},
      {uint16, float16, float16},  {int16, float32, float32},    {float64, float64, float64},
  };
  for (const auto& c : cells) {
    EXPECT_EQ(promote_types(c.a, c.b), c.want) << c.a << " with " << c.b;
    EXPECT_EQ(promote_types(c.b, c.a), c.want) << c.b << " with " << c.a;
  }
}

// The lattice's defining property, checked over every pair of integer
// dtypes: the result holds both operands' ranges (iinfo), except uint64
// with a signed type, which MLX sends to float32.
TEST(MlxDtypes, IntegerPromotionHoldsBothRanges) {
  const std::vector<Dtype> ints = {uint8, uint16, uint32, uint64, int8, int16, int32, int64};
  for (Dtype a : ints) {
    for (Dtype b : ints) {
      Dtype r = promote_types(a, b);
      if ((a == uint64 && !is_unsigned(b)) || (b == uint64 && !is_unsigned(a))) {
        EXPECT_EQ(r, float32) << a << " " << b;
        continue;
      }
      ASSERT_TRUE(is_integral(r)) << a << " " << b;
      for (Dtype t : {a, b}) {
        EXPECT_LE(iinfo(r).min, iinfo(t).min) << a << " " << b;
        EXPECT_GE(iinfo(r).max, iinfo(t).max) << a << " " << b;
      }
      // And it is the narrowest such: no smaller dtype of the table holds both.
      EXPECT_TRUE(r == a || r == b || size_of(r) > std::max(size_of(a), size_of(b)) ||
                  (size_of(r) == 4 && std::max(size_of(a), size_of(b)) < 4))
          << a << " " << b << " -> " << r;
    }
  }
}

TEST(MlxDtypes, OpsFollowPromotion) {
  for (const Device& d : devices()) {
    EXPECT_EQ(add(array(int8_t{1}), array(uint8_t{1}), d).dtype(), int16) << device_name(d);
    EXPECT_EQ(multiply(array(uint16_t{1}), array(int8_t{1}), d).dtype(), int32);
    EXPECT_EQ(add(array(uint64_t{1}), array(int64_t{1}), d).dtype(), float32);
    EXPECT_EQ(add(array(uint64_t{1}), array(true), d).dtype(), uint64);
  }
}

// ---- Kinds, categories, issubdtype, sizes, names.

TEST(MlxDtypes, KindsSizesAndNames) {
  EXPECT_EQ(kindof(int8), Dtype::Kind::i);
  EXPECT_EQ(kindof(int16), Dtype::Kind::i);
  EXPECT_EQ(kindof(uint16), Dtype::Kind::u);
  EXPECT_EQ(kindof(uint64), Dtype::Kind::u);
  EXPECT_EQ(kindof(float64), Dtype::Kind::f);
  EXPECT_EQ(kindof(bfloat16), Dtype::Kind::V);  // numpy has no letter for it, as in MLX
  EXPECT_EQ(kindof(bool_), Dtype::Kind::b);
  std::ostringstream kinds;
  kinds << kindof(bfloat16) << kindof(uint64) << kindof(int8) << kindof(float64);
  EXPECT_EQ(kinds.str(), "Vuif");
  EXPECT_EQ(size_of(int8), 1);
  EXPECT_EQ(size_of(int16), 2);
  EXPECT_EQ(size_of(uint16), 2);
  EXPECT_EQ(size_of(uint64), 8);
  EXPECT_EQ(size_of(float64), 8);
  EXPECT_EQ(dtype_name(int8), "int8");
  EXPECT_EQ(dtype_name(int16), "int16");
  EXPECT_EQ(dtype_name(uint16), "uint16");
  EXPECT_EQ(dtype_name(uint64), "uint64");
  EXPECT_EQ(dtype_name(float64), "float64");
  EXPECT_EQ(std::size(all_dtypes), 13u);
  EXPECT_TRUE(is_floating_point(float64));
  EXPECT_TRUE(is_floating_point(bfloat16));
  EXPECT_FALSE(is_floating_point(uint64));
  EXPECT_TRUE(is_unsigned(uint16));
  EXPECT_FALSE(is_unsigned(int8));
  EXPECT_TRUE(is_integral(int8));
  EXPECT_FALSE(is_integral(bool_));
  EXPECT_FALSE(is_complex(float64));
}

TEST(MlxDtypes, IssubdtypeWithCategories) {
  for (Dtype t : {int8, int16, int32, int64}) {
    EXPECT_TRUE(issubdtype(t, signedinteger)) << t;
    EXPECT_TRUE(issubdtype(t, integer));
    EXPECT_TRUE(issubdtype(t, number));
    EXPECT_TRUE(issubdtype(t, generic));
    EXPECT_FALSE(issubdtype(t, unsignedinteger));
    EXPECT_FALSE(issubdtype(t, inexact));
  }
  for (Dtype t : {uint8, uint16, uint32, uint64}) {
    EXPECT_TRUE(issubdtype(t, unsignedinteger)) << t;
    EXPECT_TRUE(issubdtype(t, integer));
    EXPECT_FALSE(issubdtype(t, signedinteger));
    EXPECT_FALSE(issubdtype(t, floating));
  }
  for (Dtype t : {float16, float32, float64, bfloat16}) {
    EXPECT_TRUE(issubdtype(t, floating)) << t;
    EXPECT_TRUE(issubdtype(t, inexact));
    EXPECT_TRUE(issubdtype(t, number));
    EXPECT_FALSE(issubdtype(t, complexfloating));
    EXPECT_FALSE(issubdtype(t, integer));
  }
  // bool is only generic, as numpy's bool_.
  EXPECT_TRUE(issubdtype(bool_, generic));
  EXPECT_FALSE(issubdtype(bool_, number));
  EXPECT_FALSE(issubdtype(bool_, integer));
  // Category under category: numpy's hierarchy.
  EXPECT_TRUE(issubdtype(floating, inexact));
  EXPECT_FALSE(issubdtype(inexact, floating));
  EXPECT_TRUE(issubdtype(complexfloating, inexact));
  EXPECT_FALSE(issubdtype(floating, complexfloating));
  EXPECT_TRUE(issubdtype(signedinteger, integer));
  EXPECT_TRUE(issubdtype(unsignedinteger, number));
  EXPECT_FALSE(issubdtype(integer, signedinteger));
  EXPECT_TRUE(issubdtype(number, generic));
  EXPECT_FALSE(issubdtype(generic, number));
  EXPECT_TRUE(issubdtype(generic, generic));
  // Dtype against dtype is equality; a category is never under a dtype.
  EXPECT_TRUE(issubdtype(int8, int8));
  EXPECT_FALSE(issubdtype(int8, int16));
  EXPECT_FALSE(issubdtype(floating, float32));
}

// ---- iinfo and finfo: numpy's values.

TEST(MlxDtypes, Iinfo) {
  struct Want {
    Dtype t;
    int64_t min;
    uint64_t max;
  };
  for (const auto& w : std::vector<Want>{{int8, -128, 127},
                                         {int16, -32768, 32767},
                                         {int32, -2147483648LL, 2147483647},
                                         {int64, INT64_MIN, 9223372036854775807ULL},
                                         {uint8, 0, 255},
                                         {uint16, 0, 65535},
                                         {uint32, 0, 4294967295ULL},
                                         {uint64, 0, 18446744073709551615ULL}}) {
    iinfo info(w.t);
    EXPECT_EQ(info.dtype, w.t);
    EXPECT_EQ(info.min, w.min) << w.t;
    EXPECT_EQ(info.max, w.max) << w.t;
  }
  EXPECT_THROW(iinfo{float32}, std::invalid_argument);
  EXPECT_THROW(iinfo{bool_}, std::invalid_argument);
  EXPECT_NE(test_util::error_of([] { iinfo{float64}; }).find("[iinfo]"), std::string::npos);
}

TEST(MlxDtypes, Finfo) {
  finfo h(float16), b(bfloat16), f(float32), d(float64);
  EXPECT_EQ(h.max, 65504.0);
  EXPECT_EQ(h.min, -65504.0);
  EXPECT_EQ(h.eps, 0.0009765625);
  EXPECT_EQ(b.max, 3.3895313892515355e38);
  EXPECT_EQ(b.min, -3.3895313892515355e38);
  EXPECT_EQ(b.eps, 0.0078125);
  EXPECT_EQ(f.max, 3.4028234663852886e38);
  EXPECT_EQ(f.eps, 1.1920928955078125e-07);
  EXPECT_EQ(d.max, 1.7976931348623157e308);
  EXPECT_EQ(d.min, -1.7976931348623157e308);
  EXPECT_EQ(d.eps, 2.220446049250313e-16);
  EXPECT_EQ(d.dtype, float64);
  EXPECT_THROW(finfo{int32}, std::invalid_argument);
  EXPECT_THROW(finfo{bool_}, std::invalid_argument);
  EXPECT_NE(test_util::error_of([] { finfo{uint64}; }).find("[finfo]"), std::string::npos);
}

// ---- item, data and the C++ types.

TEST(MlxDtypes, CppTypesMapExactly) {
  EXPECT_EQ(TypeToDtype<int8_t>(), int8);
  EXPECT_EQ(TypeToDtype<int16_t>(), int16);
  EXPECT_EQ(TypeToDtype<uint16_t>(), uint16);
  EXPECT_EQ(TypeToDtype<uint64_t>(), uint64);
  EXPECT_EQ(TypeToDtype<unsigned long long>(), uint64);
  EXPECT_EQ(TypeToDtype<double>(), float32);  // as MLX: array(1.5) is float32
  EXPECT_TRUE((std::is_same_v<DtypeToType<Dtype::Val::int8>::type, int8_t>));
  EXPECT_TRUE((std::is_same_v<DtypeToType<Dtype::Val::uint64>::type, uint64_t>));
  EXPECT_TRUE((std::is_same_v<DtypeToType<Dtype::Val::float64>::type, double>));
  EXPECT_EQ(array(int8_t{-5}).dtype(), int8);
  EXPECT_EQ(array(uint16_t{7}).dtype(), uint16);
  EXPECT_EQ(array(1.5).dtype(), float32);
  EXPECT_EQ(array(1.5, float64).dtype(), float64);
}

TEST(MlxDtypes, ItemAndDataNeedTheExactType) {
  EXPECT_EQ(array(int8_t{-5}).item<int8_t>(), -5);
  EXPECT_EQ(array(int16_t{-300}).item<int16_t>(), -300);
  EXPECT_EQ(array(uint16_t{65535}).item<uint16_t>(), 65535);
  EXPECT_EQ(array(uint64_t{18446744073709551615ULL}).item<uint64_t>(), 18446744073709551615ULL);
  EXPECT_EQ(array(uint64_t{5}).item<unsigned long long>(), 5u);  // same width and sign
  EXPECT_EQ(array(0.1, float64).item<double>(), 0.1);
  EXPECT_THROW(array(int8_t{1}).item<int32_t>(), std::invalid_argument);
  EXPECT_THROW(array(int8_t{1}).item<uint8_t>(), std::invalid_argument);
  EXPECT_THROW(array(int16_t{1}).item<uint16_t>(), std::invalid_argument);
  EXPECT_THROW(array(uint64_t{1}).item<int64_t>(), std::invalid_argument);
  EXPECT_THROW(array(1.0, float64).item<float>(), std::invalid_argument);
  EXPECT_THROW(array(1.0f).item<double>(), std::invalid_argument);
  array a = arr<int16_t>({-1, 2, -3});
  EXPECT_EQ(a.data<int16_t>()[2], -3);
  EXPECT_THROW(a.data<int32_t>(), std::invalid_argument);
}

// ---- Printing.

std::string printed(const array& a) {
  std::ostringstream os;
  os << a;
  return os.str();
}

TEST(MlxDtypes, Printing) {
  EXPECT_EQ(printed(arr<int8_t>({-128, 0, 127})), "array([-128, 0, 127], dtype=int8)");
  EXPECT_EQ(printed(arr<int16_t>({-300, 7})), "array([-300, 7], dtype=int16)");
  EXPECT_EQ(printed(arr<uint16_t>({65535})), "array([65535], dtype=uint16)");
  EXPECT_EQ(printed(array(uint64_t{18446744073709551615ULL})),
            "array(18446744073709551615, dtype=uint64)");
  EXPECT_EQ(printed(array(0.5, float64)), "array(0.5, dtype=float64)");
  EXPECT_EQ(printed(zeros({0}, int8, kCpu)), "array([], dtype=int8)");
  std::ostringstream os;
  os << uint16 << " " << float64;
  EXPECT_EQ(os.str(), "uint16 float64");
}

// ---- astype: C++'s modular integer casts, truncating float casts.

TEST(MlxDtypes, AstypeWrapsAsCppCasts) {
  const std::vector<int32_t> src = {-129, -128, 127, 128, 255, 256, 65535, 65536, -1};
  for (const Device& d : devices()) {
    array x = arr<int32_t>(src);
    EXPECT_EQ(host<int8_t>(astype(x, int8, d)),
              (std::vector<int8_t>{127, -128, 127, -128, -1, 0, -1, 0, -1}))
        << device_name(d);
    EXPECT_EQ(host<int16_t>(astype(x, int16, d)),
              (std::vector<int16_t>{-129, -128, 127, 128, 255, 256, -1, 0, -1}));
    EXPECT_EQ(host<uint16_t>(astype(x, uint16, d)),
              (std::vector<uint16_t>{65407, 65408, 127, 128, 255, 256, 65535, 0, 65535}));
    EXPECT_EQ(host<uint64_t>(astype(x, uint64, d))[0], 18446744073709551487ULL);  // -129
    // Floats truncate toward zero.
    array f = arr<float>({-1.75f, 2.9f, 100.5f, -0.5f});
    EXPECT_EQ(host<int8_t>(astype(f, int8, d)), (std::vector<int8_t>{-1, 2, 100, 0}));
    EXPECT_EQ(host<uint16_t>(astype(arr<float>({65535.9f, 3.5f}), uint16, d)),
              (std::vector<uint16_t>{65535, 3}));
    // float32 1e19 is 9999999980506447872 exactly; past 2^63, so not through int64.
    EXPECT_EQ(host<uint64_t>(astype(arr<float>({1e19f}), uint64, d))[0], 9999999980506447872ULL);
    EXPECT_EQ(host<float>(astype(array(uint64_t{18446744073709551615ULL}), float32, d))[0],
              18446744073709551616.0f);
    // Round trips through wider types are exact.
    array i8 = arr<int8_t>({-128, -1, 0, 1, 127});
    EXPECT_EQ(host<int8_t>(astype(astype(i8, int16, d), int8, d)), host<int8_t>(i8));
    EXPECT_EQ(host<int8_t>(astype(astype(i8, uint64, d), int8, d)), host<int8_t>(i8));
    array u16 = arr<uint16_t>({0, 1, 65535, 32768});
    EXPECT_EQ(host<uint16_t>(astype(astype(u16, uint64, d), uint16, d)), host<uint16_t>(u16));
    EXPECT_EQ(host<uint16_t>(astype(astype(u16, float32, d), uint16, d)), host<uint16_t>(u16));
    EXPECT_EQ(host<float16_t>(astype(u16, float16, d))[1], float16_t(1.0f));
    EXPECT_EQ(host<bool>(astype(i8, bool_, d)), (std::vector<bool>{true, true, false, true, true}));
  }
}

// ---- Arithmetic, against a host reference computed in int64 and cast.

template <typename T>
void check_binary(const std::vector<T>& a, const std::vector<T>& b) {
  using W = std::conditional_t<std::is_unsigned_v<T>, uint64_t, int64_t>;
  const size_t n = a.size();
  auto ref = [&](auto f) {
    std::vector<T> r(n);
    for (size_t i = 0; i < n; ++i) r[i] = static_cast<T>(f(W(a[i]), W(b[i])));
    return r;
  };
  auto floordiv = [](W x, W y) -> W {
    if (y == 0) return 0;
    if constexpr (std::is_signed_v<W>) {
      W q = x / y;
      if (q * y != x && ((x < 0) != (y < 0))) --q;
      return q;
    }
    return x / y;
  };
  for (const Device& d : devices()) {
    array x = arr<T>(a), y = arr<T>(b);
    SCOPED_TRACE(std::string(dtype_name(TypeToDtype<T>())) + " on " + device_name(d));
    EXPECT_EQ(host<T>(add(x, y, d)), ref([](W u, W v) { return u + v; }));
    EXPECT_EQ(host<T>(subtract(x, y, d)), ref([](W u, W v) { return u - v; }));
    EXPECT_EQ(host<T>(multiply(x, y, d)), ref([](W u, W v) { return u * v; }));
    EXPECT_EQ(host<T>(floor_divide(x, y, d)), ref(floordiv));
    EXPECT_EQ(host<T>(remainder(x, y, d)),
              ref([&](W u, W v) { return v == 0 ? W(0) : W(u - floordiv(u, v) * v); }));
    EXPECT_EQ(host<T>(maximum(x, y, d)), ref([](W u, W v) { return u > v ? u : v; }));
    EXPECT_EQ(host<T>(minimum(x, y, d)), ref([](W u, W v) { return u < v ? u : v; }));
    EXPECT_EQ(host<T>(bitwise_and(x, y, d)), ref([](W u, W v) { return u & v; }));
    EXPECT_EQ(host<T>(bitwise_xor(x, y, d)), ref([](W u, W v) { return u ^ v; }));
    std::vector<bool> gt(n), eq(n);
    for (size_t i = 0; i < n; ++i) gt[i] = a[i] > b[i], eq[i] = a[i] == b[i];
    EXPECT_EQ(host<bool>(greater(x, y, d)), gt);
    EXPECT_EQ(host<bool>(equal(x, y, d)), eq);
    // Transposed (non-contiguous) operands give the same.
    array xt = transpose(reshape(x, {2, static_cast<ShapeElem>(n / 2)}, d), d);
    array yt = transpose(reshape(y, {2, static_cast<ShapeElem>(n / 2)}, d), d);
    EXPECT_EQ(host<T>(add(xt, yt, d)), host<T>(add(xt, yt, kCpu)));
  }
}

TEST(MlxDtypes, ArithmeticInt8) {
  check_binary<int8_t>({100, -100, 7, -128, 0, 127}, {100, -29, -2, -1, 5, 127});
}
TEST(MlxDtypes, ArithmeticInt16) {
  check_binary<int16_t>({30000, -32768, 7, -7, 300, 1}, {30000, -1, -2, 2, 300, 0});
}
TEST(MlxDtypes, ArithmeticUint16) {
  check_binary<uint16_t>({65535, 1000, 3, 0, 300, 40000}, {1, 2000, 65535, 7, 300, 3});
}
TEST(MlxDtypes, ArithmeticUint64) {
  const uint64_t top = 1ULL << 63, max = 18446744073709551615ULL;
  check_binary<uint64_t>({max, top, 5, top + 5, 0, 12}, {1, top, 7, 3, max, 5});
}

TEST(MlxDtypes, ShiftsAndUnaryOps) {
  for (const Device& d : devices()) {
    SCOPED_TRACE(device_name(d));
    array i8 = arr<int8_t>({1, -128, 5, -5});
    EXPECT_EQ(host<int8_t>(left_shift(i8, arr<int8_t>({7, 1, 9, 2}), d)),
              (std::vector<int8_t>{-128, 0, 0, -20}));
    EXPECT_EQ(host<int8_t>(right_shift(i8, arr<int8_t>({0, 7, 9, 9}), d)),
              (std::vector<int8_t>{1, -1, 0, -1}));
    EXPECT_EQ(host<int8_t>(abs(i8, d)), (std::vector<int8_t>{1, -128, 5, 5}));  // -128 wraps
    EXPECT_EQ(host<int8_t>(negative(i8, d)), (std::vector<int8_t>{-1, -128, -5, 5}));
    EXPECT_EQ(host<int8_t>(sign(i8, d)), (std::vector<int8_t>{1, -1, 1, -1}));
    array u16 = arr<uint16_t>({0, 1, 65535});
    EXPECT_EQ(host<uint16_t>(bitwise_invert(u16, d)), (std::vector<uint16_t>{65535, 65534, 0}));
    EXPECT_EQ(host<uint16_t>(negative(u16, d)), (std::vector<uint16_t>{0, 65535, 1}));
    EXPECT_EQ(host<uint16_t>(square(arr<uint16_t>({256, 300}), d)),
              (std::vector<uint16_t>{0, 24464}));  // 90000 mod 65536
    array u64 = arr<uint64_t>({1ULL << 63, 3});
    EXPECT_EQ(host<uint64_t>(right_shift(u64, arr<uint64_t>({63, 1}), d)),
              (std::vector<uint64_t>{1, 1}));
    EXPECT_EQ(host<int16_t>(left_shift(arr<int16_t>({1}), arr<int16_t>({15}), d))[0], -32768);
    // Float-only ops take the integers as float32, as MLX.
    EXPECT_EQ(sqrt(arr<int16_t>({4}), d).dtype(), float32);
    EXPECT_EQ(host<float>(sqrt(arr<uint16_t>({49}), d))[0], 7.0f);
  }
}

// ---- Reductions: MLX's output dtypes, short and long (two-pass GPU) rows.

TEST(MlxDtypes, Reductions) {
  const uint64_t top_value = 18446744073709551615ULL;
  for (const Device& d : devices()) {
    SCOPED_TRACE(device_name(d));
    array i8 = arr<int8_t>({100, 100, 100, -50});
    EXPECT_EQ(sum(i8, false, d).dtype(), int32);
    EXPECT_EQ(sum(i8, false, d).item<int32_t>(), 250);
    EXPECT_EQ(prod(arr<int16_t>({300, 300}), false, d).item<int32_t>(), 90000);
    EXPECT_EQ(sum(arr<uint16_t>({65535, 65535}), false, d).item<uint32_t>(), 131070u);
    EXPECT_EQ(sum(arr<uint64_t>({top_value, 2}), false, d).item<uint64_t>(), 1u);  // wraps
    EXPECT_EQ(max(arr<uint64_t>({5, top_value, 1ULL << 63}), false, d).item<uint64_t>(), top_value);
    EXPECT_EQ(min(arr<uint64_t>({1ULL << 63, top_value, 7}), false, d).item<uint64_t>(), 7u);
    EXPECT_EQ(max(i8, false, d).item<int8_t>(), 100);
    EXPECT_EQ(min(i8, false, d).item<int8_t>(), -50);
    EXPECT_EQ(argmax(arr<uint64_t>({5, top_value, 1ULL << 63}), d).item<uint32_t>(), 1u);
    EXPECT_EQ(argmin(arr<int16_t>({5, -7, 3}), d).item<uint32_t>(), 1u);
    EXPECT_FALSE(all(arr<int8_t>({1, 0}), false, d).item<bool>());
    EXPECT_TRUE(any(arr<uint16_t>({0, 9}), false, d).item<bool>());
    // Empty: sums are 0 in the widened dtype.
    array empty = sum(zeros({0}, int16, d), false, d);
    EXPECT_EQ(empty.dtype(), int32);
    EXPECT_EQ(empty.item<int32_t>(), 0);
    // A long row (the GPU reduces it in two passes): -128..127 repeated.
    const int n = 256 * 400;
    std::vector<int8_t> big(n);
    for (int i = 0; i < n; ++i) big[i] = static_cast<int8_t>(i);
    array b = arr<int8_t>(big);
    EXPECT_EQ(sum(b, false, d).item<int32_t>(), -128 * 400);  // each cycle sums to -128
    EXPECT_EQ(max(b, false, d).item<int8_t>(), 127);
    std::vector<uint64_t> wide(n, 3);
    wide[n - 5] = top_value - 1;
    EXPECT_EQ(max(arr<uint64_t>(wide), false, d).item<uint64_t>(), top_value - 1);
    EXPECT_EQ(min(arr<uint64_t>(wide), false, d).item<uint64_t>(), 3u);
    std::vector<uint16_t> u(n, 65535);
    EXPECT_EQ(sum(arr<uint16_t>(u), false, d).item<uint32_t>(), uint32_t(65535) * n);
  }
}

TEST(MlxDtypes, ScansSortAndIndexing) {
  const uint64_t top = 1ULL << 63;
  for (const Device& d : devices()) {
    SCOPED_TRACE(device_name(d));
    EXPECT_EQ(host<int8_t>(cumsum(arr<int8_t>({100, 100, -1}), 0, false, true, d)),
              (std::vector<int8_t>{100, -56, -57}));
    EXPECT_EQ(host<uint64_t>(cummax(arr<uint64_t>({3, top, 5}), 0, false, true, d)),
              (std::vector<uint64_t>{3, top, top}));
    EXPECT_EQ(host<int16_t>(cummin(arr<int16_t>({3, -300, 5}), 0, false, true, d)),
              (std::vector<int16_t>{3, -300, -300}));
    EXPECT_EQ(host<int8_t>(sort(arr<int8_t>({5, -3, 127, -128, 0}), 0, d)),
              (std::vector<int8_t>{-128, -3, 0, 5, 127}));
    EXPECT_EQ(host<uint16_t>(sort(arr<uint16_t>({65535, 2, 40000, 0}), 0, d)),
              (std::vector<uint16_t>{0, 2, 40000, 65535}));
    EXPECT_EQ(host<uint64_t>(sort(arr<uint64_t>({top + 1, 7, top, 0}), 0, d)),
              (std::vector<uint64_t>{0, 7, top, top + 1}));
    EXPECT_EQ(host<uint32_t>(argsort(arr<int16_t>({-5, 300, -300}), 0, d)),
              (std::vector<uint32_t>{2, 0, 1}));
    EXPECT_EQ(sort(zeros({0}, uint16, d), 0, d).size(), 0u);
    // Gather with indices of every new integer dtype (int8 negative: from the end).
    array src = arr<int16_t>({10, -20, 30, -40});
    EXPECT_EQ(host<int16_t>(take(src, arr<int8_t>({-1, 0}), 0, d)),
              (std::vector<int16_t>{-40, 10}));
    EXPECT_EQ(host<int16_t>(take(src, arr<uint16_t>({2, 1}), 0, d)),
              (std::vector<int16_t>{30, -20}));
    EXPECT_EQ(host<int16_t>(take(src, arr<uint64_t>({3}), 0, d)), (std::vector<int16_t>{-40}));
    // scatter_add wraps in the dtype, next to untouched neighbours.
    array base = arr<int8_t>({120, 1, 2, 3});
    array out =
        scatter_add(base, arr<int32_t>({0, 0, 2}), reshape(arr<int8_t>({5, 5, -4}), {3, 1}), 0, d);
    EXPECT_EQ(host<int8_t>(out), (std::vector<int8_t>{-126, 1, -2, 3}));
    array u64 = scatter_add(arr<uint64_t>({top, 1}), arr<int32_t>({0, 0}),
                            reshape(arr<uint64_t>({top, 5}), {2, 1}), 0, d);
    EXPECT_EQ(host<uint64_t>(u64), (std::vector<uint64_t>{5, 1}));
    // where, concatenate, arange and full in the new dtypes.
    EXPECT_EQ(host<uint16_t>(
                  where(arr<bool>({true, false}), arr<uint16_t>({1, 2}), arr<uint16_t>({3, 4}), d)),
              (std::vector<uint16_t>{1, 4}));
    EXPECT_EQ(host<int8_t>(arange(-3.0, 3.0, 2.0, int8, d)), (std::vector<int8_t>{-3, -1, 1}));
    EXPECT_EQ(host<uint64_t>(full({2}, array(uint64_t{top}), d)),
              (std::vector<uint64_t>{top, top}));
    EXPECT_EQ(host<int16_t>(concatenate({arr<int16_t>({1}), arr<int16_t>({-2, 3})}, 0, d)),
              (std::vector<int16_t>{1, -2, 3}));
  }
}

// ---- random: width 2 gives uint16, the halves of width 4's words.

TEST(MlxDtypes, RandomBitsWidthTwo) {
  for (const Device& d : devices()) {
    SCOPED_TRACE(device_name(d));
    array key = random::key(7);
    array halves = random::bits({8}, 2, key, d);
    EXPECT_EQ(halves.dtype(), uint16);
    auto h = host<uint16_t>(halves);
    auto w = host<uint32_t>(random::bits({4}, 4, key, d));
    for (int i = 0; i < 4; ++i) {
      EXPECT_EQ(h[2 * i], w[i] & 0xffffu) << i;
      EXPECT_EQ(h[2 * i + 1], w[i] >> 16) << i;
    }
    EXPECT_EQ(host<uint16_t>(halves), host<uint16_t>(random::bits({8}, 2, key, kCpu)));
    for (Dtype t : kNewInts) {
      array r = astype(random::randint(array(0), array(9), {500}, t, key, d), int64, d);
      EXPECT_EQ(random::randint(array(0), array(9), {1}, t, key, d).dtype(), t);
      for (auto v : host<int64_t>(r)) ASSERT_TRUE(v >= 0 && v < 9) << t;
    }
    auto r8 = host<int8_t>(random::randint(array(-100), array(100), {2000}, int8, key, d));
    for (auto v : r8) ASSERT_TRUE(v >= -100 && v < 100);
    auto r64 = host<uint64_t>(random::randint(
        array(uint64_t{1ULL << 63}), array(uint64_t{(1ULL << 63) + 10}), {100}, uint64, key, d));
    for (auto v : r64) ASSERT_TRUE(v >= (1ULL << 63) && v < (1ULL << 63) + 10);
  }
}

// ---- float64: CPU math in double; the GPU refuses it.

TEST(MlxDtypes, Float64OnTheCpu) {
  array one = array(1.0, float64);
  array tiny = array(1e-12, float64);
  EXPECT_EQ(subtract(add(one, tiny, kCpu), one, kCpu).item<double>(), (1.0 + 1e-12) - 1.0);
  array x = array({0.1, 0.2, 0.3}, float64);
  EXPECT_EQ(x.dtype(), float64);
  EXPECT_EQ(sum(x, false, kCpu).item<double>(), 0.1 + 0.2 + 0.3);
  auto e = host<double>(exp(x, kCpu));
  for (int i = 0; i < 3; ++i) EXPECT_EQ(e[i], std::exp(0.1 * (i + 1))) << i;
  // float32 loses what float64 keeps.
  EXPECT_EQ(astype(add(one, tiny, kCpu), float32, kCpu).item<float>(), 1.0f);
  // A 2x2 matmul in double.
  array m = array({1.0 + 1e-10, 2.0, 3.0, 4.0}, {2, 2}, float64);
  auto p = host<double>(matmul(m, m, kCpu));
  EXPECT_EQ(p[0], (1.0 + 1e-10) * (1.0 + 1e-10) + 2.0 * 3.0);
  auto sm = host<double>(softmax(array({0.0, 1e-9}, float64), std::vector<int>{0}, false, kCpu));
  EXPECT_NEAR(sm[1] - sm[0], 0.5e-9, 1e-16);
  EXPECT_EQ(add(array(1.0f), one, kCpu).dtype(), float64);
  EXPECT_EQ(host<double>(sort(array({3.0, -1e-300, 2.0}, float64), 0, kCpu)),
            (std::vector<double>{-1e-300, 2.0, 3.0}));
  EXPECT_EQ(host<double>(arange(0.0, 1.0, 0.25, float64, kCpu)),
            (std::vector<double>{0.0, 0.25, 0.5, 0.75}));
  EXPECT_EQ(zeros({0}, float64, kCpu).size(), 0u);
  EXPECT_EQ(host<double>(astype(array(uint64_t{18446744073709551615ULL}), float64, kCpu))[0],
            18446744073709551616.0);
}

TEST(MlxDtypes, Float64OnTheGpuThrows) {
  if (!is_available(kGpu)) GTEST_SKIP() << "no GPU";
  array x = array({1.0, 2.0}, float64);
  auto msg = test_util::error_of([&] { add(x, x, kGpu); });
  EXPECT_NE(msg.find("float64"), std::string::npos) << msg;
  EXPECT_NE(msg.find("GPU"), std::string::npos) << msg;
  EXPECT_THROW(add(x, x, kGpu), std::invalid_argument);
  EXPECT_THROW(astype(x, float32, kGpu), std::invalid_argument);
  EXPECT_THROW(astype(array({1.0f}), float64, kGpu), std::invalid_argument);
  EXPECT_THROW(zeros({2}, float64, kGpu), std::invalid_argument);
  EXPECT_THROW(sum(x, false, kGpu), std::invalid_argument);
  EXPECT_THROW(exp(x, kGpu), std::invalid_argument);
  // The default device too, as MLX.
  {
    StreamContext ctx(kGpu);
    EXPECT_THROW(multiply(x, x), std::invalid_argument);
  }
  // The same ops run on the CPU.
  EXPECT_EQ(add(x, x, kCpu).dtype(), float64);
}

}  // namespace
