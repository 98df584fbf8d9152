#version 450
#extension GL_GOOGLE_include_directive : require
// RandomBits: the bits of backend/cpu/random.cpp (MLX's layout of
// threefry2x32-20, see mlx_lite/primitives/random.h) for a batch of keys.
// Each key's stream of W words comes from counter pairs (i, i + ceil(W/2)),
// i < W/2, whose two result words are words i and i + ceil(W/2), plus the
// pair (W/2, 0) for the middle word of an odd W. Thread t hashes pair
// t % ceil(W/2) of key t / ceil(W/2) once and writes the elements of its
// words: both stores are coalesced across neighbouring threads.
// Variants random_<out> (keys uint32; out uint8 for width 1, else uint32).
// Parameters: params/random.h.
#include "common.glsl"
#include "params/random.h"


#include "shape_block.glsl"

layout(set = 0, binding = 1) readonly buffer Keys { uint keys0[]; };
layout(set = 0, binding = 2) writeonly buffer Out { OUT_ELEM out0[]; };


// As random::threefry2x32: 20 rounds, keys injected after every 4.
uvec2 threefry2x32(uint k0, uint k1, uint c0, uint c1) {
  const uint rotations[8] = uint[8](13u, 15u, 26u, 6u, 17u, 29u, 16u, 24u);
  const uint ks[3] = uint[3](k0, k1, k0 ^ k1 ^ 0x1BD11BDAu);
  uint x0 = c0 + ks[0];
  uint x1 = c1 + ks[1];
  for (uint i = 0u; i < 5u; ++i) {
    for (uint r = 0u; r < 4u; ++r) {
      const uint s = rotations[(i % 2u) * 4u + r];
      x0 += x1;
      x1 = (x1 << s) | (x1 >> (32u - s));
      x1 ^= x0;
    }
    x0 += ks[(i + 1u) % 3u];
    x1 += ks[(i + 2u) % 3u] + i + 1u;
  }
  return uvec2(x0, x1);
}

// Writes word j of a key's stream: its little-endian WIDTH-byte pieces are
// elements j * 4 / WIDTH onwards of the key's block (from `base`), cut at
// the block's n elements.
void emit(uint base, uint n, uint j, uint word) {
  if (WIDTH == 4u) {
    out0[base + j] = OUT_ELEM(word);
    return;
  }
  const uint per_word = 4u / WIDTH;
  const uint bits = 8u * WIDTH;
  const uint mask = (1u << bits) - 1u;
  for (uint s = 0u; s < per_word; ++s) {
    const uint e = j * per_word + s;
    if (e >= n) return;
    out0[base + e] = OUT_ELEM((word >> (s * bits)) & mask);
  }
}

// Where element i of the keys lies (they may be strided views).
uint key_location(int64_t i) {
  if (CONTIGUOUS) return uint(params.keys_offset + i);
  return uint(params.keys_offset) + locate(params.keys, 0, i, fits_32_bits(params.keys_size));
}

void main() {
  const uint num_keys = uint(params.num_keys);
  const uint per_key = uint(params.per_key);
  const uint num_words = uint(params.num_words);
  const uint half_ = num_words / 2u;
  const uint upper = num_words - half_;  // ceil(num_words / 2)
  const int64_t t = thread_index();
  if (t >= int64_t(num_keys) * int64_t(upper)) return;
  // The output has fewer than 2^32 elements, so t fits 32-bit division.
  const uint key = uint(t) / upper;
  const uint i = uint(t) - key * upper;
  const uint k0 = keys0[key_location(2 * int64_t(key))];
  const uint k1 = keys0[key_location(2 * int64_t(key) + 1)];
  const uint base = key * per_key;
  if (i < half_) {
    const uvec2 w = threefry2x32(k0, k1, i, i + upper);
    emit(base, per_key, i, w.x);
    emit(base, per_key, i + upper, w.y);
  } else {  // the middle word of an odd count
    emit(base, per_key, half_, threefry2x32(k0, k1, half_, 0u).x);
  }
}
