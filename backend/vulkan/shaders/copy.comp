#version 450
#extension GL_GOOGLE_include_directive : require
// out = convert(in) elementwise, with backend/cpu/copy.cpp's conversions:
// contiguous copies, layout changes and astype (variants copy_<in>_<out>).
// OP selects where element i goes (params/elementwise.h):
//   kCopyDense       out[i]: a new row-major array;
//   kCopyStridedOut  a strided view of out, operand 1 of the parameters and
//                    the shape block (backend/vulkan/elementwise.cpp's
//                    copy_gpu_into).
#include "elementwise.glsl"
#define NUM_OPERANDS 2
// kCopyDense's shape block describes the source only.
#define LOCATED_OPERANDS (OP == kCopyStridedOut ? 2 : 1)

layout(set = 0, binding = 1) readonly buffer In { IN_ELEM in0[]; };
layout(set = 0, binding = 2) writeonly buffer Out { OUT_ELEM out0[]; };

const bool STRIDED_OUT = OP == kCopyStridedOut;

#define LOADED IN_ELEM

IN_ELEM element_load(uint loc[NUM_OPERANDS]) { return in0[loc[0]]; }

void element_store(uint i, uint loc[NUM_OPERANDS], IN_ELEM v) {
  const uint dst = STRIDED_OUT ? loc[1] : i;
  if (SAME_DTYPE) {
    // Moving the bits keeps NaN payloads, as the CPU's memcpy does.
    out0[dst] = OUT_ELEM(v);
  } else {
    out0[dst] = store_out(convert(load_in(v)));
  }
}

#if IN_BITS == 32 && OUT_BITS == 32
#define HAS_RUN_OF_4
layout(set = 0, binding = 1) readonly buffer In4 { uvec4 in4[]; };
layout(set = 0, binding = 2) writeonly buffer Out4 { uvec4 out4[]; };

void run_of_4(uint t, uint loc[NUM_OPERANDS]) {
  const uvec4 v = RUN_AT(in4, 0, loc[0]);
  if (SAME_DTYPE) {
    out4[t] = v;
    return;
  }
  uvec4 o;
  for (uint c = 0u; c < 4u; ++c) o[c] = out_bits(store_out(convert(load_in(in_from_bits(v[c])))));
  out4[t] = o;
}
#endif

#include "elementwise_main.glsl"
