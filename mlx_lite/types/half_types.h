/// \file
/// 16-bit float storage types. Arithmetic happens in float: both types convert
/// implicitly to and from float, so kernels load, compute in float, and store.
#pragma once

#include <bit>
#include <cstdint>

namespace mlx_lite {

namespace detail {

// IEEE binary16 from binary32, rounding to nearest even; handles subnormals,
// infinities and NaN (which stays a quiet NaN).
constexpr uint16_t float_to_half_bits(float value) {
  const uint32_t f = std::bit_cast<uint32_t>(value);
  const uint32_t sign = (f >> 16) & 0x8000u;
  const uint32_t abs = f & 0x7fffffffu;
  if (abs >= 0x7f800000u) {  // inf or nan
    return static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
  }
  if (abs >= 0x477ff000u) {  // rounds to a value beyond the largest half: inf
    return static_cast<uint16_t>(sign | 0x7c00u);
  }
  if (abs < 0x38800000u) {                                      // half subnormal or zero
    if (abs < 0x33000000u) return static_cast<uint16_t>(sign);  // below half of the smallest
    const uint32_t exponent = abs >> 23;
    const uint32_t mantissa = (abs & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126 - exponent;  // 14..24
    uint32_t half = mantissa >> shift;
    const uint32_t rest = mantissa & ((1u << shift) - 1);
    const uint32_t halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half & 1u))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = ((abs - 0x38000000u) >> 13);  // rebias exponent 127 -> 15
  const uint32_t rest = abs & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) ++half;
  return static_cast<uint16_t>(sign | half);
}

constexpr float half_bits_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1fu;
  uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
  if (exponent == 0) {
    if (mantissa == 0) return std::bit_cast<float>(sign);
    int e = -1;  // normalize the subnormal
    do {
      ++e;
      mantissa <<= 1;
    } while ((mantissa & 0x400u) == 0);
    return std::bit_cast<float>(sign | ((112u - e) << 23) | ((mantissa & 0x3ffu) << 13));
  }
  return std::bit_cast<float>(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

// bfloat16 keeps float's exponent: the top 16 bits, rounded to nearest even.
constexpr uint16_t float_to_bfloat_bits(float value) {
  const uint32_t f = std::bit_cast<uint32_t>(value);
  if ((f & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((f >> 16) | 0x40u);  // quiet nan
  const uint32_t rounding = 0x7fffu + ((f >> 16) & 1u);
  return static_cast<uint16_t>((f + rounding) >> 16);
}

constexpr float bfloat_bits_to_float(uint16_t b) {
  return std::bit_cast<float>(static_cast<uint32_t>(b) << 16);
}

}  // namespace detail

/// An IEEE binary16 float, the element type of float16.
struct float16_t {
  /// The binary16 encoding.
  uint16_t bits = 0;
  /// Zero.
  constexpr float16_t() = default;
  /// `value` rounded to nearest even; beyond the largest half it becomes
  /// infinity, and NaN stays NaN.
  constexpr float16_t(float value) : bits(detail::float_to_half_bits(value)) {}
  /// The value as a float (exact).
  constexpr operator float() const { return detail::half_bits_to_float(bits); }
  /// The float16_t whose encoding is `b`.
  static constexpr float16_t from_bits(uint16_t b) {
    float16_t h;
    h.bits = b;
    return h;
  }
};

/// A bfloat16 (the top half of a float32), the element type of bfloat16.
struct bfloat16_t {
  /// The encoding: the top 16 bits of a float32.
  uint16_t bits = 0;
  /// Zero.
  constexpr bfloat16_t() = default;
  /// `value` rounded to nearest even; NaN stays NaN.
  constexpr bfloat16_t(float value) : bits(detail::float_to_bfloat_bits(value)) {}
  /// The value as a float (exact).
  constexpr operator float() const { return detail::bfloat_bits_to_float(bits); }
  /// The bfloat16_t whose encoding is `b`.
  static constexpr bfloat16_t from_bits(uint16_t b) {
    bfloat16_t h;
    h.bits = b;
    return h;
  }
};

static_assert(sizeof(float16_t) == 2 && sizeof(bfloat16_t) == 2);

}  // namespace mlx_lite
