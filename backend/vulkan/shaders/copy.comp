#version 450
#extension GL_GOOGLE_include_directive : require
// out = convert(in) elementwise, with backend/cpu/copy.cpp's conversions:
// contiguous copies, layout changes and astype (variants copy_<in>_<out>).
// OP selects where element i goes:
//   0  out[i]: a new row-major array (the metadata describes the input only);
//   1  a strided view of out: the metadata's operand 1 (offset, strides) is
//      the destination, which is how concatenate, pad and slice_update write
//      their parts (backend/vulkan/elementwise.cpp's copy_gpu_into).
#include "common.glsl"
#define NUM_OPERANDS 2
#include "shape_locations.glsl"

layout(set = 0, binding = 1) readonly buffer In { IN_ELEM in0[]; };
layout(set = 0, binding = 2) writeonly buffer Out { OUT_ELEM out0[]; };

const bool STRIDED_OUT = OP == 1u;

void main() {
  const int64_t i = thread_index();
  if (i >= meta[0]) return;
  int64_t src, dst;
  if (STRIDED_OUT) {
    int64_t loc[NUM_OPERANDS];
    operand_locations(i, loc);
    src = loc[0];
    dst = loc[1];
  } else {
    src = input_location(0, i);
    dst = i;
  }
  if (SAME_DTYPE) {
    // Moving the bits keeps NaN payloads, as the CPU's memcpy does.
    out0[uint(dst)] = OUT_ELEM(in0[uint(src)]);
  } else {
    out0[uint(dst)] = store_out(convert(load_in(in0[uint(src)])));
  }
}
