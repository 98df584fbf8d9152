// Integer arithmetic that wraps modulo 2^bits, as numpy's and the GPU's do.
// A signed overflow is undefined behaviour in C++, and so is an unsigned
// 16-bit product past INT_MAX (both operands promote to int), so the
// arithmetic happens in an unsigned type at least as wide as unsigned int;
// C++20 defines the conversion back as modular.
#pragma once

#include <type_traits>

namespace mlx_lite::cpu {

template <typename C>
using wrapping_unsigned_t = std::make_unsigned_t<std::common_type_t<C, unsigned>>;

/// op(x, y) for + - * on integers, wrapped into C; floats and bool as is.
template <typename C, typename F>
C wrapping(C x, C y, F op) {
  if constexpr (std::is_integral_v<C> && !std::is_same_v<C, bool>) {
    using U = wrapping_unsigned_t<C>;
    return static_cast<C>(op(static_cast<U>(x), static_cast<U>(y)));
  } else {
    return op(x, y);
  }
}

/// -x, wrapped into C for integers (-INT_MIN is INT_MIN, as on the GPU).
template <typename C>
C wrapping_negate(C x) {
  if constexpr (std::is_integral_v<C> && !std::is_same_v<C, bool>) {
    return static_cast<C>(wrapping_unsigned_t<C>(0) - static_cast<wrapping_unsigned_t<C>>(x));
  } else {
    return static_cast<C>(-x);
  }
}

}  // namespace mlx_lite::cpu
