// What the view primitives compute on every backend: the output's strides
// and offset over the input's buffer (no data moves), and whether a reshape
// or a contiguous copy can be such a view. eval_cpu and eval_gpu call these.
#include "mlx_lite/primitives/views.h"

#include <algorithm>

namespace mlx_lite {

void Broadcast::eval(const std::vector<array>& inputs, array& out) {
  const array& in = inputs[0];
  const int diff = out.ndim() - in.ndim();
  Strides strides(out.ndim(), 0);
  for (int i = 0; i < in.ndim(); ++i) {
    // A size-1 dim stretched to n repeats its one element: stride 0.
    strides[diff + i] = in.shape(i) == out.shape(diff + i) ? in.strides()[i] : 0;
  }
  out.copy_shared_buffer(in, strides, in.offset());
}

void Transpose::eval(const std::vector<array>& inputs, array& out) {
  const array& in = inputs[0];
  Strides strides(axes_.size());
  for (size_t i = 0; i < axes_.size(); ++i) strides[i] = in.strides()[axes_[i]];
  out.copy_shared_buffer(in, strides, in.offset());
}

std::optional<Strides> Reshape::view_strides(const array& in, const Shape& shape) {
  if (in.flags().row_contiguous) return row_major_strides(shape);
  if (in.size() == 0) return std::nullopt;
  // numpy's no-copy reshape: match groups of old dims to groups of new dims
  // with the same element count; a group of old dims that is itself dense
  // can be re-split with any shape.
  Shape old_dims;
  Strides old_strides;
  for (int i = 0; i < in.ndim(); ++i) {
    if (in.shape(i) != 1) {
      old_dims.push_back(in.shape(i));
      old_strides.push_back(in.strides()[i]);
    }
  }
  Strides strides(shape.size(), 1);
  size_t oi = 0, oj = 1, ni = 0, nj = 1;
  while (ni < shape.size() && oi < old_dims.size()) {
    int64_t np = shape[ni], op = old_dims[oi];
    while (np != op) {
      if (np < op) {
        np *= shape[nj++];
      } else {
        op *= old_dims[oj++];
      }
    }
    for (size_t k = oi; k + 1 < oj; ++k) {
      if (old_strides[k] != old_dims[k + 1] * old_strides[k + 1]) return std::nullopt;
    }
    strides[nj - 1] = old_strides[oj - 1];
    for (size_t k = nj - 1; k > ni; --k) strides[k - 1] = strides[k] * shape[k];
    ni = nj++;
    oi = oj++;
  }
  return strides;  // trailing size-1 dims keep stride 1, which is never used
}

bool Reshape::try_view(const array& in, array& out) {
  auto strides = view_strides(in, out.shape());
  if (strides) out.copy_shared_buffer(in, *strides, in.offset());
  return strides.has_value();
}

void Slice::eval(const std::vector<array>& inputs, array& out) {
  const array& in = inputs[0];
  Strides strides(in.ndim());
  int64_t offset = in.offset();
  for (int i = 0; i < in.ndim(); ++i) {
    strides[i] = in.strides()[i] * strides_[i];
    if (out.size() > 0) offset += start_[i] * in.strides()[i];
  }
  out.copy_shared_buffer(in, strides, offset);
}

void AsStrided::eval(const std::vector<array>& inputs, array& out) {
  out.copy_shared_buffer(inputs[0], strides_, inputs[0].offset() + offset_);
}

void Diagonal::eval(const std::vector<array>& inputs, array& out) {
  const array& in = inputs[0];
  Strides strides;
  for (int i = 0; i < in.ndim(); ++i) {
    if (i != axis1_ && i != axis2_) strides.push_back(in.strides()[i]);
  }
  const int64_t s1 = in.strides()[axis1_], s2 = in.strides()[axis2_];
  // One step along the diagonal is one step along each of the two axes.
  strides.push_back(s1 + s2);
  int64_t offset = in.offset();
  if (out.size() > 0) {
    offset += std::max(-offset_, 0) * s1 + std::max(offset_, 0) * s2;
  }
  out.copy_shared_buffer(in, strides, offset);
}

bool View::try_view(const array& in, array& out) {
  const int64_t ib = static_cast<int64_t>(in.itemsize());
  const int64_t ob = static_cast<int64_t>(out.itemsize());
  if (ib == ob) {
    out.copy_shared_buffer(in);
    return true;
  }
  // Element sizes differ: the last axis must be dense (its elements' bytes
  // are regrouped), and every other stride and the offset must be whole
  // numbers of the new element size.
  const int nd = in.ndim();
  if (in.shape(nd - 1) != 1 && in.strides()[nd - 1] != 1) return false;
  if (in.offset() * ib % ob != 0) return false;
  Strides strides(nd, 1);
  for (int i = 0; i + 1 < nd; ++i) {
    if (in.strides()[i] * ib % ob != 0) return false;
    strides[i] = in.strides()[i] * ib / ob;
  }
  out.copy_shared_buffer(in, strides, in.offset() * ib / ob);
  return true;
}

bool Contiguous::try_share(const array& in, array& out) const {
  bool dense = in.flags().row_contiguous || (allow_col_major_ && in.flags().col_contiguous);
  if (dense) out.copy_shared_buffer(in);
  return dense;
}

void StopGradient::eval(const std::vector<array>& inputs, array& out) {
  out.copy_shared_buffer(inputs[0]);
}

}  // namespace mlx_lite
