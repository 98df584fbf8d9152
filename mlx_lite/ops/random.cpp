// Random ops, as MLX composes them: every sampler draws RandomBits from a key
// (or from the global key sequence) and maps the bits to its distribution with
// ordinary elementwise ops, so the numbers match MLX's bit for bit.
#include "mlx_lite/ops/random.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <tuple>

#include "mlx_lite/ops/binary.h"
#include "mlx_lite/ops/indexing.h"
#include "mlx_lite/ops/reduction.h"
#include "mlx_lite/ops/shape.h"
#include "mlx_lite/ops/sort.h"
#include "mlx_lite/ops/ternary.h"
#include "mlx_lite/ops/unary.h"
#include "mlx_lite/primitives/random.h"
#include "mlx_lite/utils.h"

namespace mlx_lite::random {

namespace {

// The global key: each draw without a key splits it, keeps one half and
// hands out the other (MLX's KeySequence). Seeded from the clock, as in MLX.
class KeySequence {
 public:
  static KeySequence& global() {
    static KeySequence seq(
        static_cast<uint64_t>(std::chrono::system_clock::now().time_since_epoch().count()));
    return seq;
  }
  void seed(uint64_t s) {
    std::lock_guard<std::mutex> lock(mutex_);
    key_ = key(s);
  }
  array next() {
    std::lock_guard<std::mutex> lock(mutex_);
    auto [kept, given] = random::split(key_);
    key_ = kept;
    return given;
  }

 private:
  explicit KeySequence(uint64_t s) : key_(key(s)) {}
  std::mutex mutex_;
  array key_;
};

// The largest value of `dtype` below 1: uniform samples stay in [low, high)
// even after rounding to a 16-bit float.
float below_one(Dtype dtype) {
  switch (dtype.val) {
    case Dtype::Val::float16:
      return float16_t::from_bits(0x3BFF);  // 1.0 is 0x3C00
    case Dtype::Val::bfloat16:
      return bfloat16_t::from_bits(0x3F7F);  // 1.0 is 0x3F80
    default:
      return std::nextafter(1.0f, 0.0f);
  }
}

// loc, scale, low and high may broadcast up to `shape`, never beyond it.
void check_fits(const char* op, const char* what, const Shape& param, const Shape& shape) {
  Shape out = broadcast_shapes(shape, param, op);
  if (out != shape) {
    throw std::invalid_argument(
        fmt::format("[{}] Cannot generate random values of shape {} from {} of shape {}, which "
                    "broadcasts to {}.",
                    op, shape_string(shape), what, shape_string(param), shape_string(out)));
  }
}

void check_floating(const char* op, Dtype dtype) {
  if (!issubdtype(dtype, floating)) {
    throw std::invalid_argument(fmt::format(
        "[{}] Can only generate random numbers of a floating point type (float32, float16, "
        "bfloat16), but got {}.",
        op, dtype));
  }
}

// An int64 scalar.
array i64(int64_t v) {
  return array(v, int64);
}

// The bit pattern of an int64 read as uint64, mapped to an int64 that
// orders the same way under signed comparison (flip the sign bit).
array unsigned_order(const array& x, StreamOrDevice s) {
  return bitwise_xor(x, i64(std::numeric_limits<int64_t>::min()), s);
}

// a <= b for int64 bit patterns read as uint64.
array unsigned_less_equal(const array& a, const array& b, StreamOrDevice s) {
  return less_equal(unsigned_order(a, s), unsigned_order(b, s), s);
}

// (a + c) mod r for 0 <= a, c < r <= INT64_MAX, without overflowing.
array add_mod(const array& a, const array& c, const array& r, StreamOrDevice s) {
  auto gap = subtract(r, c, s);
  return where(greater_equal(a, gap, s), subtract(a, gap, s), add(a, c, s), s);
}

// raw mod r with both int64 bit patterns read as uint64, r != 0: MLX reduces
// its uint64 draws this way. `raw_is_small` says raw < 2^32 (a 32-bit draw).
array unsigned_remainder(const array& raw, const array& r, bool raw_is_small, StreamOrDevice s) {
  auto wide = less(r, i64(0), s);  // r >= 2^63 as uint64
  auto safe_r = where(wide, i64(1), r, s);
  if (raw_is_small) {
    // raw < 2^32 < r whenever r is wide.
    return where(wide, raw, remainder(raw, safe_r, s), s);
  }
  // A wide r is over half of 2^64: raw mod r needs at most one subtraction.
  auto wide_rem = where(unsigned_less_equal(r, raw, s), subtract(raw, r, s), raw, s);
  // Else raw = low63 + top * 2^63, and 2^63 mod r = (INT64_MAX mod r + 1) mod r.
  const auto max63 = i64(std::numeric_limits<int64_t>::max());
  auto rem = remainder(bitwise_and(raw, max63, s), safe_r, s);
  auto top = less(raw, i64(0), s);
  auto pow63 = add_mod(remainder(max63, safe_r, s), i64(1), safe_r, s);
  rem = add_mod(rem, where(top, pow63, i64(0), s), safe_r, s);
  return where(wide, wide_rem, rem, s);
}

void check_axis_exists(const char* op, int axis, int ndim) {
  if (axis < -ndim || axis >= ndim) {
    throw std::invalid_argument(
        fmt::format("[{}] Invalid axis {} for an array with {} dimensions.", op, axis, ndim));
  }
}

// Gumbel-max over `axis` of logits: the draws have `shape` with the axis
// inserted where logits' axis lands once logits broadcast against them.
array categorical_impl(const array& logits, int axis, const Shape& shape,
                       const std::optional<array>& key, StreamOrDevice s) {
  Shape gumbel_shape = shape;
  int at = axis + static_cast<int>(shape.size()) - logits.ndim() + 1;
  gumbel_shape.insert(gumbel_shape.begin() + at, logits.shape(axis));
  auto g = gumbel(gumbel_shape, float32, key, s);
  return argmax(add(g, logits, s), at, false, s);
}

}  // namespace

array key(uint64_t seed) {
  return array({static_cast<uint32_t>(seed >> 32), static_cast<uint32_t>(seed)});
}

void seed(uint64_t seed) {
  KeySequence::global().seed(seed);
}

array bits(const Shape& shape, int width, const std::optional<array>& key_, StreamOrDevice s) {
  if (width != 1 && width != 2 && width != 4) {
    throw std::invalid_argument(
        fmt::format("[bits] Bit width must be in {{1, 2, 4}} but got {}.", width));
  }
  for (auto d : shape) {
    if (d < 0) {
      throw std::invalid_argument(
          fmt::format("[bits] Shape {} has a negative dimension.", shape_string(shape)));
    }
  }
  if (key_) {
    const array& k = *key_;
    if (k.dtype() != uint32) {
      throw std::invalid_argument(
          fmt::format("[bits] Expected key type uint32 but received {}.", k.dtype()));
    }
    // A key of shape (K1, ..., Kk, 2) gives one stream per leading index, so
    // its leading dims must be the first dims of the requested shape.
    bool ok = k.ndim() >= 1 && k.shape().back() == 2 && k.ndim() - 1 <= int(shape.size()) &&
              std::equal(k.shape().begin(), k.shape().end() - 1, shape.begin());
    if (!ok) {
      throw std::invalid_argument(
          fmt::format("[bits] Expected key shape (2,), or (K1, ..., Kk, 2) where (K1, ..., Kk) "
                      "leads the requested shape {}, but received {}.",
                      shape_string(shape), shape_string(k.shape())));
    }
  }
  array k = key_ ? *key_ : KeySequence::global().next();
  Dtype dtype = width == 1 ? uint8 : width == 2 ? uint16 : uint32;
  return array(shape, dtype, std::make_shared<RandomBits>(to_stream(s), shape, width), {k});
}

array bits(const Shape& shape, const std::optional<array>& key, StreamOrDevice s) {
  return bits(shape, 4, key, s);
}

std::pair<array, array> split(const array& key, StreamOrDevice s) {
  auto keys = random::split(key, 2, s);
  return {reshape(slice(keys, {0, 0}, {1, 2}, s), {2}, s),
          reshape(slice(keys, {1, 0}, {2, 2}, s), {2}, s)};
}

array split(const array& key, int num, StreamOrDevice s) {
  if (num < 0) {
    throw std::invalid_argument(
        fmt::format("[split] The number of keys must be non-negative but got {}.", num));
  }
  if (key.shape() != Shape{2}) {
    throw std::invalid_argument(
        fmt::format("[split] Expected key shape (2,) but received {}.", shape_string(key.shape())));
  }
  return bits({num, 2}, 4, key, s);
}

array uniform(const array& low, const array& high, const Shape& shape, Dtype dtype,
              const std::optional<array>& key, StreamOrDevice s) {
  check_floating("uniform", dtype);
  check_fits("uniform", "low and high", broadcast_shapes(low.shape(), high.shape(), "uniform"),
             shape);
  auto lo = astype(low, dtype, s);
  auto range = subtract(astype(high, dtype, s), lo, s);
  // bits / (2^32 - 1) in float32, clamped below 1, then scaled in `dtype`.
  auto maxval = array(static_cast<float>(std::numeric_limits<uint32_t>::max()), float32);
  auto unit = divide(bits(shape, 4, key, s), maxval, s);
  unit = astype(minimum(unit, array(below_one(dtype), float32), s), dtype, s);
  return add(multiply(range, unit, s), lo, s);
}

array uniform(const Shape& shape, Dtype dtype, const std::optional<array>& key, StreamOrDevice s) {
  return uniform(array(0.0f, dtype), array(1.0f, dtype), shape, dtype, key, s);
}

array uniform(const Shape& shape, const std::optional<array>& key, StreamOrDevice s) {
  return uniform(shape, float32, key, s);
}

array normal(const Shape& shape, Dtype dtype, const std::optional<array>& loc,
             const std::optional<array>& scale, const std::optional<array>& key, StreamOrDevice s) {
  check_floating("normal", dtype);
  if (loc) check_fits("normal", "loc", loc->shape(), shape);
  if (scale) check_fits("normal", "scale", scale->shape(), shape);
  // sqrt(2) * erfinv(u) for u uniform on (-1, 1) is standard normal.
  auto low = array(std::nextafter(-1.0f, 0.0f), float32);
  auto samples = uniform(low, array(1.0f, float32), shape, float32, key, s);
  auto applied_scale = array(std::sqrt(2.0f), dtype);
  if (scale) applied_scale = multiply(applied_scale, astype(*scale, dtype, s), s);
  samples = multiply(applied_scale, astype(erfinv(samples, s), dtype, s), s);
  if (loc) samples = add(astype(*loc, dtype, s), samples, s);
  return samples;
}

array normal(const Shape& shape, Dtype dtype, float loc, float scale,
             const std::optional<array>& key, StreamOrDevice s) {
  std::optional<array> loc_, scale_;
  if (loc != 0) loc_ = array(loc, dtype);
  if (scale != 1) scale_ = array(scale, dtype);
  return normal(shape, dtype, loc_, scale_, key, s);
}

array normal(const Shape& shape, Dtype dtype, const std::optional<array>& key, StreamOrDevice s) {
  return normal(shape, dtype, std::nullopt, std::nullopt, key, s);
}

array normal(const Shape& shape, float loc, float scale, const std::optional<array>& key,
             StreamOrDevice s) {
  return normal(shape, float32, loc, scale, key, s);
}

array normal(const Shape& shape, const std::optional<array>& key, StreamOrDevice s) {
  return normal(shape, float32, key, s);
}

// MLX's exact-at-any-magnitude randint: the width high - low as an unsigned
// 64-bit number, random bits reduced modulo it and added to low. The unsigned
// arithmetic is done on int64 bit patterns (so one graph serves every dtype);
// the numbers are MLX's for every dtype and interval.
array randint(const array& low, const array& high, const Shape& shape, Dtype dtype,
              const std::optional<array>& key, StreamOrDevice s) {
  if (issubdtype(dtype, inexact)) {
    throw std::invalid_argument(
        fmt::format("[randint] randint only accepts integer dtypes and bool, but got {}.", dtype));
  }
  check_fits("randint", "low and high", broadcast_shapes(low.shape(), high.shape(), "randint"),
             shape);
  auto lo = astype(low, int64, s);
  auto hi = astype(high, int64, s);
  auto range = subtract(hi, lo, s);  // wraps past INT64_MAX: the uint64 width
  // MLX compares the bounds as uint64 for an unsigned dtype, else as int64.
  auto empty =
      issubdtype(dtype, unsignedinteger) ? unsigned_less_equal(hi, lo, s) : less_equal(hi, lo, s);
  auto safe_range = where(empty, i64(1), range, s);
  array raw = i64(0);
  if (dtype.size == 8) {  // int64 and uint64
    // 64 bits from two draws; a given key is split so they differ (as MLX).
    std::optional<array> k1, k2;
    if (key) std::tie(k1, k2) = split(*key, s);
    auto lo_bits = astype(bits(shape, 4, k1, s), int64, s);
    auto hi_bits = astype(bits(shape, 4, k2, s), int64, s);
    raw = bitwise_or(left_shift(hi_bits, i64(32), s), lo_bits, s);
  } else {
    raw = astype(bits(shape, 4, key, s), int64, s);
  }
  auto offset = unsigned_remainder(raw, safe_range, dtype.size != 8, s);
  // lo + offset lies in [low, high), so the int64 sum never overflows.
  return astype(add(lo, offset, s), dtype, s);
}

array bernoulli(const array& p, const Shape& shape, const std::optional<array>& key,
                StreamOrDevice s) {
  if (!issubdtype(p.dtype(), floating)) {
    throw std::invalid_argument(fmt::format(
        "[bernoulli] The probability p must be a floating point array, but got {}.", p.dtype()));
  }
  check_fits("bernoulli", "p", p.shape(), shape);
  // bits < p * (the float after 2^32 - 1): p <= 0 never, p >= 1 always.
  auto upper = array(std::nextafter(static_cast<float>(std::numeric_limits<uint32_t>::max()),
                                    std::numeric_limits<float>::max()),
                     float32);
  return less(bits(shape, key, s), multiply(p, upper, s), s);
}

array bernoulli(const array& p, const std::optional<array>& key, StreamOrDevice s) {
  return bernoulli(p, p.shape(), key, s);
}

array bernoulli(const std::optional<array>& key, StreamOrDevice s) {
  return bernoulli(array(0.5f), key, s);
}

array truncated_normal(const array& lower, const array& upper, const Shape& shape, Dtype dtype,
                       const std::optional<array>& key, StreamOrDevice s) {
  check_floating("truncated_normal", dtype);
  check_fits("truncated_normal", "lower and upper",
             broadcast_shapes(lower.shape(), upper.shape(), "truncated_normal"), shape);
  // Computed in `dtype` throughout, as MLX (and JAX) do.
  auto sqrt2 = array(std::sqrt(2.0f), dtype);
  auto lo = astype(lower, dtype, s);
  auto hi = astype(upper, dtype, s);
  auto a = erf(divide(lo, sqrt2, s), s);
  auto b = erf(divide(hi, sqrt2, s), s);
  auto out = multiply(sqrt2, erfinv(uniform(a, b, shape, dtype, key, s), s), s);
  // Rounding can step just outside the bounds: clip back in.
  return maximum(minimum(hi, out, s), lo, s);
}

array truncated_normal(const array& lower, const array& upper, Dtype dtype,
                       const std::optional<array>& key, StreamOrDevice s) {
  auto shape = broadcast_shapes(lower.shape(), upper.shape(), "truncated_normal");
  return truncated_normal(lower, upper, shape, dtype, key, s);
}

array gumbel(const Shape& shape, Dtype dtype, const std::optional<array>& key, StreamOrDevice s) {
  check_floating("gumbel", dtype);
  return negative(log(negative(log(uniform(shape, dtype, key, s), s), s), s), s);
}

array categorical(const array& logits, int axis, const Shape& shape,
                  const std::optional<array>& key, StreamOrDevice s) {
  check_axis_exists("categorical", axis, logits.ndim());
  axis = axis < 0 ? axis + logits.ndim() : axis;
  Shape reduced = logits.shape();
  reduced.erase(reduced.begin() + axis);
  if (broadcast_shapes(shape, reduced, "categorical") != shape) {
    throw std::invalid_argument(
        fmt::format("[categorical] Requested shape {} is not broadcast compatible with the "
                    "reduced logits shape {}.",
                    shape_string(shape), shape_string(reduced)));
  }
  return categorical_impl(logits, axis, shape, key, s);
}

array categorical(const array& logits, int axis, int num_samples, const std::optional<array>& key,
                  StreamOrDevice s) {
  check_axis_exists("categorical", axis, logits.ndim());
  if (num_samples < 0) {
    throw std::invalid_argument(fmt::format(
        "[categorical] The number of samples must be non-negative but got {}.", num_samples));
  }
  axis = axis < 0 ? axis + logits.ndim() : axis;
  // A trailing axis of 1 on logits broadcasts against the samples' axis.
  auto expanded = expand_dims(logits, -1, s);
  Shape shape = expanded.shape();
  shape.erase(shape.begin() + axis);
  shape.back() = num_samples;
  return categorical_impl(expanded, axis, shape, key, s);
}

array categorical(const array& logits, int axis, const std::optional<array>& key,
                  StreamOrDevice s) {
  check_axis_exists("categorical", axis, logits.ndim());
  axis = axis < 0 ? axis + logits.ndim() : axis;
  Shape shape = logits.shape();
  shape.erase(shape.begin() + axis);
  return categorical_impl(logits, axis, shape, key, s);
}

array laplace(const Shape& shape, Dtype dtype, float loc, float scale,
              const std::optional<array>& key, StreamOrDevice s) {
  check_floating("laplace", dtype);
  // The inverse CDF on u uniform in (-1, 1), in float32 as MLX.
  auto u = uniform(array(std::nextafter(-1.0f, 0.0f), float32), array(1.0f, float32), shape,
                   float32, key, s);
  auto samples = multiply(sign(u, s), log1p(multiply(array(-1.0f), abs(u, s), s), s), s);
  samples = astype(samples, dtype, s);
  if (scale != 1.0f) samples = multiply(array(scale, dtype), samples, s);
  if (loc != 0.0f) samples = add(array(loc, dtype), samples, s);
  return samples;
}

array laplace(const Shape& shape, float loc, float scale, const std::optional<array>& key,
              StreamOrDevice s) {
  return laplace(shape, float32, loc, scale, key, s);
}

array laplace(const Shape& shape, Dtype dtype, const std::optional<array>& key, StreamOrDevice s) {
  return laplace(shape, dtype, 0.0f, 1.0f, key, s);
}

array laplace(const Shape& shape, const std::optional<array>& key, StreamOrDevice s) {
  return laplace(shape, float32, 0.0f, 1.0f, key, s);
}

array permutation(const array& x, int axis, const std::optional<array>& key, StreamOrDevice s) {
  check_axis_exists("permutation", axis, x.ndim());
  return take(x, permutation(x.shape(axis), key, s), axis, s);
}

array permutation(int n, const std::optional<array>& key, StreamOrDevice s) {
  if (n < 0) {
    throw std::invalid_argument(
        fmt::format("[permutation] Expected a non-negative length but got {}.", n));
  }
  return argsort(bits({n}, key, s), s);
}

}  // namespace mlx_lite::random
