// Lines: an input seen as lines along one axis, one line per element of the
// other ("kept") dims, in row-major order of those. arg_reduce.comp,
// scan.comp and softmax.comp work on lines (shaders/lines.glsl reads them;
// backend/vulkan/lines.h builds them).
#ifndef MLX_PARAMS_LINES_H
#define MLX_PARAMS_LINES_H

#include "shape_block.h"

MLX_PARAMS_BEGIN

// Line r starts at the r-th element (row-major) of the kept dims' layout
// from `offset`; element k of it is `k * stride` further.
struct Lines {
  int64_t rows;
  int64_t len;
  int64_t stride;
  int64_t offset;  // the input's first element
  ShapeRef kept;   // the kept dims' shape and strides
};

MLX_PARAMS_END

#endif  // MLX_PARAMS_LINES_H
