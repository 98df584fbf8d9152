#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// ArgReduce: the index (uint32) of the first smallest (ArgMin) or largest
// (ArgMax) element of each line, NaN counting as the extreme (the first NaN
// wins), as the CPU does. MODE (params/arg_reduce.h):
//   kWorkgroupPerChunk  workgroup w scans chunk w % groups of line w / groups
//                       with its threads (consecutive threads read
//                       consecutive elements when the line is contiguous),
//                       combines (value, index) pairs through shared memory
//                       and writes the winner's index in the line to out0[w];
//   kThreadPerLine      thread r scans line r alone (many short lines, or
//                       lines across the fast axis: neighbouring threads
//                       then read neighbouring elements);
//   kPickAmongChunks    workgroup r picks among the winners of line r's
//                       chunks (cand, the output of kWorkgroupPerChunk),
//                       reading their values from the input again.
// RUNS (kWorkgroupPerChunk, 32-bit elements): the chunk is whole runs of 4
// that start at multiples of 4 elements in the buffer (the host checks), and
// each thread loads its runs as vectors: a quarter of the load instructions
// for the same bytes, and four times the bytes in flight per load.
#include "common.glsl"
#include "params/arg_reduce.h"


#include "shape_block.glsl"
#include "lines.glsl"

layout(set = 0, binding = 1) readonly buffer In { IN_ELEM in0[]; };
layout(set = 0, binding = 2) readonly buffer Cand { uint cand[]; };
layout(set = 0, binding = 3) writeonly buffer Out { uint out0[]; };
#if IN_BITS == 32
layout(set = 0, binding = 1) readonly buffer In4 { uvec4 in4[]; };
#endif

#if IN_KIND == 3
#define VAL float
#elif IN_U64
#define VAL uint64_t
#else
#define VAL int64_t
#endif

const uint kThreads = kArgReduceThreads;
const uint kNone = 0xffffffffu;  // no element seen yet
shared VAL shared_value[kThreads];
shared uint shared_index[kThreads];

// Whether (v, i) beats (best, b): NaN beats any number, then the larger
// (ArgMax) or smaller value, then the smaller index.
bool beats(VAL v, uint i, VAL best, uint b) {
  if (i == kNone) return false;
  if (b == kNone) return true;
#if IN_KIND == 3
  if (isnan(best)) return isnan(v) && i < b;
  if (isnan(v)) return true;
#endif
  if (v == best) return i < b;
  return OP == ArgReduce_ArgMax ? v > best : v < best;
}

// Takes (v, i) as the best so far where it beats it.
void take(VAL v, uint i, inout VAL best, inout uint best_i) {
  if (beats(v, i, best, best_i)) {
    best = v;
    best_i = i;
  }
}

VAL value_at(int64_t start, uint k) {
  if (CONTIGUOUS) return VAL(load_in(in0[uint(start) + k]));
  return VAL(load_in(in0[uint(start + int64_t(k) * params.lines.stride)]));
}

#if IN_BITS == 32
// Thread t's share of a RUNS chunk: the runs [begin / 4, end / 4) of the
// line whose run 0 is buffer run `line_run`, each thread taking every
// kThreads-th run. Four runs are loaded before the first comparison, each
// into its own (best, index) pair: four short chains of comparisons instead
// of one long one. Each pair sees its indices in increasing order (a tie
// never beats), and beats() orders any two pairs, so merging them in any
// order gives the first winner.
void scan_runs(uint line_run, uint begin, uint end, uint t, inout VAL best, inout uint best_i) {
  const uint last = end / 4u;
  VAL b[4] = VAL[4](best, best, best, best);
  uint bi[4] = uint[4](best_i, best_i, best_i, best_i);
  uint q = begin / 4u + t;
  for (; q + 3u * kThreads < last; q += 4u * kThreads) {
    uvec4 runs[4];
    [[unroll]] for (uint u = 0u; u < 4u; ++u) runs[u] = in4[line_run + q + u * kThreads];
    [[unroll]] for (uint u = 0u; u < 4u; ++u) {
      [[unroll]] for (uint c = 0u; c < 4u; ++c) {
        take(VAL(load_in_bits(runs[u][c])), 4u * (q + u * kThreads) + c, b[u], bi[u]);
      }
    }
  }
  for (; q < last; q += kThreads) {
    const uvec4 run = in4[line_run + q];
    [[unroll]] for (uint c = 0u; c < 4u; ++c) take(VAL(load_in_bits(run[c])), 4u * q + c, b[0], bi[0]);
  }
  [[unroll]] for (uint u = 0u; u < 4u; ++u) take(b[u], bi[u], best, best_i);
}
#endif

// Combines the workgroup's (value, index) pairs; the winner ends in slot 0.
void workgroup_reduce(uint t, VAL v, uint i) {
  shared_value[t] = v;
  shared_index[t] = i;
  barrier();
  for (uint s = kThreads / 2u; s > 0u; s >>= 1u) {
    if (t < s && beats(shared_value[t + s], shared_index[t + s], shared_value[t],
                       shared_index[t])) {
      shared_value[t] = shared_value[t + s];
      shared_index[t] = shared_index[t + s];
    }
    barrier();
  }
}

void main() {
  const int64_t rows = params.lines.rows, len = params.lines.len;
  const int64_t groups = params.groups, chunk = params.chunk;
  VAL best = VAL(0);
  uint best_i = kNone;

  if (MODE == kThreadPerLine) {
    const int64_t r = thread_index();
    if (r >= rows) return;
    const int64_t start = line_start(r);
    for (uint k = 0u; k < uint(len); ++k) {
      take(value_at(start, k), k, best, best_i);
    }
    out0[uint(r)] = best_i;
    return;
  }

  const uint t = gl_LocalInvocationID.x;
  const int64_t w = workgroup_index();
  if (MODE == kPickAmongChunks) {
    if (w >= rows) return;  // the whole workgroup leaves together
    const int64_t start = line_start(w);
    for (uint j = t; j < uint(groups); j += kThreads) {
      const uint k = cand[uint(w * groups) + j];
      take(value_at(start, k), k, best, best_i);
    }
    workgroup_reduce(t, best, best_i);
    if (t == 0u) out0[uint(w)] = shared_index[0];
    return;
  }

  if (w >= rows * groups) return;
  const int64_t r = w / groups;
  const uint begin = uint((w - r * groups) * chunk);
  const uint end = uint(min(len, int64_t(begin) + chunk));
  const int64_t start = line_start(r);
  if (RUNS) {
#if IN_BITS == 32
    scan_runs(uint(start) / 4u, begin, end, t, best, best_i);
#endif
  } else {
    // Each thread sees its indices in increasing order, so a tie never
    // beats. Four loads are issued before the first comparison: more reads
    // in flight.
    uint k = begin + t;
    for (; k + 3u * kThreads < end; k += 4u * kThreads) {
      VAL v[4];
      for (uint u = 0u; u < 4u; ++u) v[u] = value_at(start, k + u * kThreads);
      for (uint u = 0u; u < 4u; ++u) take(v[u], k + u * kThreads, best, best_i);
    }
    for (; k < end; k += kThreads) take(value_at(start, k), k, best, best_i);
  }
  workgroup_reduce(t, best, best_i);
  if (t == 0u) out0[uint(w)] = shared_index[0];
}
