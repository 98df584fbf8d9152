// CPU kernel of RandomBits: each key's block of the output, hashed word by word.
#include "mlx_lite/primitives/random.h"

#include <algorithm>

#include "backend/cpu/strided.h"

namespace mlx_lite {

namespace {

// Calls emit(j, word) for every word of one key's stream of num_words words,
// hashing each counter pair once (it yields word i and word i + ceil(n/2)).
// Gives the same words as random::bits_word.
template <typename F>
void for_each_word(uint32_t k0, uint32_t k1, uint64_t num_words, F&& emit) {
  const uint64_t half = num_words / 2;
  const uint64_t upper = num_words - half;
  for (uint64_t i = 0; i < half; ++i) {
    auto [w0, w1] =
        random::threefry2x32(k0, k1, static_cast<uint32_t>(i), static_cast<uint32_t>(i + upper));
    emit(i, w0);
    emit(i + upper, w1);
  }
  if (upper != half) emit(half, random::threefry2x32(k0, k1, static_cast<uint32_t>(half), 0).first);
}

// Writes `n` elements of `width` bytes, cut from the little-endian words of
// one key's stream, to dst (T is uint8_t, uint16_t or uint32_t: the width).
template <typename T>
void fill_block(uint32_t k0, uint32_t k1, int width, uint64_t n, T* dst) {
  const uint64_t per_word = 4 / width;
  const uint64_t num_words = (n * width + 3) / 4;
  const uint32_t mask = width == 4 ? 0xFFFFFFFFu : (1u << (8 * width)) - 1;
  for_each_word(k0, k1, num_words, [&](uint64_t j, uint32_t word) {
    for (uint64_t e = j * per_word, end = std::min(n, e + per_word); e < end; ++e) {
      dst[e] = static_cast<T>(word & mask);
      word = width == 4 ? 0 : word >> (8 * width);
    }
  });
}

}  // namespace

void RandomBits::eval_cpu(const std::vector<array>& inputs, array& out) {
  const array& keys = inputs[0];
  common::allocate(out);
  const size_t num_keys = keys.size() / 2;
  if (out.size() == 0 || num_keys == 0) return;
  const uint64_t per_key = out.size() / num_keys;
  // Keys are few; read them through their strides (they may be views).
  const auto* kptr = static_cast<const uint32_t*>(keys.raw_data());
  for (size_t i = 0; i < num_keys; ++i) {
    uint32_t k0 = kptr[common::elem_to_loc(2 * i, keys.shape(), keys.strides())];
    uint32_t k1 = kptr[common::elem_to_loc(2 * i + 1, keys.shape(), keys.strides())];
    if (out.dtype() == uint8) {
      fill_block(k0, k1, width_, per_key, static_cast<uint8_t*>(out.raw_data()) + i * per_key);
    } else if (out.dtype() == uint16) {
      fill_block(k0, k1, width_, per_key, static_cast<uint16_t*>(out.raw_data()) + i * per_key);
    } else {
      fill_block(k0, k1, width_, per_key, static_cast<uint32_t*>(out.raw_data()) + i * per_key);
    }
  }
}

}  // namespace mlx_lite
