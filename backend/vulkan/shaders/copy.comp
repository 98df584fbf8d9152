#version 450
#extension GL_GOOGLE_include_directive : require
// out[i] = convert(in[i]) in row-major order: contiguous copies, layout
// changes and astype (variants copy_<in>_<out>), with backend/cpu/copy.cpp's
// conversions.
#include "common.glsl"

layout(set = 0, binding = 1) readonly buffer In { IN_ELEM in0[]; };
layout(set = 0, binding = 2) writeonly buffer Out { OUT_ELEM out0[]; };

void main() {
  const int64_t i = thread_index();
  if (i >= meta[0]) return;
  const int64_t loc = input_location(0, i);
  if (SAME_DTYPE) {
    // Moving the bits keeps NaN payloads, as the CPU's memcpy does.
    out0[uint(i)] = OUT_ELEM(in0[uint(loc)]);
  } else {
    out0[uint(i)] = store_out(convert(load_in(in0[uint(loc)])));
  }
}
