#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// SUBGROUP_SHUFFLE 1 (the softmax_shuffle_<t> variants, for devices with
// subgroup shuffles): softmax_stats.glsl combines a line that fits a
// subgroup by shuffles instead of through shared memory.
#ifndef SUBGROUP_SHUFFLE
#define SUBGROUP_SHUFFLE 0
#endif
#if SUBGROUP_SHUFFLE
#extension GL_KHR_shader_subgroup_shuffle : require
#endif
// Softmax (kSoftmax) and LogSumExp (kLogSumExp) over the last axis:
// ROW_THREADS threads per line (params/softmax.h; a power of two of at most
// kSoftmaxMaxThreads, several short lines to a workgroup) gather the line's
// max and sum of exp(x - max) (softmax_stats.glsl), then write the outputs.
// A line of up to ROW_THREADS * kSoftmaxCachedPerThread elements is read
// once, into registers (as vectors where RUNS says it may), its max taken
// before its exps; a longer one twice, its statistics gathered online.
// Threads stride over the line and combine through shared memory, or by
// subgroup shuffles (above) where the line's threads fit one subgroup of the
// running pipeline (checked at run time, so any subgroup size works). Arithmetic is in float, as the
// CPU's for every dtype; NaN and infinities follow the CPU's formulas (a
// line of -inf gives NaN softmax and -inf logsumexp). Few long lines take
// softmax_split.comp instead, which spreads each over many workgroups.
#include "common.glsl"
#include "params/softmax.h"


#include "shape_block.glsl"
#include "lines.glsl"

layout(set = 0, binding = 1) readonly buffer In { IN_ELEM in0[]; };
layout(set = 0, binding = 2) writeonly buffer Out { OUT_ELEM out0[]; };
// Runs of 4 (RUNS, 32-bit elements only: the host checks).
#if IN_BITS == 32
layout(set = 0, binding = 1) readonly buffer In4 { vec4 in4[]; };
layout(set = 0, binding = 2) writeonly buffer Out4 { vec4 out4[]; };
#endif

#include "softmax_stats.glsl"

const uint kCached = kSoftmaxCachedPerThread;

// The line element that slot i of a thread's cached elements holds: lane +
// i * ROW_THREADS, or in RUNS lines (runs of 4 loaded as vectors) element
// i % 4 of the thread's run i / 4, that is run lane + (i / 4) * ROW_THREADS.
// Either grows with i and with the lane.
uint slot_element(uint i, uint lane) {
  return RUNS ? 4u * (lane + (i / 4u) * ROW_THREADS) + i % 4u : lane + i * ROW_THREADS;
}

// Loads a thread's cached elements of a line into v (slot_element's; whole
// runs as vectors where RUNS) and returns their max. Every load is issued
// before the first use; slots past the line's end hold -inf, which changes
// no max.
float load_cached(out float v[kCached], uint lane, uint len, uint base, uint stride) {
  if (RUNS) {
#if IN_BITS == 32
    // A RUNS line is whole runs: a run is in the line or past its end.
    [[unroll]] for (uint r = 0u; r < kCached / 4u; ++r) {
      const uint e = slot_element(4u * r, lane);
      const vec4 run = e < len ? in4[(base + e) / 4u] : vec4(minus_inf());
      [[unroll]] for (uint c = 0u; c < 4u; ++c) v[4u * r + c] = run[c];
    }
#endif
  } else {
    [[unroll]] for (uint i = 0u; i < kCached; ++i) {
      const uint j = slot_element(i, lane);
      v[i] = j < len ? load_in(in0[base + j * stride]) : minus_inf();
    }
  }
  float m = minus_inf();
  [[unroll]] for (uint i = 0u; i < kCached; ++i) m = max_nan(m, v[i]);
  return m;
}

// The statistics of a line held in registers: its max over the line's
// threads first, then each element's exp(x - max), kept in v for the
// outputs, and their sum: one exp an element, where the online combine of
// softmax_stats.glsl takes two more a step of the threads' combine and the
// outputs one more each. On an H200: softmax over 262144 x 128 74.4 -> 73.3
// us and 4096 x 4096 42.7 -> 42.0, but logsumexp over 4096 x 4096 26.4 ->
// 27.5 (two combines through shared memory, 8 barriers each). The special
// values come out as there: NaN or +inf make the sum NaN; -inf elements add
// 0 under a finite max; a line of -inf has max -inf and sum NaN (softmax
// NaN, logsumexp -inf). The exps stop at the line's last slot, a branch
// every thread of the line takes alike (lane 0's element of the slot past
// len), so a short line pays for its own elements only.
Stats cached_stats(inout float v[kCached], uint lane, uint len, uint base, uint stride) {
  const float m = segment_reduce(load_cached(v, lane, len, base, stride), ROW_THREADS, true);
  float s = 0.0;
  [[unroll]] for (uint i = 0u; i < kCached; ++i) {
    if (slot_element(i, 0u) >= len) break;
    v[i] = exp(v[i] - m);
    if (slot_element(i, lane) < len) s += v[i];
  }
  return Stats(m, segment_reduce(s, ROW_THREADS, false));
}

// Stores the softmax of cached_stats' elements, v holding their exp(x - max)
// (whole runs as vectors where RUNS).
void store_cached(float v[kCached], uint lane, uint len, uint out_base, float inv) {
  if (RUNS) {
#if IN_BITS == 32
    [[unroll]] for (uint r = 0u; r < kCached / 4u; ++r) {
      if (slot_element(4u * r, 0u) >= len) break;
      const uint e = slot_element(4u * r, lane);
      if (e >= len) continue;
      vec4 run;
      [[unroll]] for (uint c = 0u; c < 4u; ++c) run[c] = v[4u * r + c] * inv;
      out4[(out_base + e) / 4u] = run;
    }
#endif
  } else {
    [[unroll]] for (uint i = 0u; i < kCached; ++i) {
      if (slot_element(i, 0u) >= len) break;
      const uint j = slot_element(i, lane);
      if (j < len) out0[out_base + j] = store_out(v[i] * inv);
    }
  }
}

void main() {
  const uint t = gl_LocalInvocationID.x;
  // ROW_THREADS threads per line, gl_WorkGroupSize.x / ROW_THREADS lines per
  // workgroup: short lines share a workgroup instead of leaving most of a
  // small one idle. Threads past the last line still take the barriers.
  const uint lane = t % ROW_THREADS;
  const int64_t row =
      workgroup_index() * int64_t(gl_WorkGroupSize.x / ROW_THREADS) + int64_t(t / ROW_THREADS);
  const bool has_row = row < params.lines.rows;
  const uint len = has_row ? uint(params.lines.len) : 0u;
  // Locations modulo 2^32, which is exact for a buffer of fewer elements
  // (negative strides wrap to the right place).
  const uint stride = uint(params.lines.stride);
  const uint base = has_row ? uint(line_start(row)) : 0u;

  // A line of at most ROW_THREADS * kCached elements stays in registers,
  // kCached per thread, and is read once; a longer one is read twice.
  const bool cached = params.lines.len <= int64_t(ROW_THREADS * kCached);
  float v[kCached];
  Stats st = no_stats();
  if (cached) {
    st = cached_stats(v, lane, len, base, stride);
  } else {
    for (uint j = lane; j < len; j += ROW_THREADS) {
      st = add_element(st, load_in(in0[base + j * stride]));
    }
    st = segment_stats(st, ROW_THREADS);
  }

  if (OP == kSoftmax) {
    const float inv = 1.0 / st.s;
    const uint out_base = uint(row) * len;
    if (cached) {
      store_cached(v, lane, len, out_base, inv);
    } else {
      for (uint j = lane; j < len; j += ROW_THREADS) {
        out0[out_base + j] = store_out(softmax_of(load_in(in0[base + j * stride]), st, inv));
      }
    }
  } else if (has_row && lane == 0u) {
    out0[uint(row)] = store_out(logsumexp_of(st));
  }
}
