/// \file
/// The whole public API of mlx_lite.
#pragma once

#include "mlx_lite/array.h"
#include "mlx_lite/device.h"
#include "mlx_lite/dtype.h"
#include "mlx_lite/gpu.h"
#include "mlx_lite/graph_utils.h"
#include "mlx_lite/memory.h"
#include "mlx_lite/ops/autotune.h"
#include "mlx_lite/ops/fast.h"
#include "mlx_lite/ops/ops.h"
#include "mlx_lite/transforms/autodiff.h"
#include "mlx_lite/transforms/custom_function.h"
#include "mlx_lite/transforms/eval.h"
#include "mlx_lite/utils.h"
#include "mlx_lite/version.h"

/// \mainpage mlx_lite
///
/// A C++20 lazy array framework with the API of MLX's C++ core (`mlx::core`
/// becomes mlx_lite) on Vulkan: arrays are cheap handles to a graph of
/// primitives, nothing runs until eval(), views share buffers, and every op
/// takes `StreamOrDevice s = {}` last. `#include "mlx_lite/mlx_lite.h"` gives
/// the whole API, and the CMake target `mlx_lite::mlx_lite` links it.
///
/// Start at the namespace mlx_lite (arrays, ops, transforms, devices, memory)
/// and its namespaces mlx_lite::random, mlx_lite::fast (custom GPU kernels)
/// and mlx_lite::allocator, or at the files: each header is one family.

/// \namespace mlx_lite
/// The whole API: MLX's `mlx::core` under another name.
