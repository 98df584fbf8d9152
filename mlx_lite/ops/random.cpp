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

#include "mlx_lite/ops/binary.h"
#include "mlx_lite/ops/shape.h"
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
  Dtype dtype = width == 1 ? uint8 : uint32;
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

array normal(const Shape& shape, const std::optional<array>& key, StreamOrDevice s) {
  return normal(shape, float32, key, s);
}

}  // namespace mlx_lite::random
