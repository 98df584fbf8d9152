#version 450
#extension GL_GOOGLE_include_directive : require
// Reduce: each workgroup of 256 threads reduces one chunk of one output's
// elements. The host views the input with the kept dims first and the reduced
// ones last, so output r reduces elements [r * L, (r + 1) * L) in row-major
// order of that view. Metadata is the elementwise layout followed by
// [rows, L, G, C]: row r is cut into G chunks of C elements, workgroup w
// reduces chunk w % G of row w / G and writes out0[w]. G is 1 for the
// one-pass path; with G > 1 (few long rows) out0 holds partials in the
// accumulator type, reduced by a second dispatch of this shader.
// Threads stride over the chunk (consecutive threads read consecutive
// elements), then combine through shared memory (no subgroup operations, so
// any subgroup size works). OP is Reduce::ReduceType:
// And 0, Or 1, Sum 2, Prod 3, Min 4, Max 5.
#include "common.glsl"

layout(set = 0, binding = 1) readonly buffer In { IN_ELEM in0[]; };
layout(set = 0, binding = 2) writeonly buffer Out { OUT_ELEM out0[]; };

// Floats accumulate in float; integers and bool in 64 bits, which wraps to
// the output's width exactly as the CPU's 64-bit accumulators do.
#if IN_KIND == 3
#define ACC float
#else
#define ACC int64_t
#endif

const uint kThreads = 256;
shared ACC partial[kThreads];

ACC identity() {
  switch (OP) {
    case 0u: return ACC(1);
    case 3u: return ACC(1);
    case 1u: return ACC(0);
    case 2u: return ACC(0);
#if IN_KIND == 3
    case 4u: return uintBitsToFloat(0x7f800000u);  // +inf
    default: return uintBitsToFloat(0xff800000u);  // -inf
#else
    case 4u: return int64_t(0x7fffffffffffffffl);
    default: return -int64_t(0x7fffffffffffffffl) - int64_t(1);
#endif
  }
}

// max and min let NaN win, as the CPU does.
ACC combine(ACC a, ACC b) {
  switch (OP) {
    case 0u: return (a != ACC(0) && b != ACC(0)) ? ACC(1) : ACC(0);
    case 1u: return (a != ACC(0) || b != ACC(0)) ? ACC(1) : ACC(0);
    case 2u: return a + b;
    case 3u: return a * b;
#if IN_KIND == 3
    case 4u: return (a < b || isnan(a)) ? a : b;
    default: return (a > b || isnan(a)) ? a : b;
#else
    case 4u: return a < b ? a : b;
    default: return a > b ? a : b;
#endif
  }
}

OUT_COMPUTE to_out(ACC a) {
#if OUT_KIND == 0
  return a != ACC(0) ? 1u : 0u;
#else
  return OUT_COMPUTE(a);
#endif
}

ACC load(uint i) { return ACC(load_in(in0[i])); }

void main() {
  const uint t = gl_LocalInvocationID.x;
  const int64_t w =
      int64_t(gl_WorkGroupID.x) + int64_t(gl_WorkGroupID.y) * int64_t(gl_NumWorkGroups.x);
  const int ndim = int(meta_at(1));
  const int tail = 2 + ndim + ndim + 1;
  const int64_t rows = meta_at(tail), len = meta_at(tail + 1);
  const int64_t groups = meta_at(tail + 2), chunk = meta_at(tail + 3);
  if (w >= rows * groups) return;  // the whole workgroup leaves together
  // GPUs emulate 64-bit division in tens of instructions: divide in 32 bits
  // whenever the workgroup count allows.
  const int64_t row =
      rows * groups <= int64_t(0xffffffffu) ? int64_t(uint(w) / uint(groups)) : w / groups;
  const int64_t begin = row * len + (w - row * groups) * chunk;
  // Chunks hold fewer than 2^32 elements (buffers are indexed in 32 bits).
  const uint n = uint(min(chunk, (row + 1) * len - begin));

  ACC acc = identity();
  if (CONTIGUOUS) {
    // Four independent loads per iteration keep more reads in flight.
    const uint first = uint(meta_at(2 + ndim) + begin);
    uint j = t;
    for (; j + 3u * kThreads < n; j += 4u * kThreads) {
      const ACC a = combine(load(first + j), load(first + j + kThreads));
      const ACC b = combine(load(first + j + 2u * kThreads), load(first + j + 3u * kThreads));
      acc = combine(acc, combine(a, b));
    }
    for (; j < n; j += kThreads) acc = combine(acc, load(first + j));
  } else {
    for (uint j = t; j < n; j += kThreads) {
      acc = combine(acc, load(uint(input_location(0, begin + int64_t(j)))));
    }
  }
  partial[t] = acc;
  barrier();
  for (uint s = kThreads / 2u; s > 0u; s >>= 1u) {
    if (t < s) partial[t] = combine(partial[t], partial[t + s]);
    barrier();
  }
  if (t == 0u) out0[uint(w)] = store_out(to_out(partial[0]));
}
