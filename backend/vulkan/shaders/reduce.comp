#version 450
#extension GL_GOOGLE_include_directive : require
// Reduce: ROW_THREADS threads reduce one chunk of one output's elements
// (params/reduce.h says which), kReduceThreads / ROW_THREADS chunks to a
// workgroup. Threads stride over the chunk (consecutive threads read
// consecutive elements when the view is dense), then combine
// through shared memory (no subgroup operations, so any subgroup size
// works). OP is a Reduce::ReduceType.
#include "common.glsl"
#include "params/reduce.h"


#include "shape_block.glsl"

layout(set = 0, binding = 1) readonly buffer In { IN_ELEM in0[]; };
layout(set = 0, binding = 1) readonly buffer In4 { uvec4 in4[]; };  // RUNS
layout(set = 0, binding = 2) writeonly buffer Out { OUT_ELEM out0[]; };

// Floats accumulate in float; integers and bool in 64 bits, which wraps to
// the output's width exactly as the CPU's 64-bit accumulators do (uint64 in
// uint64_t, so that min and max order it).
#if IN_KIND == 3
#define ACC float
#elif IN_U64
#define ACC uint64_t
#else
#define ACC int64_t
#endif

const uint kThreads = kReduceThreads;
shared ACC partial[kThreads];

ACC identity() {
  switch (OP) {
    case Reduce_And: return ACC(1);
    case Reduce_Prod: return ACC(1);
    case Reduce_Or: return ACC(0);
    case Reduce_Sum: return ACC(0);
#if IN_KIND == 3
    case Reduce_Min: return uintBitsToFloat(0x7f800000u);  // +inf
    default: return uintBitsToFloat(0xff800000u);  // Max: -inf
#elif IN_U64
    case Reduce_Min: return ACC(0xfffffffffffffffful);
    default: return ACC(0);  // Max
#else
    case Reduce_Min: return int64_t(0x7fffffffffffffffl);
    default: return -int64_t(0x7fffffffffffffffl) - int64_t(1);  // Max
#endif
  }
}

// max and min let NaN win, as the CPU does.
ACC combine(ACC a, ACC b) {
  switch (OP) {
    case Reduce_And: return (a != ACC(0) && b != ACC(0)) ? ACC(1) : ACC(0);
    case Reduce_Or: return (a != ACC(0) || b != ACC(0)) ? ACC(1) : ACC(0);
    case Reduce_Sum: return a + b;
    case Reduce_Prod: return a * b;
#if IN_KIND == 3
    case Reduce_Min: return (a < b || isnan(a)) ? a : b;
    default: return (a > b || isnan(a)) ? a : b;  // Max
#else
    case Reduce_Min: return a < b ? a : b;
    default: return a > b ? a : b;  // Max
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

// Element i of the chunk that starts at view element `begin`.
ACC element(int64_t begin, uint i, bool small) {
  if (CONTIGUOUS) return load(uint(params.offset + begin) + i);
  return load(uint(params.offset) + locate(params.view, 0, begin + int64_t(i), small));
}

// Four independent loads per iteration keep more reads in flight, and they
// combine in pairs before they reach the accumulator: a thread's serial
// chain is n / (4 * ROW_THREADS) long, at most 16 (reduction.cpp's
// kMaxChunk and row_threads), which bounds the rounding error of float32
// sums.
ACC reduce_elements(int64_t begin, uint n, uint lane, bool small) {
  const uint step = ROW_THREADS;
  ACC acc = identity();
  uint j = lane;
  for (; j + 3u * step < n; j += 4u * step) {
    const ACC a = combine(element(begin, j, small), element(begin, j + step, small));
    const ACC b = combine(element(begin, j + 2u * step, small), element(begin, j + 3u * step, small));
    acc = combine(acc, combine(a, b));
  }
  for (; j < n; j += step) acc = combine(acc, element(begin, j, small));
  return acc;
}

#if IN_BITS == 32
// A run's four elements combined in pairs (RUNS: 32-bit elements).
ACC run_value(uvec4 r) {
  return combine(combine(ACC(load_in_bits(r.x)), ACC(load_in_bits(r.y))),
                 combine(ACC(load_in_bits(r.z)), ACC(load_in_bits(r.w))));
}

// The same over runs of 4 loaded as vectors (RUNS): 16-byte loads, a
// quarter of the load instructions, four of them in flight a thread; the
// serial chain is a quarter as long.
ACC reduce_runs(int64_t begin, uint n, uint lane) {
  const uint step = ROW_THREADS, first = uint((params.offset + begin) / 4), runs = n / 4u;
  ACC acc = identity();
  uint q = lane;
  for (; q + 3u * step < runs; q += 4u * step) {
    const ACC a = combine(run_value(in4[first + q]), run_value(in4[first + q + step]));
    const ACC b = combine(run_value(in4[first + q + 2u * step]), run_value(in4[first + q + 3u * step]));
    acc = combine(acc, combine(a, b));
  }
  for (; q < runs; q += step) acc = combine(acc, run_value(in4[first + q]));
  return acc;
}
#endif

void main() {
  const uint t = gl_LocalInvocationID.x;
  // ROW_THREADS threads per chunk, kThreads / ROW_THREADS chunks per
  // workgroup: short rows do not leave most of 256 threads idle. Threads
  // past the last chunk still take the barriers.
  const uint lane = t % ROW_THREADS;
  const int64_t w =
      workgroup_index() * int64_t(kThreads / ROW_THREADS) + int64_t(t / ROW_THREADS);
  const int64_t rows = params.rows, len = params.len;
  const int64_t groups = params.groups, chunk = params.chunk;
  const bool has_chunk = w < rows * groups;
  // GPUs emulate 64-bit division in tens of instructions: divide in 32 bits
  // whenever the workgroup count allows.
  const int64_t row =
      fits_32_bits(rows * groups) ? int64_t(uint(w) / uint(groups)) : w / groups;
  const int64_t begin = row * len + (w - row * groups) * chunk;
  // Chunks hold fewer than 2^32 elements (buffers are indexed in 32 bits).
  const uint n = has_chunk ? uint(min(chunk, (row + 1) * len - begin)) : 0u;
  const bool small = fits_32_bits(params.n);

#if IN_BITS == 32
  partial[t] = RUNS ? reduce_runs(begin, n, lane) : reduce_elements(begin, n, lane, small);
#else
  partial[t] = reduce_elements(begin, n, lane, small);
#endif
  barrier();
  for (uint s = ROW_THREADS / 2u; s > 0u; s >>= 1u) {
    if (lane < s) partial[t] = combine(partial[t], partial[t + s]);
    barrier();
  }
  if (lane == 0u && has_chunk) out0[uint(w)] = store_out(to_out(partial[t]));
}
