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
array normal(const Shape& shape, float loc, float scale,
             const std::optional<array>& key = std::nullopt, StreamOrDevice s = {});
array normal(const Shape& shape, const std::optional<array>& key = std::nullopt,
             StreamOrDevice s = {});
/// @}

/// Integers uniform on [low, high), of `shape` and an integer or bool
/// `dtype` (int32 by default); low and high broadcast to `shape`. As MLX,
/// exact at any magnitude: random bits (64 for int64, from two keys split
/// from `key`; else 32) reduced modulo the width high - low. An empty
/// interval (high <= low) gives low. Throws std::invalid_argument for a
/// floating dtype or bounds that broadcast beyond `shape`.
/// @{
array randint(const array& low, const array& high, const Shape& shape, Dtype dtype = int32,
              const std::optional<array>& key = std::nullopt, StreamOrDevice s = {});
template <typename T, typename U>
array randint(T low, U high, const Shape& shape, Dtype dtype = int32,
              const std::optional<array>& key = std::nullopt, StreamOrDevice s = {}) {
  return randint(array(low), array(high), shape, dtype, key, s);
}
/// @}

/// Bools that are true with probability `p` (0.5 by default), of `shape`
/// (p's shape by default); p is floating and broadcasts to `shape`. p <= 0
/// is always false, p >= 1 always true. Throws std::invalid_argument for an
/// integer or bool p, or a p that broadcasts beyond `shape`. As in MLX, a
/// bare array argument is p, not a key: write bernoulli(0.5, key).
/// @{
array bernoulli(const array& p, const Shape& shape, const std::optional<array>& key = std::nullopt,
                StreamOrDevice s = {});
array bernoulli(const array& p, const std::optional<array>& key = std::nullopt,
                StreamOrDevice s = {});
template <typename T>
array bernoulli(T p, const std::optional<array>& key = std::nullopt, StreamOrDevice s = {}) {
  return bernoulli(array(p), key, s);
}
template <typename T>
array bernoulli(T p, const Shape& shape, const std::optional<array>& key = std::nullopt,
                StreamOrDevice s = {}) {
  return bernoulli(array(p), shape, key, s);
}
array bernoulli(const std::optional<array>& key = std::nullopt, StreamOrDevice s = {});
/// @}

/// Standard normal samples truncated to [lower, upper], of `shape` (the
/// bounds' broadcast shape by default) and a floating `dtype` (float32 by
/// default), by inverting the CDF as MLX and JAX do: sqrt(2) * erfinv(u) for
/// u uniform on [erf(lower / sqrt(2)), erf(upper / sqrt(2))), clipped to the
/// bounds. Throws std::invalid_argument for another dtype or bounds that
/// broadcast beyond `shape`.
/// @{
array truncated_normal(const array& lower, const array& upper, const Shape& shape,
                       Dtype dtype = float32, const std::optional<array>& key = std::nullopt,
                       StreamOrDevice s = {});
array truncated_normal(const array& lower, const array& upper, Dtype dtype = float32,
                       const std::optional<array>& key = std::nullopt, StreamOrDevice s = {});
/// @}

/// Standard Gumbel samples, -log(-log(u)) for u uniform on [0, 1), of
/// `shape` and a floating `dtype` (float32 by default). Throws
/// std::invalid_argument for another dtype.
array gumbel(const Shape& shape, Dtype dtype = float32,
             const std::optional<array>& key = std::nullopt, StreamOrDevice s = {});

/// Category indices (uint32) drawn from the unnormalized log-probabilities
/// `logits` along `axis` (-1 by default), by the Gumbel-max trick:
/// argmax(logits + gumbel) along the axis. The result has logits' shape
/// without `axis`; or `shape`, which that shape must broadcast to; or that
/// shape with `num_samples` draws per distribution as its last dimension.
/// Throws std::invalid_argument for an axis outside [-ndim, ndim) or a
/// `shape` that the reduced shape does not broadcast to.
/// @{
array categorical(const array& logits, int axis, const Shape& shape,
                  const std::optional<array>& key = std::nullopt, StreamOrDevice s = {});
array categorical(const array& logits, int axis, int num_samples,
                  const std::optional<array>& key = std::nullopt, StreamOrDevice s = {});
array categorical(const array& logits, int axis = -1,
                  const std::optional<array>& key = std::nullopt, StreamOrDevice s = {});
/// @}

/// Laplace samples with location `loc` and scale `scale` (0 and 1 by
/// default), of `shape` and a floating `dtype` (float32 by default), by
/// inverting the CDF: sign(u) * log1p(-|u|) for u uniform on (-1, 1).
/// Throws std::invalid_argument for another dtype.
/// @{
array laplace(const Shape& shape, Dtype dtype, float loc, float scale,
              const std::optional<array>& key = std::nullopt, StreamOrDevice s = {});
array laplace(const Shape& shape, float loc, float scale,
              const std::optional<array>& key = std::nullopt, StreamOrDevice s = {});
array laplace(const Shape& shape, Dtype dtype, const std::optional<array>& key = std::nullopt,
              StreamOrDevice s = {});
array laplace(const Shape& shape, const std::optional<array>& key = std::nullopt,
              StreamOrDevice s = {});
/// @}

/// `x` with its entries along `axis` (0 by default) randomly permuted:
/// take(x, permutation(x.shape(axis)), axis). Throws std::invalid_argument
/// for a scalar x or an axis outside [-ndim, ndim).
array permutation(const array& x, int axis = 0, const std::optional<array>& key = std::nullopt,
                  StreamOrDevice s = {});

/// A random permutation of arange(n) (uint32): the argsort of n random
/// words, as MLX. Throws std::invalid_argument for a negative n.
array permutation(int n, const std::optional<array>& key = std::nullopt, StreamOrDevice s = {});

}  // namespace mlx_lite::random
