// The copy kernels every layout change goes through.
#include <cstring>

#include "backend/cpu/strided.h"

namespace mlx_lite::cpu {

namespace {

// Copies src's elements in row-major order to dst + dst_strides (laid over
// src's shape), converting the dtype.
void copy_strided(const array& src, void* dst_ptr, Dtype dst_type, const Strides& dst_strides,
                  bool dst_row_contiguous) {
  dispatch_dtype(src.dtype(), [&]<typename S>() {
    dispatch_dtype(dst_type, [&]<typename D>() {
      auto* s = static_cast<const S*>(src.raw_data());
      auto* d = static_cast<D*>(dst_ptr);
      if constexpr (std::is_same_v<S, D>) {
        if (src.flags().row_contiguous && dst_row_contiguous) {
          std::memcpy(d, s, src.nbytes());
          return;
        }
      }
      for_each_offset<2>(src.shape(), {&src.strides(), &dst_strides}, [&](const auto& off) {
        d[off[1]] = static_cast<D>(static_cast<compute_type_t<S>>(s[off[0]]));
      });
    });
  });
}

}  // namespace

void copy_into(const array& src, const array& dst) {
  copy_strided(src, dst.raw_data(), dst.dtype(), dst.strides(), dst.flags().row_contiguous);
}

void copy_to_row_contiguous(const array& in, array& out) {
  common::allocate(out);
  // out may have another shape of the same size (a reshape that copies).
  copy_strided(in, out.raw_data(), out.dtype(), row_major_strides(in.shape()), true);
}

}  // namespace mlx_lite::cpu
