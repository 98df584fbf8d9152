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
// OP 0's metadata describes the source only.
#define LOCATED_OPERANDS (OP == 1u ? 2 : 1)
#include "shape_locations.glsl"

layout(set = 0, binding = 1) readonly buffer In { IN_ELEM in0[]; };
layout(set = 0, binding = 2) writeonly buffer Out { OUT_ELEM out0[]; };

const bool STRIDED_OUT = OP == 1u;

void element_at(uint i, uint loc[NUM_OPERANDS]) {
  const uint dst = STRIDED_OUT ? loc[1] : i;
  if (SAME_DTYPE) {
    // Moving the bits keeps NaN payloads, as the CPU's memcpy does.
    out0[dst] = OUT_ELEM(in0[loc[0]]);
  } else {
    out0[dst] = store_out(convert(load_in(in0[loc[0]])));
  }
}

#include "elementwise_main.glsl"
