#include "mlx_lite/dtype.h"

#include <array>

namespace mlx_lite {

namespace {

constexpr int kNumTypes = 8;

// Row and column follow Dtype::Val's order: b, u8, u32, i32, i64, f16, bf16, f32.
constexpr Dtype::Val kPromotion[kNumTypes][kNumTypes] = {
#define V(x) Dtype::Val::x
    {V(bool_), V(uint8), V(uint32), V(int32), V(int64), V(float16), V(bfloat16), V(float32)},
    {V(uint8), V(uint8), V(uint32), V(int32), V(int64), V(float16), V(bfloat16), V(float32)},
    {V(uint32), V(uint32), V(uint32), V(int64), V(int64), V(float16), V(bfloat16), V(float32)},
    {V(int32), V(int32), V(int64), V(int32), V(int64), V(float16), V(bfloat16), V(float32)},
    {V(int64), V(int64), V(int64), V(int64), V(int64), V(float16), V(bfloat16), V(float32)},
    {V(float16), V(float16), V(float16), V(float16), V(float16), V(float16), V(float32),
     V(float32)},
    {V(bfloat16), V(bfloat16), V(bfloat16), V(bfloat16), V(bfloat16), V(float32), V(bfloat16),
     V(float32)},
    {V(float32), V(float32), V(float32), V(float32), V(float32), V(float32), V(float32),
     V(float32)},
#undef V
};

Dtype from_val(Dtype::Val v) {
  for (const auto& t : all_dtypes) {
    if (t.val == v) return t;
  }
  return float32;
}

}  // namespace

Dtype promote_types(const Dtype& t1, const Dtype& t2) {
  return from_val(kPromotion[static_cast<int>(t1.val)][static_cast<int>(t2.val)]);
}

Dtype::Kind kindof(const Dtype& t) {
  switch (t.val) {
    case Dtype::Val::bool_:
      return Dtype::Kind::b;
    case Dtype::Val::uint8:
    case Dtype::Val::uint32:
      return Dtype::Kind::u;
    case Dtype::Val::int32:
    case Dtype::Val::int64:
      return Dtype::Kind::i;
    default:
      return Dtype::Kind::f;
  }
}

bool is_floating_point(const Dtype& t) {
  return kindof(t) == Dtype::Kind::f;
}
bool is_unsigned(const Dtype& t) {
  return kindof(t) == Dtype::Kind::u;
}
bool is_integral(const Dtype& t) {
  auto k = kindof(t);
  return k == Dtype::Kind::u || k == Dtype::Kind::i;
}

bool issubdtype(const Dtype& t, const Dtype::Category& category) {
  switch (category) {
    case Dtype::Category::floating:
    case Dtype::Category::inexact:
      return is_floating_point(t);
    case Dtype::Category::signedinteger:
      return kindof(t) == Dtype::Kind::i;
    case Dtype::Category::unsignedinteger:
      return is_unsigned(t);
    case Dtype::Category::integer:
      return is_integral(t);
    case Dtype::Category::number:
      return t != bool_;
    case Dtype::Category::generic:
      return true;
  }
  return false;
}

bool issubdtype(const Dtype& a, const Dtype& b) {
  return a == b;
}

std::string_view dtype_name(const Dtype& t) {
  static constexpr std::array<std::string_view, kNumTypes> names = {
      "bool", "uint8", "uint32", "int32", "int64", "float16", "bfloat16", "float32"};
  return names[static_cast<int>(t.val)];
}

std::ostream& operator<<(std::ostream& os, const Dtype& t) {
  return os << dtype_name(t);
}

}  // namespace mlx_lite
