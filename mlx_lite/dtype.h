/// \file
/// Element types and MLX's type promotion.
#pragma once

#include <cstdint>
#include <ostream>
#include <string_view>
#include <type_traits>

#include "mlx_lite/types/half_types.h"

namespace mlx_lite {

/// An element type: one of the dtype constants (bool_, uint8, uint16, uint32,
/// uint64, int8, int16, int32, int64, float16, float32, float64, bfloat16) and
/// its size. MLX's complex64 is not provided.
struct Dtype {
  /// The element types, in MLX's order (MLX's complex64 would come last).
  enum class Val : uint8_t {
    bool_,
    uint8,
    uint16,
    uint32,
    uint64,
    int8,
    int16,
    int32,
    int64,
    float16,
    float32,
    float64,
    bfloat16
  };
  /// The kind letter of numpy's array protocol, as MLX gives it: b(ool),
  /// u(nsigned), i(nteger), f(loat), c(omplex, never returned here) and V
  /// (void: bfloat16, which numpy has no letter for).
  enum class Kind { b, u, i, f, c, V };
  /// The abstract categories of issubdtype, numpy's hierarchy: floating and
  /// complexfloating are inexact; signedinteger and unsignedinteger are
  /// integer; inexact and integer are number; everything is generic.
  enum class Category {
    complexfloating,
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
/// Unsigned 16-bit integers.
inline constexpr Dtype uint16{Dtype::Val::uint16, 2};
/// Unsigned 32-bit integers.
inline constexpr Dtype uint32{Dtype::Val::uint32, 4};
/// Unsigned 64-bit integers.
inline constexpr Dtype uint64{Dtype::Val::uint64, 8};
/// Signed 8-bit integers.
inline constexpr Dtype int8{Dtype::Val::int8, 1};
/// Signed 16-bit integers.
inline constexpr Dtype int16{Dtype::Val::int16, 2};
/// Signed 32-bit integers.
inline constexpr Dtype int32{Dtype::Val::int32, 4};
/// Signed 64-bit integers.
inline constexpr Dtype int64{Dtype::Val::int64, 8};
/// IEEE half-precision floats (float16_t).
inline constexpr Dtype float16{Dtype::Val::float16, 2};
/// IEEE single-precision floats (float).
inline constexpr Dtype float32{Dtype::Val::float32, 4};
/// IEEE double-precision floats (double). CPU only, as in MLX: an op on a
/// GPU stream with a float64 input or output throws std::invalid_argument.
inline constexpr Dtype float64{Dtype::Val::float64, 8};
/// Brain floats: float32's exponent, 8 bits of precision (bfloat16_t).
inline constexpr Dtype bfloat16{Dtype::Val::bfloat16, 2};
/// @}

/// \name The categories of issubdtype
/// @{

/// Complex floats (there are none here; no dtype belongs to it).
inline constexpr Dtype::Category complexfloating = Dtype::Category::complexfloating;
/// float16, float32, float64 and bfloat16.
inline constexpr Dtype::Category floating = Dtype::Category::floating;
/// floating and complexfloating.
inline constexpr Dtype::Category inexact = Dtype::Category::inexact;
/// int8, int16, int32 and int64.
inline constexpr Dtype::Category signedinteger = Dtype::Category::signedinteger;
/// uint8, uint16, uint32 and uint64.
inline constexpr Dtype::Category unsignedinteger = Dtype::Category::unsignedinteger;
/// Signed and unsigned integers, not bool_.
inline constexpr Dtype::Category integer = Dtype::Category::integer;
/// Every dtype but bool_.
inline constexpr Dtype::Category number = Dtype::Category::number;
/// Every dtype.
inline constexpr Dtype::Category generic = Dtype::Category::generic;
/// @}

/// Every dtype, in Dtype::Val's order. float64 is among them, though only
/// the CPU computes in it.
inline constexpr Dtype all_dtypes[] = {bool_, uint8, uint16,  uint32,  uint64,  int8,    int16,
                                       int32, int64, float16, float32, float64, bfloat16};

/// Same type.
constexpr bool operator==(const Dtype& a, const Dtype& b) {
  return a.val == b.val;
}

/// Bytes per element of `t`.
inline uint8_t size_of(const Dtype& t) {
  return t.size;
}
/// The kind of `t`, as MLX's kindof: b for bool_, u for the unsigned
/// integers, i for the signed ones, f for float16, float32 and float64, V
/// for bfloat16.
Dtype::Kind kindof(const Dtype& t);
/// Whether `t` is float16, float32, float64 or bfloat16.
bool is_floating_point(const Dtype& t);
/// Whether `t` is a signed or unsigned integer; bool_ is not integral.
bool is_integral(const Dtype& t);
/// Whether `t` is uint8, uint16, uint32 or uint64 (not bool_).
bool is_unsigned(const Dtype& t);
/// Whether `t` is complex: never, as this subset has no complex dtype (MLX's
/// is_complex).
bool is_complex(const Dtype& t);

/// issubdtype, numpy's and MLX's: whether the first argument is the second or lies under it in
/// numpy's hierarchy (Dtype::Category). A dtype is under its category and that category's parents:
/// issubdtype(int8, signedinteger), issubdtype(int8, integer), issubdtype(int8, number) and
/// issubdtype(int8, generic) hold; bool_ is only under generic. Two dtypes: only when equal. A
/// category is never under a dtype.
/// @{
bool issubdtype(const Dtype& a, const Dtype& b);
bool issubdtype(const Dtype::Category& a, const Dtype& b);
bool issubdtype(const Dtype& a, const Dtype::Category& b);
bool issubdtype(const Dtype::Category& a, const Dtype::Category& b);
/// @}

/// MLX's promotion table (JAX's rules): the smallest type that represents
/// both operands' values. Mixed signed and unsigned integers widen (int8
/// with uint8 gives int16, uint32 with int32 gives int64), uint64 with a
/// signed integer gives float32; any integer with a float gives the float;
/// float16 with bfloat16 gives float32; float64 with anything gives float64.
Dtype promote_types(const Dtype& t1, const Dtype& t2);

/// The name of `t`: "float32", "bool", ...
std::string_view dtype_name(const Dtype& t);
/// Prints dtype_name(t).
std::ostream& operator<<(std::ostream& os, const Dtype& t);

/// The Dtype of a C++ element type: each fixed-width integer type its own
/// (int8_t is int8, uint16_t uint16, ...; long long and unsigned long long
/// are int64 and uint64), float16_t, bfloat16_t and float theirs. double maps
/// to float32, as in MLX, so that array(1.5) is float32; ask for float64
/// explicitly (array(1.5, float64)). Another type does not compile.
template <typename T>
constexpr Dtype TypeToDtype() {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, bool>)
    return bool_;
  else if constexpr (std::is_integral_v<U> && std::is_unsigned_v<U>)
    return sizeof(U) == 1 ? uint8 : sizeof(U) == 2 ? uint16 : sizeof(U) == 4 ? uint32 : uint64;
  else if constexpr (std::is_integral_v<U>)
    return sizeof(U) == 1 ? int8 : sizeof(U) == 2 ? int16 : sizeof(U) == 4 ? int32 : int64;
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
/// bool, the fixed-width integer types (uint8_t ... int64_t), float16_t,
/// float, double and bfloat16_t.
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
struct DtypeToType<Dtype::Val::uint16> {
  using type = uint16_t;
};
template <>
struct DtypeToType<Dtype::Val::uint32> {
  using type = uint32_t;
};
template <>
struct DtypeToType<Dtype::Val::uint64> {
  using type = uint64_t;
};
template <>
struct DtypeToType<Dtype::Val::int8> {
  using type = int8_t;
};
template <>
struct DtypeToType<Dtype::Val::int16> {
  using type = int16_t;
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
struct DtypeToType<Dtype::Val::float32> {
  using type = float;
};
template <>
struct DtypeToType<Dtype::Val::float64> {
  using type = double;
};
template <>
struct DtypeToType<Dtype::Val::bfloat16> {
  using type = bfloat16_t;
};
/// \endcond

/// Calls `f.template operator()<T>()` with T the C++ type of `dtype`
/// (DtypeToType), so one generic lambda serves every dtype:
/// `dispatch_dtype(d, [&]<typename T>() {...})`.
template <typename F>
decltype(auto) dispatch_dtype(const Dtype& dtype, F&& f) {
  switch (dtype.val) {
    case Dtype::Val::bool_:
      return f.template operator()<bool>();
    case Dtype::Val::uint8:
      return f.template operator()<uint8_t>();
    case Dtype::Val::uint16:
      return f.template operator()<uint16_t>();
    case Dtype::Val::uint32:
      return f.template operator()<uint32_t>();
    case Dtype::Val::uint64:
      return f.template operator()<uint64_t>();
    case Dtype::Val::int8:
      return f.template operator()<int8_t>();
    case Dtype::Val::int16:
      return f.template operator()<int16_t>();
    case Dtype::Val::int32:
      return f.template operator()<int32_t>();
    case Dtype::Val::int64:
      return f.template operator()<int64_t>();
    case Dtype::Val::float16:
      return f.template operator()<float16_t>();
    case Dtype::Val::float32:
      return f.template operator()<float>();
    case Dtype::Val::float64:
      return f.template operator()<double>();
    case Dtype::Val::bfloat16:
      break;
  }
  return f.template operator()<bfloat16_t>();
}

/// The type kernels compute in: float for the 16-bit floats, else the type itself.
template <typename T>
using compute_type_t =
    std::conditional_t<std::is_same_v<T, float16_t> || std::is_same_v<T, bfloat16_t>, float, T>;

}  // namespace mlx_lite
