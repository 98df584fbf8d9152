/// \file
/// Every graph-building op.
#pragma once

#include "mlx_lite/ops/binary.h"
#include "mlx_lite/ops/comparison.h"
#include "mlx_lite/ops/conv.h"
#include "mlx_lite/ops/creation.h"
#include "mlx_lite/ops/indexing.h"
#include "mlx_lite/ops/linalg.h"
#include "mlx_lite/ops/matrix.h"
#include "mlx_lite/ops/random.h"
#include "mlx_lite/ops/reduction.h"
#include "mlx_lite/ops/shape.h"
#include "mlx_lite/ops/sort.h"
#include "mlx_lite/ops/ternary.h"
#include "mlx_lite/ops/unary.h"
