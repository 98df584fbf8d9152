// Parameters of shaders/matmul_workgroup.comp, the Matmul of 16-bit floats
// on workgroup-scope matrices (VK_NV_cooperative_matrix2's, through
// VK_KHR_cooperative_matrix's instructions; backend/vulkan/matmul.cpp
// chooses it for whole tiles): the push constants and bindings of
// params/matmul_common.h, and the tiling.
#ifndef MLX_PARAMS_MATMUL_WORKGROUP_H
#define MLX_PARAMS_MATMUL_WORKGROUP_H

#include "matmul_common.h"

MLX_PARAMS_BEGIN

// A_K_FAST / B_N_FAST as in params/matmul.h: which dim of each operand is
// unit-strided, and so how its panels lie in shared memory.
#define MLX_MATMUL_WORKGROUP_SPEC(X, S) \
  X(S, 1, bool, A_K_FAST, true)         \
  X(S, 2, bool, B_N_FAST, true)
MLX_SPEC_CONSTANTS(MatmulWorkgroupSpec, MLX_MATMUL_WORKGROUP_SPEC)

// A workgroup of 256 threads computes a 128 x 256 tile of C, 32 of K a
// step; the device must list workgroup-scope shapes for 256 threads whose
// granularities divide these. Measured on an H200 (float16 and bfloat16
// 4096^2 and 8192^2, bench_linalg, 2026-11-27; TFLOP/s at 4096^2 / 8192^2):
// 128 x 256 x 32 248 / 278, 128 x 128 x 64 242 / 266, 256 x 128 x 32 213 /
// 255, 128 x 128 x 32 170 / 179, 64 x 256 x 32 164 / 181, 128 x 128 x 16
// 106 / 107; loading the panels as matrices straight from memory instead of
// through shared memory, 44 to 70.
MLX_CONSTANT(uint32_t, kMatmulWorkgroupThreads, 256)
MLX_CONSTANT(uint32_t, kMatmulWorkgroupTileM, 128)
MLX_CONSTANT(uint32_t, kMatmulWorkgroupTileN, 256)
MLX_CONSTANT(uint32_t, kMatmulWorkgroupStepK, 32)
// The panels' shared memory in 16-byte runs of 8 elements: each stored row
// (along the operand's unit-strided dim) padded by one run, whichever dim
// that is.
MLX_CONSTANT(uint32_t, kMatmulWorkgroupARuns,
             kMatmulWorkgroupTileM* kMatmulWorkgroupStepK / 8u + kMatmulWorkgroupTileM +
                 kMatmulWorkgroupStepK)
MLX_CONSTANT(uint32_t, kMatmulWorkgroupBRuns,
             kMatmulWorkgroupStepK* kMatmulWorkgroupTileN / 8u + kMatmulWorkgroupTileN +
                 kMatmulWorkgroupStepK)

MLX_PARAMS_END

#endif  // MLX_PARAMS_MATMUL_WORKGROUP_H
