// The interface of the elementwise shaders (copy, unary, binary, select):
// their parameters and specialization constants (params/elementwise.h) and
// the shape block. Each shader then declares its buffers (binding 1 on:
// the inputs, then the output), defines NUM_OPERANDS, the type LOADED (a
// macro) and
//   LOADED element_load(uint loc[NUM_OPERANDS])
//     (read an element's inputs at their locations loc)
//   void element_store(uint i, uint loc[NUM_OPERANDS], LOADED v)
//     (compute element i from what was read and write it)
// and includes elementwise_main.glsl, which calls them for every element.
// Reading and writing are apart so that a thread with several elements
// issues all its reads before its first write (elementwise_main.glsl).
#include "common.glsl"
#include "params/elementwise.h"
#include "shape_block.glsl"

// Whether operand k is a splat (SPLATS): one element for every position.
bool is_splat(int k) { return (SPLATS & (1u << uint(k))) != 0u; }

// Operand k's run of 4 at location `at` (RUNS_OF_4) from RUNS, a uvec4 view
// of its binding: its 16 bytes from there (`at` is then a multiple of 4),
// or a splat's one 4-byte element four times.
#define RUN_AT(RUNS, k, at) (is_splat(k) ? uvec4(RUNS[(at) / 4u][(at) % 4u]) : RUNS[(at) / 4u])

// 4-byte elements as the bits that runs of 4 (RUNS_OF_4) move as uvec4s.
#if IN_BITS == 32
IN_ELEM in_from_bits(uint b) {
#if IN_KIND == 3
  return uintBitsToFloat(b);
#elif IN_KIND == 2
  return int(b);
#else
  return b;
#endif
}
#endif

#if OUT_BITS == 32
uint out_bits(OUT_ELEM v) {
#if OUT_KIND == 3
  return floatBitsToUint(v);
#else
  return uint(v);
#endif
}
#endif
