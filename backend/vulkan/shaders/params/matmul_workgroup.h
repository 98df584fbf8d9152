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

// A workgroup of 128 threads (one Hopper warpgroup) computes a 128 x 128
// tile of C, 32 of K a step; the device must list workgroup-scope shapes
// for 128 threads whose granularities divide these. Measured on an H200
// (float16 4096^2 and 8192^2, bench_linalg, TFLOP/s at 4096^2 / 8192^2):
// - 2026-11-27, 256 threads: 128 x 256 x 32 248 / 278, 128 x 128 x 64
//   242 / 266, 256 x 128 x 32 213 / 255, 128 x 128 x 32 170 / 179,
//   64 x 256 x 32 164 / 181, 128 x 128 x 16 106 / 107; loading the panels
//   as matrices straight from memory instead of through shared memory, 44
//   to 70.
// - 2026-11-27, later: 128 x 128 x 32 on 128 threads 266 / 285 against
//   128 x 256 x 32 on 256 threads 250 / 280 in the same call. NVIDIA's
//   compiler gives the 256-thread kernel 244 registers a thread (the
//   driver's pipeline statistics), so one workgroup fills an SM's
//   registers; half the threads let two share an SM. On 128 threads:
//   128 x 128 x 64 149 / 158, 64 x 256 x 32 145 / 162, 64 x 128 x 64
//   162 / 171; on 256 threads, 128 x 256 x 32 with unpadded rows 113 /
//   121. Double-buffered panels (one barrier a step) do not fit as sized
//   here: 50 KiB with the 8 KiB the driver reserves, past its 48 KiB.
// - 2026-11-28: sized to each layout's panels, nn and tn fit (37.9 KB);
//   double-buffered so, they ran at 0.6x the rate (160 / 171). Later: 16
//   KiB of shared memory added to this kernel, and nothing else, cost the
//   same (165 / 169): past about 23 KiB of panels an SM holds one
//   workgroup, not two. Steps of 16, double-buffered within that: 153 /
//   160 (docs/performance.md, issue 17's twentieth part).
MLX_CONSTANT(uint32_t, kMatmulWorkgroupThreads, 128)
MLX_CONSTANT(uint32_t, kMatmulWorkgroupTileM, 128)
MLX_CONSTANT(uint32_t, kMatmulWorkgroupTileN, 128)
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
