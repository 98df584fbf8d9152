#version 450
#extension GL_GOOGLE_include_directive : require
// Scatter: each update element replaces (REDUCE kScatterNone) or is combined
// with (kScatterSum, Prod, Max, Min) the element at its place in the output,
// which the host has filled with a copy of the source. Writes of repeated
// positions race, so which one wins a replace is unspecified, as in MLX;
// the combining reductions are atomic, so their result does not depend on
// the order. Max and Min let NaN win, as the CPU kernel does.
// ATOMIC (set per variant in indexing.cmake) says how an update combines:
//   0  a compare-and-swap loop on the aligned 32-bit word that holds the
//      element (8-, 16- and 32-bit dtypes without a native atomic for it)
//   1  atomicAdd/Max/Min on 32-bit integers (int32, uint32)
//   2  atomicAdd/Max/Min on 64-bit integers (int64, uint64; needs
//      shaderBufferInt64Atomics)
//   3  float atomicAdd (float32 sums; needs shaderBufferFloat32AtomicAdd)
//   4  a compare-and-swap loop on the 64-bit element (int64 and uint64
//      products; needs shaderBufferInt64Atomics)
// Parameters and indices: params/indexing.h, indexing_common.glsl.
#if ATOMIC == 2 || ATOMIC == 4
#extension GL_EXT_shader_atomic_int64 : require
#elif ATOMIC == 3
#extension GL_EXT_shader_atomic_float : require
#endif
#include "indexing_common.glsl"

layout(set = 0, binding = 1) readonly buffer Updates { IN_ELEM upd[]; };
#if REDUCE == 0
layout(set = 0, binding = 2) writeonly buffer Out { OUT_ELEM out0[]; };
#elif ATOMIC == 0
layout(set = 0, binding = 2) buffer Out { uint out_words[]; };
#elif ATOMIC == 4
layout(set = 0, binding = 2) buffer Out { uint64_t out_words[]; };
#else
layout(set = 0, binding = 2) buffer Out { OUT_ELEM out0[]; };
#endif

#if REDUCE != 0
// cur (op) u in the compute type, as the CPU's scatter_combine: sums and
// products wrap for integers (GLSL's integer arithmetic is modular).
OUT_COMPUTE combine(OUT_COMPUTE cur, OUT_COMPUTE u) {
  if (REDUCE == kScatterSum) return cur + u;
  if (REDUCE == kScatterProd) return cur * u;
  if (OUT_KIND == 3 && isnan(float(u))) return u;
  if (OUT_KIND == 3 && isnan(float(cur))) return cur;
  if (REDUCE == kScatterMax) return u > cur ? u : cur;
  return u < cur ? u : cur;
}
#endif

#if REDUCE != 0 && ATOMIC == 0
const uint kBytes = uint(IN_BITS) / 8u;
const uint kMask = kBytes == 4u ? 0xffffffffu : (1u << (8u * kBytes)) - 1u;

// The bits of the element `cur` (bits) combined with u, rounded or wrapped
// as the CPU's static_cast<T>(combine(C(cur), C(u))) does (bool: or/and).
uint combine_bits(uint cur, IN_ELEM u) {
  if (IN_TYPEID == 7) {
    return floatBitsToUint(float(combine(OUT_COMPUTE(uintBitsToFloat(cur)), OUT_COMPUTE(u))));
  }
  if (IN_TYPEID == 2 || IN_TYPEID == 3) {
    return uint(combine(OUT_COMPUTE(IN_ELEM(cur)), OUT_COMPUTE(u)));
  }
  // Signed elements sign-extend into uint: keep only their own bits.
  return uint(store_out(OUT_COMPUTE(combine(load_in(IN_ELEM(cur)), load_in(u))))) & kMask;
}

// out[loc] (op)= u, replacing the whole word so neighbours are kept; retried
// until no other thread changed the word in between.
void combine_at(int64_t loc, IN_ELEM u) {
  const int64_t byte = loc * int64_t(kBytes);
  const uint word = uint(byte >> 2);
  const uint shift = 8u * uint(byte & 3);
  uint seen = out_words[word];
  for (;;) {
    const uint old = seen;
    const uint value = combine_bits((old >> shift) & kMask, u);
    seen = atomicCompSwap(out_words[word], old, (old & ~(kMask << shift)) | (value << shift));
    if (seen == old) break;
  }
}
#elif REDUCE != 0 && ATOMIC == 4
// out[loc] (op)= u on the whole 64-bit element, retried as above.
void combine_at(int64_t loc, IN_ELEM u) {
  uint64_t seen = out_words[uint(loc)];
  for (;;) {
    const uint64_t old = seen;
    const uint64_t value = uint64_t(combine(OUT_COMPUTE(old), OUT_COMPUTE(u)));
    seen = atomicCompSwap(out_words[uint(loc)], old, value);
    if (seen == old) break;
  }
}
#else
void combine_at(int64_t loc, IN_ELEM u) {
#if REDUCE == 0
  out0[uint(loc)] = u;
#elif REDUCE == 1
  atomicAdd(out0[uint(loc)], u);
#elif REDUCE == 3
  atomicMax(out0[uint(loc)], u);
#elif REDUCE == 4
  atomicMin(out0[uint(loc)], u);
#endif
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
    // Element index modulo 2^32 (slice_start's arithmetic), so combine_at's byte
    // address is right too.
    const int64_t loc = int64_t(uint(start) + uint(slice_offset(j)));
    const uint u_loc = locate(params.updates, 0, i * n_slice + j, small_indices());
    const IN_ELEM u = upd[uint(params.updates_offset) + u_loc];
    combine_at(loc, u);
  }
}
