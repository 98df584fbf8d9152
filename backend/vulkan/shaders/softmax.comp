#version 450
#extension GL_GOOGLE_include_directive : require
// Softmax (OP 0) and LogSumExp (OP 1) over the last axis: one workgroup per
// row (a power of two of at most 256 threads) reads the row three times: its
// max, the sum of exp(x - max), then the outputs. Threads stride over the row
// and combine through shared memory (no subgroup operations, so any subgroup
// size works). Arithmetic is in float, as the CPU's for every dtype; NaN and
// infinities follow the CPU's formulas (a row of -inf gives NaN softmax and
// -inf logsumexp).
//
// Metadata (int64): [rows, ndim, shape[ndim], offset, strides[ndim], len,
// stride], where shape and strides are the input's dims other than the last
// (merged where contiguous), so input_location(0, row) is the row's first
// element; element j follows at j * stride. Softmax's output is dense
// rows x len, logsumexp's dense rows.
#include "common.glsl"

layout(set = 0, binding = 1) readonly buffer In { IN_ELEM in0[]; };
layout(set = 0, binding = 2) writeonly buffer Out { OUT_ELEM out0[]; };

shared float partial[256];

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
  const int64_t row =
      int64_t(gl_WorkGroupID.x) + int64_t(gl_WorkGroupID.y) * int64_t(gl_NumWorkGroups.x);
  const int ndim = int(meta_at(1));
  const int tail = 2 + ndim + 1 + ndim;
  if (row >= meta_at(0)) return;  // the whole workgroup leaves together
  const uint len = uint(meta_at(tail));
  // Locations modulo 2^32, which is exact for a buffer of fewer elements
  // (negative strides wrap to the right place).
  const uint stride = uint(meta_at(tail + 1));
  const uint base = uint(input_location(0, row));

  float m = uintBitsToFloat(0xff800000u);  // -inf
  for (uint j = t; j < len; j += threads) m = max_nan(m, load_in(in0[base + j * stride]));
  m = workgroup_max(m);

  float s = 0.0;
  for (uint j = t; j < len; j += threads) s += exp(load_in(in0[base + j * stride]) - m);
  s = workgroup_sum(s);

  if (OP == 0u) {
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
