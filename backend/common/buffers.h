// Giving a kernel's output its buffer, the same way on every backend: a new
// row-contiguous block, or an input's block taken over (MLX's donation).
#pragma once

#include "mlx_lite/array.h"

namespace mlx_lite::common {

// Gives `out` a fresh row-contiguous buffer.
inline void allocate(array& out) {
  out.set_data(allocator::malloc(out.nbytes()));
}

// Gives `out` (row-contiguous) the buffer of `in` when it can take it over,
// as MLX donates: nobody else refers to `in`, which is laid out as `out`
// (dense from its buffer's start, same size and item size). Only for kernels
// that read element i of their inputs before writing element i of the
// output, so working in place is safe.
inline bool try_donate(const array& in, array& out) {
  if (!in.is_donatable() || !in.flags().row_contiguous || in.offset() != 0 ||
      in.size() != out.size() || in.itemsize() != out.itemsize()) {
    return false;
  }
  // Node outputs are built row-major: keep their strides (no allocation).
  if (out.flags().row_contiguous) {
    out.copy_shared_buffer(in, out.strides(), 0);
  } else {
    out.copy_shared_buffer(in, row_major_strides(out.shape()), 0);
  }
  return true;
}

}  // namespace mlx_lite::common
