// Counter-based random numbers (threefry2x32, as MLX): the same key gives the
// same numbers on every device and in every run.
#pragma once

#include <optional>
#include <utility>

#include "mlx_lite/array.h"
#include "mlx_lite/device.h"

namespace mlx_lite::random {

// A PRNG key (uint32, shape {2}) from a seed.
array key(uint64_t seed);
// Seeds the global key used when no key is passed.
void seed(uint64_t seed);

// Random bits of `width` bytes (1, 2 or 4) per element.
array bits(const Shape& shape, int width, const std::optional<array>& key = std::nullopt,
           StreamOrDevice s = {});
array bits(const Shape& shape, const std::optional<array>& key = std::nullopt,
           StreamOrDevice s = {});

std::pair<array, array> split(const array& key, StreamOrDevice s = {});
// num keys, shape {num, 2}.
array split(const array& key, int num, StreamOrDevice s = {});

// Uniform on [low, high).
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

array normal(const Shape& shape, Dtype dtype, const std::optional<array>& loc,
             const std::optional<array>& scale, const std::optional<array>& key,
             StreamOrDevice s = {});
array normal(const Shape& shape, Dtype dtype, float loc, float scale,
             const std::optional<array>& key = std::nullopt, StreamOrDevice s = {});
array normal(const Shape& shape, Dtype dtype, const std::optional<array>& key = std::nullopt,
             StreamOrDevice s = {});
array normal(const Shape& shape, const std::optional<array>& key = std::nullopt,
             StreamOrDevice s = {});

}  // namespace mlx_lite::random
