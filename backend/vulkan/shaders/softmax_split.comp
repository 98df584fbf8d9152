#version 450
#extension GL_GOOGLE_include_directive : require
// Softmax and LogSumExp over few long lines: each line is cut into parts,
// one workgroup each, so that a handful of lines still fills a large GPU
// (softmax.comp's one workgroup per line would leave it mostly idle). The
// first dispatch (FINISH 0) reads each part once for its max and sum
// (softmax_stats.glsl); the second (FINISH 1) combines a line's part stats
// and writes the part's softmax, reading it a second time, or the line's
// logsumexp. Combining stats follows the CPU's special values whatever the
// split (softmax_stats.glsl says how). params/softmax_split.h holds the
// layout.
#include "common.glsl"
#include "params/softmax_split.h"


#include "shape_block.glsl"
#include "lines.glsl"

layout(set = 0, binding = 1) readonly buffer In { IN_ELEM in0[]; };
#if FINISH
layout(set = 0, binding = 2) readonly buffer PartStats { vec2 part_stats[]; };
layout(set = 0, binding = 3) writeonly buffer Out { OUT_ELEM out0[]; };
#else
layout(set = 0, binding = 2) writeonly buffer PartStats { vec2 part_stats[]; };
#endif

#include "softmax_stats.glsl"

#if FINISH
// Line `row`'s stats, from its parts' (at most one per thread).
Stats line_stats(uint row, uint parts) {
  const uint t = gl_LocalInvocationID.x;
  Stats st = no_stats();
  if (t < parts) {
    const vec2 p = part_stats[row * parts + t];
    st = Stats(p.x, p.y);
  }
  return workgroup_stats(st);
}
#endif

void main() {
  const uint t = gl_LocalInvocationID.x;
  const uint threads = gl_WorkGroupSize.x;
  const uint parts = uint(params.parts);
  const uint w = uint(workgroup_index());
  const bool per_line = FINISH != 0 && OP == kLogSumExp;
  const uint row = per_line ? w : w / parts;
  if (row >= uint(params.lines.rows)) return;  // the whole workgroup leaves together
  const uint part = per_line ? 0u : w - row * parts;
  const uint len = uint(params.lines.len);
  const uint begin = part * uint(params.part_len);
  const uint end = min(len, begin + uint(params.part_len));
  // Locations modulo 2^32, which is exact for a buffer of fewer elements
  // (negative strides wrap to the right place).
  const uint stride = uint(params.lines.stride);
  const uint base = uint(line_start(int64_t(row)));

#if FINISH
  const Stats st = line_stats(row, parts);
  if (OP == kSoftmax) {
    const float inv = 1.0 / st.s;
    for (uint j = begin + t; j < end; j += threads) {
      out0[row * len + j] = store_out(softmax_of(load_in(in0[base + j * stride]), st, inv));
    }
  } else if (t == 0u) {
    out0[row] = store_out(logsumexp_of(st));
  }
#else
  Stats st = no_stats();
  for (uint j = begin + t; j < end; j += threads) st = add_element(st, load_in(in0[base + j * stride]));
  st = workgroup_stats(st);
  if (t == 0u) part_stats[w] = vec2(st.m, st.s);
#endif
}
