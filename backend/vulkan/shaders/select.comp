#version 450
#extension GL_GOOGLE_include_directive : require
// out[i] = cond[i] ? x[i] : y[i] (Select, backend/cpu/ternary.cpp), every
// operand read through its own strides. Variants select_<dtype> (IN and OUT
// are that dtype; the condition is bool). The chosen element's bits are
// moved unchanged, as the CPU's assignment does.
#include "elementwise.glsl"
#define NUM_OPERANDS 3

layout(set = 0, binding = 1) readonly buffer Cond { uint8_t cond0[]; };
layout(set = 0, binding = 2) readonly buffer X { IN_ELEM x0[]; };
layout(set = 0, binding = 3) readonly buffer Y { IN_ELEM y0[]; };
layout(set = 0, binding = 4) writeonly buffer Out { OUT_ELEM out0[]; };

#define LOADED IN_ELEM

IN_ELEM element_load(uint loc[NUM_OPERANDS]) {
  // Read only the chosen operand: a broadcast or strided y costs nothing where
  // cond picks x.
  return cond0[loc[0]] != uint8_t(0) ? x0[loc[1]] : y0[loc[2]];
}

void element_store(uint i, uint loc[NUM_OPERANDS], IN_ELEM v) { out0[i] = v; }

#include "elementwise_main.glsl"
