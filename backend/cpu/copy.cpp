// The copy kernels every layout change goes through.
#include <cstring>

#include "backend/cpu/strided.h"

namespace mlx_lite::cpu {

void copy_into(const array& src, const array& dst) {
  dispatch_dtype(src.dtype(), [&]<typename S>() {
    dispatch_dtype(dst.dtype(), [&]<typename D>() {
      auto* s = static_cast<const S*>(src.raw_data());
      auto* d = static_cast<D*>(dst.raw_data());
      if constexpr (std::is_same_v<S, D>) {
        if (src.flags().row_contiguous && dst.flags().row_contiguous) {
          std::memcpy(d, s, src.nbytes());
          return;
        }
      }
      for_each_offset<2>(src.shape(), {&src.strides(), &dst.strides()}, [&](const auto& off) {
        d[off[1]] = static_cast<D>(static_cast<compute_type_t<S>>(s[off[0]]));
      });
    });
  });
}

void copy_to_row_contiguous(const array& in, array& out) {
  allocate(out);
  copy_into(in, out);
}

}  // namespace mlx_lite::cpu
