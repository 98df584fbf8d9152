#version 450
#extension GL_GOOGLE_include_directive : require
// out[i] = cond[i] ? x[i] : y[i] (Select, backend/cpu/ternary.cpp), every
// operand read through its own strides. Variants select_<dtype> (IN and OUT
// are that dtype; the condition is bool). The chosen element's bits are
// moved unchanged, as the CPU's assignment does.
#include "common.glsl"
#define NUM_OPERANDS 3
#include "shape_locations.glsl"

layout(set = 0, binding = 1) readonly buffer Cond { uint8_t cond0[]; };
layout(set = 0, binding = 2) readonly buffer X { IN_ELEM x0[]; };
layout(set = 0, binding = 3) readonly buffer Y { IN_ELEM y0[]; };
layout(set = 0, binding = 4) writeonly buffer Out { OUT_ELEM out0[]; };

void main() {
  const int64_t i = thread_index();
  if (i >= meta[0]) return;
  int64_t loc[NUM_OPERANDS];
  operand_locations(i, loc);
  // Read only the chosen operand: a broadcast or strided y costs nothing where
  // cond picks x.
  out0[uint(i)] = cond0[uint(loc[0])] != uint8_t(0) ? x0[uint(loc[1])] : y0[uint(loc[2])];
}
