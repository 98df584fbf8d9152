/// \file
/// Element types and MLX's type promotion.
#pragma once

#include <cstdint>
#include <ostream>
#include <string_view>
#include <type_traits>

#include "mlx_lite/types/half_types.h"

namespace mlx_lite {

/// An element type: one of the eight dtype constants (bool_, uint8, uint32,
/// int32, int64, float16, bfloat16, float32) and its size.
struct Dtype {
  /// The element types.
  enum class Val : uint8_t { bool_, uint8, uint32, int32, int64, float16, bfloat16, float32 };
  /// The kind letter numpy and MLX use: b(ool), u(nsigned), i(nteger), f(loat).
  enum class Kind { b, u, i, f };
  /// The abstract categories of issubdtype.
  enum class Category {
    floating,
    inexact,
    signedinteger,
    unsignedinteger,
    integer,
    number,
    generic
  };

  /// Which type.
  Val val;
  /// Bytes per element.
  uint8_t size;
  /// A Dtype; use the constants (float32, ...) rather than this.
  constexpr Dtype(Val val, uint8_t size) : val(val), size(size) {}
  /// `val`, so a Dtype works in a switch.
  constexpr operator Val() const { return val; }
};

/// \name The dtypes
/// @{

/// Booleans, a byte each.
inline constexpr Dtype bool_{Dtype::Val::bool_, 1};
/// Unsigned 8-bit integers.
inline constexpr Dtype uint8{Dtype::Val::uint8, 1};
/// Unsigned 32-bit integers.
inline constexpr Dtype uint32{Dtype::Val::uint32, 4};
/// Signed 32-bit integers.
inline constexpr Dtype int32{Dtype::Val::int32, 4};
/// Signed 64-bit integers.
inline constexpr Dtype int64{Dtype::Val::int64, 8};
/// IEEE half-precision floats (float16_t).
inline constexpr Dtype float16{Dtype::Val::float16, 2};
/// Brain floats: float32's exponent, 8 bits of precision (bfloat16_t).
inline constexpr Dtype bfloat16{Dtype::Val::bfloat16, 2};
/// IEEE single-precision floats (float).
inline constexpr Dtype float32{Dtype::Val::float32, 4};
/// @}

/// \name The categories of issubdtype
/// @{

/// The floats.
inline constexpr Dtype::Category floating = Dtype::Category::floating;
/// The floats (there are no complex types).
inline constexpr Dtype::Category inexact = Dtype::Category::inexact;
/// int32 and int64.
inline constexpr Dtype::Category signedinteger = Dtype::Category::signedinteger;
/// uint8 and uint32.
inline constexpr Dtype::Category unsignedinteger = Dtype::Category::unsignedinteger;
/// Signed and unsigned integers, not bool_.
inline constexpr Dtype::Category integer = Dtype::Category::integer;
/// Every dtype but bool_.
inline constexpr Dtype::Category number = Dtype::Category::number;
/// Every dtype.
inline constexpr Dtype::Category generic = Dtype::Category::generic;
/// @}

/// Every dtype, in Dtype::Val's order.
inline constexpr Dtype all_dtypes[] = {bool_, uint8,   uint32,   int32,
                                       int64, float16, bfloat16, float32};

/// Same type.
constexpr bool operator==(const Dtype& a, const Dtype& b) {
  return a.val == b.val;
}

/// Bytes per element of `t`.
inline uint8_t size_of(const Dtype& t) {
  return t.size;
}
/// The kind of `t`: b for bool_, u for uint8 and uint32, i for int32 and int64,
/// f for the floats.
Dtype::Kind kindof(const Dtype& t);
/// Whether `t` is float16, bfloat16 or float32.
bool is_floating_point(const Dtype& t);
/// Whether `t` is a signed or unsigned integer; bool_ is not integral, as in MLX.
bool is_integral(const Dtype& t);
/// Whether `t` is uint8 or uint32.
bool is_unsigned(const Dtype& t);
/// Whether `t` belongs to `category` (numpy's abstract types: floating and
/// inexact are the floats, number everything but bool_, generic everything).
bool issubdtype(const Dtype& t, const Dtype::Category& category);
/// Whether `a` is `b`.
bool issubdtype(const Dtype& a, const Dtype& b);

/// MLX's promotion table: the smallest type that represents both operands'
/// values (uint32 with int32 gives int64; any integer with a float gives the float;
/// float16 with bfloat16 gives float32).
Dtype promote_types(const Dtype& t1, const Dtype& t2);

/// The name of `t`: "float32", "bool", ...
std::string_view dtype_name(const Dtype& t);
/// Prints dtype_name(t).
std::ostream& operator<<(std::ostream& os, const Dtype& t);

/// The Dtype of a C++ element type. double maps to float32 and 64-bit unsigned
/// to int64, since this subset has neither float64 nor uint64; 8- and 16-bit
/// signed integers map to int32 and uint16_t to uint32. Another type does not
/// compile.
template <typename T>
constexpr Dtype TypeToDtype() {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, bool>)
    return bool_;
  else if constexpr (std::is_same_v<U, uint8_t>)
    return uint8;
  else if constexpr (std::is_same_v<U, uint16_t> || std::is_same_v<U, uint32_t>)
    return uint32;
  else if constexpr (std::is_same_v<U, int8_t> || std::is_same_v<U, int16_t> ||
                     std::is_same_v<U, int32_t>)
    return int32;
  else if constexpr (std::is_integral_v<U> && sizeof(U) == 8)
    return int64;
  else if constexpr (std::is_same_v<U, float16_t>)
    return float16;
  else if constexpr (std::is_same_v<U, bfloat16_t>)
    return bfloat16;
  else if constexpr (std::is_same_v<U, float> || std::is_same_v<U, double>)
    return float32;
  else
    static_assert(sizeof(U) == 0, "no mlx_lite Dtype for this C++ type");
}

/// C++ types an array can be built from: arithmetic types and the 16-bit floats.
template <typename T>
concept ArrayScalar =
    std::is_arithmetic_v<std::remove_cv_t<T>> || std::is_same_v<std::remove_cv_t<T>, float16_t> ||
    std::is_same_v<std::remove_cv_t<T>, bfloat16_t>;

/// The C++ element type stored for each Dtype, as `DtypeToType<V>::type`:
/// bool, uint8_t, uint32_t, int32_t, int64_t, float16_t, bfloat16_t and float.
template <Dtype::Val V>
struct DtypeToType;
/// \cond
// The specializations, documented with the declaration above.
template <>
struct DtypeToType<Dtype::Val::bool_> {
  using type = bool;
};
template <>
struct DtypeToType<Dtype::Val::uint8> {
  using type = uint8_t;
};
template <>
struct DtypeToType<Dtype::Val::uint32> {
  using type = uint32_t;
};
template <>
struct DtypeToType<Dtype::Val::int32> {
  using type = int32_t;
};
template <>
struct DtypeToType<Dtype::Val::int64> {
  using type = int64_t;
};
template <>
struct DtypeToType<Dtype::Val::float16> {
  using type = float16_t;
};
template <>
struct DtypeToType<Dtype::Val::bfloat16> {
  using type = bfloat16_t;
};
template <>
struct DtypeToType<Dtype::Val::float32> {
  using type = float;
};
/// \endcond

/// Calls `f.template operator()<T>()` with T the C++ type of `dtype`, so one
/// generic lambda serves every dtype: `dispatch_dtype(d, [&]<typename T>() {...})`.
template <typename F>
decltype(auto) dispatch_dtype(const Dtype& dtype, F&& f) {
  switch (dtype.val) {
    case Dtype::Val::bool_:
      return f.template operator()<bool>();
    case Dtype::Val::uint8:
      return f.template operator()<uint8_t>();
    case Dtype::Val::uint32:
      return f.template operator()<uint32_t>();
    case Dtype::Val::int32:
      return f.template operator()<int32_t>();
    case Dtype::Val::int64:
      return f.template operator()<int64_t>();
    case Dtype::Val::float16:
      return f.template operator()<float16_t>();
    case Dtype::Val::bfloat16:
      return f.template operator()<bfloat16_t>();
    case Dtype::Val::float32:
      break;
  }
  return f.template operator()<float>();
}

/// The type kernels compute in: float for the 16-bit floats, else the type itself.
template <typename T>
using compute_type_t =
    std::conditional_t<std::is_same_v<T, float16_t> || std::is_same_v<T, bfloat16_t>, float, T>;

}  // namespace mlx_lite
