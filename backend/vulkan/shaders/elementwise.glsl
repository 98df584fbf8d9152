// The interface of the elementwise shaders (copy, unary, binary, select):
// their parameters and specialization constants (params/elementwise.h) and
// the shape block. Each shader then declares its buffers (binding 1 on:
// the inputs, then the output), defines NUM_OPERANDS and
//   void element_at(uint i, uint loc[NUM_OPERANDS])
// (read element i of the inputs at their locations loc, write element i),
// and includes elementwise_main.glsl, which calls it for every element.
#include "common.glsl"
#include "params/elementwise.h"
#include "shape_block.glsl"
