// The whole public API of mlx_lite.
#pragma once

#include "mlx_lite/array.h"
#include "mlx_lite/device.h"
#include "mlx_lite/dtype.h"
#include "mlx_lite/gpu.h"
#include "mlx_lite/graph_utils.h"
#include "mlx_lite/memory.h"
#include "mlx_lite/ops/fast.h"
#include "mlx_lite/ops/ops.h"
#include "mlx_lite/transforms/autodiff.h"
#include "mlx_lite/transforms/custom_function.h"
#include "mlx_lite/transforms/eval.h"
#include "mlx_lite/utils.h"
#include "mlx_lite/version.h"
