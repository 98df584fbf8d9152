// Parameters of shaders/matmul_coop.comp, the Matmul of 16-bit floats on the
// device's matrix units (VK_NV_cooperative_matrix; backend/vulkan/matmul.cpp
// chooses it): the push constants and bindings of params/matmul_common.h,
// and the tiling's specialization constants.
#ifndef MLX_PARAMS_MATMUL_COOP_H
#define MLX_PARAMS_MATMUL_COOP_H

#include "matmul_common.h"

MLX_PARAMS_BEGIN

// A_K_FAST / B_N_FAST as in params/matmul.h: which dim of each operand is
// unit-strided, and so how its tiles lie in shared memory. A_VEC / B_VEC:
// the operand's runs of 8 elements along that dim start at multiples of 8
// (unit stride; offset, other stride and batch strides multiples of 8), so
// they load as one 16-byte vector. WHOLE_TILES: both are, and M and N are
// multiples of the tile, K of the step, so no load crosses an edge.
#define MLX_MATMUL_COOP_SPEC(X, S) \
  X(S, 1, bool, A_K_FAST, true)    \
  X(S, 2, bool, B_N_FAST, true)    \
  X(S, 3, bool, A_VEC, false)      \
  X(S, 4, bool, B_VEC, false)      \
  X(S, 5, bool, WHOLE_TILES, false)
MLX_SPEC_CONSTANTS(MatmulCoopSpec, MLX_MATMUL_COOP_SPEC)

// The output tiles: 128 x 128, shared by 8 subgroups of 32 threads (64 x 32
// each); K advances by 16 a step. Measured on an H100 (float16 4096^2 and
// 8192^2, bench_linalg, 2026-11-25): these were the fastest of 128 x 128,
// 128 x 256 and 256 x 128 tiles, warp tiles of 64 x 32, 32 x 64 and
// 64 x 64, steps of 16 or 32 and loads one or two steps ahead (steps of 32
// with 256-wide tiles pass the 48 KiB of shared memory).
MLX_CONSTANT(uint32_t, kMatmulCoopTileM, 128)
MLX_CONSTANT(uint32_t, kMatmulCoopTileN, 128)
MLX_CONSTANT(uint32_t, kMatmulCoopWarpM, 64)
MLX_CONSTANT(uint32_t, kMatmulCoopWarpN, 32)
MLX_CONSTANT(uint32_t, kMatmulCoopStepK, 16)
MLX_CONSTANT(uint32_t, kMatmulCoopThreads, 256)

MLX_PARAMS_END

#endif  // MLX_PARAMS_MATMUL_COOP_H
