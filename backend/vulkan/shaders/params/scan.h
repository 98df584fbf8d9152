// Parameters of shaders/scan.comp (Scan; backend/vulkan/scan.cpp).
// Bindings: 0 the shape block, 1 the input, 2 the output.
#ifndef MLX_PARAMS_SCAN_H
#define MLX_PARAMS_SCAN_H

#include "lines.h"

#ifdef __cplusplus
#include "mlx_lite/primitives/reduction.h"
#endif

MLX_PARAMS_BEGIN

// The output is row-contiguous in the input's shape: element k of line r
// goes to (r / inner) * len * inner + r % inner + k * inner. reverse and
// inclusive are parameters rather than specialization constants: four times
// fewer pipelines to compile, for a uniform branch.
struct ScanParams {
  Lines lines;
  int64_t inner;  // the output's extent past the axis
  uint32_t reverse;
  uint32_t inclusive;
};
MLX_PUSH_CONSTANTS(ScanParams)

// OP: a Scan::ReduceType. CONTIGUOUS: as arg_reduce's. MODE: one of the
// modes below. RUNS: threads load and store runs of 4 as vectors (scan.comp
// says when the host may set it).
#define MLX_SCAN_SPEC(X, S)        \
  X(S, 1, uint, OP, 0)             \
  X(S, 2, bool, CONTIGUOUS, false) \
  X(S, 3, uint, MODE, 0)           \
  X(S, 4, bool, RUNS, false)
MLX_SPEC_CONSTANTS(ScanSpec, MLX_SCAN_SPEC)

// A workgroup walks line r in tiles of kScanPerThread positions a thread
// (workgroups of 64, 128 or 256 threads).
MLX_CONSTANT(uint32_t, kWorkgroupPerLine, 0)
// Thread r scans line r alone.
MLX_CONSTANT(uint32_t, kScanThreadPerLine, 1)

// scan.comp's shared arrays hold the totals of this many threads.
MLX_CONSTANT(uint32_t, kScanMaxThreads, 256)
// Each thread of a workgroup scans this many consecutive positions of a tile.
MLX_CONSTANT(uint32_t, kScanPerThread, 16)

MLX_ENUM_VALUE(Scan, Sum, 0)
MLX_ENUM_VALUE(Scan, Prod, 1)
MLX_ENUM_VALUE(Scan, Max, 2)
MLX_ENUM_VALUE(Scan, Min, 3)
MLX_ENUM_VALUE(Scan, LogAddExp, 4)

MLX_PARAMS_END

#endif  // MLX_PARAMS_SCAN_H
