// Parameters of shaders/matmul.comp (Matmul on any device;
// backend/vulkan/matmul.cpp): the push constants and bindings of
// params/matmul_common.h, and the tiling's specialization constants.
#ifndef MLX_PARAMS_MATMUL_H
#define MLX_PARAMS_MATMUL_H

#include "matmul_common.h"

MLX_PARAMS_BEGIN

// Which dim consecutive threads walk when loading a panel: A's k and B's n
// when those are unit-strided (the host's choice), else A's m and B's k.
// A_VEC / B_VEC: that dim is unit-strided, its extent a multiple of 4 and
// every run of 4 along it starts at a multiple of 4 elements, so the
// operand loads as runs of 4. PAD_ROWS: the panels' rows in shared memory
// are padded rather than swizzled (the host checks that the device's
// shared memory holds them). WHOLE_TILES: M and N are multiples of the
// tile and K of the step along it, so no load needs a bounds check.
// SUBGROUP_BLOCKS: each 32 consecutive threads hold an 8 x 4 block of the
// threads' micro-tiles, not 16 x 2 (the host says where that pays).
// A_PAIRS / B_PAIRS: the operand's unit-strided dim is k, its elements are
// 32-bit, K is even and every pair of k starts at an even element, so each
// thread loads a block of 4 rows by a pair of k (128 x 128 tiles only; the
// shader loads element by element elsewhere).
#define MLX_MATMUL_SPEC(X, S)           \
  X(S, 1, bool, A_K_FAST, true)         \
  X(S, 2, bool, B_N_FAST, true)         \
  X(S, 3, bool, A_VEC, false)           \
  X(S, 4, bool, B_VEC, false)           \
  X(S, 5, bool, PAD_ROWS, false)        \
  X(S, 6, bool, WHOLE_TILES, false)     \
  X(S, 7, bool, SUBGROUP_BLOCKS, false) \
  X(S, 8, bool, A_PAIRS, false)         \
  X(S, 9, bool, B_PAIRS, false)
MLX_SPEC_CONSTANTS(MatmulSpec, MLX_MATMUL_SPEC)

// Threads per workgroup of the two tilings of C (shaders/matmul.comp): 64 x
// 64 tiles on 16 x 8 threads holding 8 x 4 each, 128 x 128 tiles on 16 x 16
// threads holding 8 x 8 each.
MLX_CONSTANT(uint32_t, kMatmulTile64Threads, 128)
MLX_CONSTANT(uint32_t, kMatmulTile128Threads, 256)
// The step along K (BK in shaders/matmul.comp), and the shorter one of the
// 64 x 64 tiling's SHORT_STEP variants (backend/vulkan/matmul.cpp says
// where they run). The host's whole-tile checks and splits of K use the
// longer, a multiple of both.
MLX_CONSTANT(uint32_t, kMatmulStepK, 16)
MLX_CONSTANT(uint32_t, kMatmulShortStepK, 8)

MLX_PARAMS_END

#endif  // MLX_PARAMS_MATMUL_H
