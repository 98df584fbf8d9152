#version 450
#extension GL_GOOGLE_include_directive : require
// out[i] = convert(in[i]): contiguous copies, layout changes and astype.
#include "common.glsl"

layout(set = 0, binding = 1) readonly buffer In { IN_STORAGE in0[]; };
layout(set = 0, binding = 2) writeonly buffer Out { OUT_STORAGE out0[]; };

void main() {
  const int64_t i = thread_index();
  if (i >= meta[0]) return;
  out0[uint(i)] = store_out(convert(load_in(in0[uint(input_location(0, i))])));
}
