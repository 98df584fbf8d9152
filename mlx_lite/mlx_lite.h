// The whole public API of mlx_lite.
#pragma once

#include "mlx_lite/array.h"
#include "mlx_lite/device.h"
#include "mlx_lite/dtype.h"
#include "mlx_lite/gpu.h"
#include "mlx_lite/memory.h"
#include "mlx_lite/utils.h"
#include "ops/fast.h"
#include "ops/ops.h"
#include "transforms/autodiff.h"
#include "transforms/custom_function.h"
#include "transforms/eval.h"
