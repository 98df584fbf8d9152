/// \file
/// Counter-based random numbers (threefry2x32, as MLX): the same key gives the
/// same numbers on every device and in every run.
#pragma once

#include <optional>
#include <utility>

#include "mlx_lite/array.h"
#include "mlx_lite/device.h"

/// Random numbers (MLX's `mlx::core::random`). Every sampler takes an
/// optional key; without one it draws from the global key sequence, which
/// seed() sets (it starts from the clock, as in MLX).
namespace mlx_lite::random {

/// A PRNG key (uint32, shape {2}) from a seed.
array key(uint64_t seed);
/// Seeds the global key used when no key is passed.
void seed(uint64_t seed);

/// Random bits of `width` bytes (1, 2 or 4; 4 by default) per element: uint8
/// for width 1, else uint32. A key has shape {2}, or {K1, ..., Kk, 2} where
/// K1, ..., Kk lead `shape` (a key per leading index). Throws
/// std::invalid_argument for another width, a negative dim, or a key of
/// another dtype or shape.
/// @{
array bits(const Shape& shape, int width, const std::optional<array>& key = std::nullopt,
           StreamOrDevice s = {});
array bits(const Shape& shape, const std::optional<array>& key = std::nullopt,
           StreamOrDevice s = {});
/// @}

/// Splits a key (shape {2}) into two new keys, or into `num` keys as one
/// array of shape {num, 2}. Throws std::invalid_argument for a key of
/// another shape or a negative num.
/// @{
std::pair<array, array> split(const array& key, StreamOrDevice s = {});
array split(const array& key, int num, StreamOrDevice s = {});
/// @}

/// Uniform on [low, high) ([0, 1) by default), of `shape` and a floating
/// `dtype` (float32 by default); low and high broadcast to `shape`. Throws
/// std::invalid_argument for another dtype or bounds that broadcast beyond
/// `shape`.
/// @{
array uniform(const array& low, const array& high, const Shape& shape, Dtype dtype = float32,
              const std::optional<array>& key = std::nullopt, StreamOrDevice s = {});
template <typename T, typename U>
array uniform(T low, U high, const Shape& shape, Dtype dtype = float32,
              const std::optional<array>& key = std::nullopt, StreamOrDevice s = {}) {
  return uniform(array(low), array(high), shape, dtype, key, s);
}
array uniform(const Shape& shape, Dtype dtype, const std::optional<array>& key = std::nullopt,
              StreamOrDevice s = {});
array uniform(const Shape& shape, const std::optional<array>& key = std::nullopt,
              StreamOrDevice s = {});
/// @}

/// Normal samples of `shape` and a floating `dtype` (float32 by default),
/// with mean `loc` and standard deviation `scale` (0 and 1 by default; as
/// arrays, they broadcast to `shape`). Throws std::invalid_argument for
/// another dtype or a loc or scale that broadcasts beyond `shape`.
/// @{
array normal(const Shape& shape, Dtype dtype, const std::optional<array>& loc,
             const std::optional<array>& scale, const std::optional<array>& key,
             StreamOrDevice s = {});
array normal(const Shape& shape, Dtype dtype, float loc, float scale,
             const std::optional<array>& key = std::nullopt, StreamOrDevice s = {});
array normal(const Shape& shape, Dtype dtype, const std::optional<array>& key = std::nullopt,
             StreamOrDevice s = {});
array normal(const Shape& shape, const std::optional<array>& key = std::nullopt,
             StreamOrDevice s = {});
/// @}

}  // namespace mlx_lite::random
