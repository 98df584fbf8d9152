#version 450
#extension GL_GOOGLE_include_directive : require
// Scatter: each update element is written (SUM 0: Scatter::None)
// or adds it (SUM 1: Scatter::Sum) at its place in the output, which the
// host has filled with a copy of the source. Writes of repeated positions
// race, so which one wins is unspecified, as in MLX; sums add atomically.
// ATOMIC (set per variant in indexing.cmake) says how a Sum adds:
//   0  a compare-and-swap loop on the aligned 32-bit word that holds the
//      element (8- and 16-bit dtypes, and float32 without float atomics)
//   1  atomicAdd (int32, uint32)
//   2  64-bit atomicAdd (int64, uint64; needs shaderBufferInt64Atomics)
//   3  float atomicAdd (float32; needs shaderBufferFloat32AtomicAdd)
// Parameters and indices: params/indexing.h, indexing_common.glsl.
#if ATOMIC == 2
#extension GL_EXT_shader_atomic_int64 : require
#elif ATOMIC == 3
#extension GL_EXT_shader_atomic_float : require
#endif
#include "indexing_common.glsl"

layout(set = 0, binding = 1) readonly buffer Updates { IN_ELEM upd[]; };
#if !SUM
layout(set = 0, binding = 2) writeonly buffer Out { OUT_ELEM out0[]; };
#elif ATOMIC == 0
layout(set = 0, binding = 2) buffer Out { uint out_words[]; };
#else
layout(set = 0, binding = 2) buffer Out { OUT_ELEM out0[]; };
#endif

#if SUM && ATOMIC == 0
const uint kBytes = uint(IN_BITS) / 8u;
const uint kMask = kBytes == 4u ? 0xffffffffu : (1u << (8u * kBytes)) - 1u;

// The bits of the element `cur` (bits) + u, rounded or wrapped as the CPU's
// static_cast<T>(C(cur) + C(u)) does (bool: or).
uint add_bits(uint cur, IN_ELEM u) {
  if (IN_TYPEID == 7) return floatBitsToUint(uintBitsToFloat(cur) + float(u));
  // Signed elements sign-extend into uint: keep only their own bits.
  return uint(store_out(OUT_COMPUTE(load_in(IN_ELEM(cur)) + load_in(u)))) & kMask;
}

// out[loc] += u, replacing the whole word so neighbours are kept; retried
// until no other thread changed the word in between.
void add_at(int64_t loc, IN_ELEM u) {
  const int64_t byte = loc * int64_t(kBytes);
  const uint word = uint(byte >> 2);
  const uint shift = 8u * uint(byte & 3);
  uint seen = out_words[word];
  for (;;) {
    const uint old = seen;
    const uint sum = add_bits((old >> shift) & kMask, u);
    seen = atomicCompSwap(out_words[word], old, (old & ~(kMask << shift)) | (sum << shift));
    if (seen == old) break;
  }
}
#endif

void main() {
  const int64_t t = thread_index();
  if (t >= params.n) return;
  // Each thread adds RUN consecutive elements of one slice, so the index
  // loads and the slice's start are computed once per run, not per element,
  // as in gather.comp. The host sets RUN to 4 only where the updates have
  // fewer than 2^32 elements (the 32-bit path then serves their row-major
  // index too).
  const int64_t n_slice = params.n_slice;
  const int64_t runs = (n_slice + int64_t(RUN) - 1) / int64_t(RUN);
  int64_t run;
  const int64_t i = divmod(t, runs, run);
  const int64_t start = slice_start(i, false);
  if (start < 0) return;  // out of range: the slice is dropped
  for (int64_t j = run * int64_t(RUN), end = min(j + int64_t(RUN), n_slice); j < end; ++j) {
    // Element index modulo 2^32 (slice_start's arithmetic), so add_at's byte
    // address is right too.
    const int64_t loc = int64_t(uint(start) + uint(slice_offset(j)));
    const uint u_loc = locate(params.updates, 0, i * n_slice + j, small_indices());
    const IN_ELEM u = upd[uint(params.updates_offset) + u_loc];
#if !SUM
    out0[uint(loc)] = u;
#elif ATOMIC == 0
    add_at(loc, u);
#else
    atomicAdd(out0[uint(loc)], u);
#endif
  }
}
