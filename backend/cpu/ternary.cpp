// CPU kernel of Select: reads the (possibly strided or broadcast) inputs
// through their own strides, with a plain loop when all are row-contiguous.
#include "mlx_lite/primitives/ternary.h"

#include "backend/cpu/strided.h"

namespace mlx_lite {

void Select::eval_cpu(const std::vector<array>& inputs, array& out) {
  const array& cond = inputs[0];
  const array& x = inputs[1];
  const array& y = inputs[2];
  if (!common::try_donate(x, out) && !common::try_donate(y, out)) common::allocate(out);
  dispatch_dtype(out.dtype(), [&]<typename T>() {
    const bool* c = static_cast<const bool*>(cond.raw_data());
    const T* xs = static_cast<const T*>(x.raw_data());
    const T* ys = static_cast<const T*>(y.raw_data());
    T* o = static_cast<T*>(out.raw_data());
    if (cond.flags().row_contiguous && x.flags().row_contiguous && y.flags().row_contiguous) {
      const size_t n = out.size();
      for (size_t i = 0; i < n; ++i) o[i] = c[i] ? xs[i] : ys[i];
      return;
    }
    cpu::for_each_offset<4>(
        out.shape(), {&cond.strides(), &x.strides(), &y.strides(), &out.strides()},
        [&](const auto& off) { o[off[3]] = c[off[0]] ? xs[off[1]] : ys[off[2]]; });
  });
}

}  // namespace mlx_lite
