#version 450
#extension GL_GOOGLE_include_directive : require
// Softmax (kSoftmax) and LogSumExp (kLogSumExp) over the last axis: one
// workgroup per line (params/softmax.h; a power of two of at most
// kSoftmaxMaxThreads threads) reads the line three times: its max, the sum
// of exp(x - max), then the outputs. Threads stride over the line and
// combine through shared memory (no subgroup operations, so any subgroup
// size works). Arithmetic is in float, as the CPU's for every dtype; NaN and
// infinities follow the CPU's formulas (a line of -inf gives NaN softmax and
// -inf logsumexp).
#include "common.glsl"
#include "params/softmax.h"


#include "shape_block.glsl"
#include "lines.glsl"

layout(set = 0, binding = 1) readonly buffer In { IN_ELEM in0[]; };
layout(set = 0, binding = 2) writeonly buffer Out { OUT_ELEM out0[]; };

shared float partial[kSoftmaxMaxThreads];

// The max, with NaN winning as in the CPU's maxCoeff<PropagateNaN>.
float max_nan(float a, float b) { return (a > b || isnan(a)) ? a : b; }

float workgroup_max(float v) {
  const uint t = gl_LocalInvocationID.x;
  partial[t] = v;
  barrier();
  for (uint s = gl_WorkGroupSize.x / 2u; s > 0u; s >>= 1u) {
    if (t < s) partial[t] = max_nan(partial[t], partial[t + s]);
    barrier();
  }
  const float r = partial[0];
  barrier();  // partial is reused by the next reduction
  return r;
}

float workgroup_sum(float v) {
  const uint t = gl_LocalInvocationID.x;
  partial[t] = v;
  barrier();
  for (uint s = gl_WorkGroupSize.x / 2u; s > 0u; s >>= 1u) {
    if (t < s) partial[t] += partial[t + s];
    barrier();
  }
  return partial[0];
}

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

  float m = uintBitsToFloat(0xff800000u);  // -inf
  for (uint j = t; j < len; j += threads) m = max_nan(m, load_in(in0[base + j * stride]));
  m = workgroup_max(m);

  float s = 0.0;
  for (uint j = t; j < len; j += threads) s += exp(load_in(in0[base + j * stride]) - m);
  s = workgroup_sum(s);

  if (OP == kSoftmax) {
    // The CPU multiplies by the reciprocal of the sum.
    const float inv = 1.0 / s;
    const uint out_base = uint(row) * len;
    for (uint j = t; j < len; j += threads) {
      out0[out_base + j] = store_out(exp(load_in(in0[base + j * stride]) - m) * inv);
    }
  } else if (t == 0u) {
    // An infinite max is the answer (shifting by it would give NaN).
    out0[uint(row)] = store_out(isinf(m) ? m : m + log(s));
  }
}
