// RandomBits: counter-based random bits from threefry2x32-20 keys, laid out
// exactly as MLX lays them out, so the same key gives the same bits on every
// backend. Every output word is a pure function of (key, word index), which is
// what lets a GPU kernel compute each word independently.
#pragma once

#include <cstdint>
#include <utility>

#include "mlx_lite/primitives.h"

namespace mlx_lite {

namespace random {

// The threefry2x32 block cipher with 20 rounds (Salmon et al., "Parallel
// random numbers: as easy as 1, 2, 3"), keyed by (k0, k1), of the counter
// (c0, c1).
inline std::pair<uint32_t, uint32_t> threefry2x32(uint32_t k0, uint32_t k1, uint32_t c0,
                                                  uint32_t c1) {
  constexpr uint32_t rotations[2][4] = {{13, 15, 26, 6}, {17, 29, 16, 24}};
  const uint32_t ks[3] = {k0, k1, k0 ^ k1 ^ 0x1BD11BDAu};
  uint32_t x0 = c0 + ks[0];
  uint32_t x1 = c1 + ks[1];
  for (uint32_t i = 0; i < 5; ++i) {
    for (uint32_t r : rotations[i % 2]) {
      x0 += x1;
      x1 = (x1 << r) | (x1 >> (32 - r));
      x1 ^= x0;
    }
    // Key injection after every 4 rounds.
    x0 += ks[(i + 1) % 3];
    x1 += ks[(i + 2) % 3] + i + 1;
  }
  return {x0, x1};
}

// Word j (of num_words 32-bit words) of one key's stream. MLX hashes the
// counter pairs (i, i + ceil(n/2)) and puts the first half of each result in
// the first half of the words and the second half in the second half; an odd
// word count takes its middle word from the counter (n/2, 0). The stream's
// bytes are these words in little-endian order, cut to the bytes asked for.
inline uint32_t bits_word(uint32_t k0, uint32_t k1, uint64_t j, uint64_t num_words) {
  const uint64_t half = num_words / 2;
  const uint64_t upper = num_words - half;  // ceil(num_words / 2)
  if (j < half) {
    return threefry2x32(k0, k1, static_cast<uint32_t>(j), static_cast<uint32_t>(j + upper)).first;
  }
  if (j < upper) {  // the middle word of an odd count
    return threefry2x32(k0, k1, static_cast<uint32_t>(half), 0).first;
  }
  return threefry2x32(k0, k1, static_cast<uint32_t>(j - upper), static_cast<uint32_t>(j)).second;
}

}  // namespace random

// Input: uint32 keys of shape (K1, ..., Kk, 2); output of shape
// (K1, ..., Kk, M1, ...): each key fills its own block of the output with
// `width`-byte elements (uint8 for 1, uint32 for 2 and 4; 16-bit values are
// stored in uint32 since there is no uint16 here).
class RandomBits : public UnaryPrimitive {
 public:
  RandomBits(Stream stream, Shape shape, int width)
      : UnaryPrimitive(stream), shape_(std::move(shape)), width_(width) {}
  void eval_cpu(const std::vector<array>& inputs, array& out) override;
  void eval_gpu(const std::vector<array>& inputs, array& out) override;
  std::vector<array> jvp(const std::vector<array>& primals, const std::vector<array>& tangents,
                         const std::vector<int>& argnums) override;
  std::vector<array> vjp(const std::vector<array>& primals, const std::vector<array>& cotangents,
                         const std::vector<int>& argnums,
                         const std::vector<array>& outputs) override;
  const char* name() const override { return "RandomBits"; }
  bool is_equivalent(const Primitive& other) const override {
    auto* o = dynamic_cast<const RandomBits*>(&other);
    return o != nullptr && o->shape_ == shape_ && o->width_ == width_;
  }
  int width() const { return width_; }
  const Shape& shape() const { return shape_; }

 private:
  Shape shape_;
  int width_;
};

}  // namespace mlx_lite
