#include "mlx_lite/dtype.h"

#include <array>

namespace mlx_lite {

namespace {

constexpr int kNumTypes = std::size(all_dtypes);
constexpr int kNumCategories = 8;

constexpr int index(const Dtype& t) {
  return static_cast<int>(t.val);
}

// clang-format off
// MLX's promotion table (JAX's lattice), rows and columns in Dtype::Val's order.
constexpr Dtype::Val kPromotion[kNumTypes][kNumTypes] = {
#define V(x) Dtype::Val::x
// bool       uint8      uint16     uint32     uint64     int8       int16      int32      int64      float16    float32    float64    bfloat16
  {V(bool_),  V(uint8),  V(uint16), V(uint32), V(uint64), V(int8),   V(int16),  V(int32),  V(int64),  V(float16), V(float32), V(float64), V(bfloat16)},  // bool
  {V(uint8),  V(uint8),  V(uint16), V(uint32), V(uint64), V(int16),  V(int16),  V(int32),  V(int64),  V(float16), V(float32), V(float64), V(bfloat16)},  // uint8
  {V(uint16), V(uint16), V(uint16), V(uint32), V(uint64), V(int32),  V(int32),  V(int32),  V(int64),  V(float16), V(float32), V(float64), V(bfloat16)},  // uint16
  {V(uint32), V(uint32), V(uint32), V(uint32), V(uint64), V(int64),  V(int64),  V(int64),  V(int64),  V(float16), V(float32), V(float64), V(bfloat16)},  // uint32
  {V(uint64), V(uint64), V(uint64), V(uint64), V(uint64), V(float32),V(float32),V(float32),V(float32),V(float16), V(float32), V(float64), V(bfloat16)},  // uint64
  {V(int8),   V(int16),  V(int32),  V(int64),  V(float32),V(int8),   V(int16),  V(int32),  V(int64),  V(float16), V(float32), V(float64), V(bfloat16)},  // int8
  {V(int16),  V(int16),  V(int32),  V(int64),  V(float32),V(int16),  V(int16),  V(int32),  V(int64),  V(float16), V(float32), V(float64), V(bfloat16)},  // int16
  {V(int32),  V(int32),  V(int32),  V(int64),  V(float32),V(int32),  V(int32),  V(int32),  V(int64),  V(float16), V(float32), V(float64), V(bfloat16)},  // int32
  {V(int64),  V(int64),  V(int64),  V(int64),  V(float32),V(int64),  V(int64),  V(int64),  V(int64),  V(float16), V(float32), V(float64), V(bfloat16)},  // int64
  {V(float16),V(float16),V(float16),V(float16),V(float16),V(float16),V(float16),V(float16),V(float16),V(float16), V(float32), V(float64), V(float32)},   // float16
  {V(float32),V(float32),V(float32),V(float32),V(float32),V(float32),V(float32),V(float32),V(float32),V(float32), V(float32), V(float64), V(float32)},   // float32
  {V(float64),V(float64),V(float64),V(float64),V(float64),V(float64),V(float64),V(float64),V(float64),V(float64), V(float64), V(float64), V(float64)},   // float64
  {V(bfloat16),V(bfloat16),V(bfloat16),V(bfloat16),V(bfloat16),V(bfloat16),V(bfloat16),V(bfloat16),V(bfloat16),V(float32),V(float32),V(float64),V(bfloat16)},  // bfloat16
#undef V
};

// Whether category a (row) lies under category b (column), in Dtype::Category's order.
constexpr bool kUnder[kNumCategories][kNumCategories] = {
// complexfloating floating inexact signedinteger unsignedinteger integer number generic
  {true,           false,   true,   false,        false,          false,  true,  true},  // complexfloating
  {false,          true,    true,   false,        false,          false,  true,  true},  // floating
  {false,          false,   true,   false,        false,          false,  true,  true},  // inexact
  {false,          false,   false,  true,         false,          true,   true,  true},  // signedinteger
  {false,          false,   false,  false,        true,           true,   true,  true},  // unsignedinteger
  {false,          false,   false,  false,        false,          true,   true,  true},  // integer
  {false,          false,   false,  false,        false,          false,  true,  true},  // number
  {false,          false,   false,  false,        false,          false,  false, true},  // generic
};
// clang-format on

Dtype from_val(Dtype::Val v) {
  return all_dtypes[static_cast<int>(v)];
}

}  // namespace

Dtype promote_types(const Dtype& t1, const Dtype& t2) {
  return from_val(kPromotion[index(t1)][index(t2)]);
}

Dtype::Kind kindof(const Dtype& t) {
  switch (t.val) {
    case Dtype::Val::bool_:
      return Dtype::Kind::b;
    case Dtype::Val::uint8:
    case Dtype::Val::uint16:
    case Dtype::Val::uint32:
    case Dtype::Val::uint64:
      return Dtype::Kind::u;
    case Dtype::Val::int8:
    case Dtype::Val::int16:
    case Dtype::Val::int32:
    case Dtype::Val::int64:
      return Dtype::Kind::i;
    case Dtype::Val::bfloat16:
      return Dtype::Kind::V;
    default:
      return Dtype::Kind::f;
  }
}

bool is_floating_point(const Dtype& t) {
  auto k = kindof(t);
  return k == Dtype::Kind::f || k == Dtype::Kind::V;
}
bool is_unsigned(const Dtype& t) {
  return kindof(t) == Dtype::Kind::u;
}
bool is_integral(const Dtype& t) {
  auto k = kindof(t);
  return k == Dtype::Kind::u || k == Dtype::Kind::i;
}
bool is_complex(const Dtype&) {
  return false;
}

bool issubdtype(const Dtype& a, const Dtype& b) {
  return a == b;
}
bool issubdtype(const Dtype::Category&, const Dtype&) {
  return false;  // a category is never under a single dtype, as in numpy and MLX
}
bool issubdtype(const Dtype& a, const Dtype::Category& b) {
  Dtype::Category narrowest = Dtype::Category::generic;  // bool_
  if (is_floating_point(a)) {
    narrowest = Dtype::Category::floating;
  } else if (kindof(a) == Dtype::Kind::i) {
    narrowest = Dtype::Category::signedinteger;
  } else if (kindof(a) == Dtype::Kind::u) {
    narrowest = Dtype::Category::unsignedinteger;
  }
  return issubdtype(narrowest, b);
}
bool issubdtype(const Dtype::Category& a, const Dtype::Category& b) {
  return kUnder[static_cast<int>(a)][static_cast<int>(b)];
}

std::string_view dtype_name(const Dtype& t) {
  static constexpr std::array<std::string_view, kNumTypes> names = {
      "bool",  "uint8", "uint16",  "uint32",  "uint64",  "int8",    "int16",
      "int32", "int64", "float16", "float32", "float64", "bfloat16"};
  const auto i = static_cast<size_t>(index(t));
  return i < names.size() ? names[i] : std::string_view("unknown");
}

std::ostream& operator<<(std::ostream& os, const Dtype& t) {
  return os << dtype_name(t);
}

}  // namespace mlx_lite
