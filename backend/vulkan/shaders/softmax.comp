#version 450
#extension GL_GOOGLE_include_directive : require
// Softmax (kSoftmax) and LogSumExp (kLogSumExp) over the last axis: one
// workgroup per line (params/softmax.h; a power of two of at most
// kSoftmaxMaxThreads threads) reads the line twice: its max and sum of
// exp(x - max) in one read (softmax_stats.glsl), then the outputs. Threads
// stride over the line and combine through shared memory (no subgroup
// operations, so any subgroup size works). Arithmetic is in float, as the
// CPU's for every dtype; NaN and infinities follow the CPU's formulas (a
// line of -inf gives NaN softmax and -inf logsumexp). Few long lines take
// softmax_split.comp instead, which spreads each over many workgroups.
#include "common.glsl"
#include "params/softmax.h"


#include "shape_block.glsl"
#include "lines.glsl"

layout(set = 0, binding = 1) readonly buffer In { IN_ELEM in0[]; };
layout(set = 0, binding = 2) writeonly buffer Out { OUT_ELEM out0[]; };

#include "softmax_stats.glsl"

void main() {
  const uint t = gl_LocalInvocationID.x;
  const uint threads = gl_WorkGroupSize.x;
  const int64_t row = workgroup_index();
  if (row >= params.lines.rows) return;  // the whole workgroup leaves together
  const uint len = uint(params.lines.len);
  // Locations modulo 2^32, which is exact for a buffer of fewer elements
  // (negative strides wrap to the right place).
  const uint stride = uint(params.lines.stride);
  const uint base = uint(line_start(row));

  Stats st = no_stats();
  for (uint j = t; j < len; j += threads) st = add_element(st, load_in(in0[base + j * stride]));
  st = workgroup_stats(st);

  if (OP == kSoftmax) {
    const float inv = 1.0 / st.s;
    const uint out_base = uint(row) * len;
    for (uint j = t; j < len; j += threads) {
      out0[out_base + j] = store_out(softmax_of(load_in(in0[base + j * stride]), st, inv));
    }
  } else if (t == 0u) {
    out0[uint(row)] = store_out(logsumexp_of(st));
  }
}
