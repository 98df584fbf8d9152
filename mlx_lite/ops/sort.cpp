// Graph ops of sorting and selection. Sort and ArgSort are primitives (a
// kernel is needed); partition, argpartition and topk compose them, as a
// full sort is a valid partition: MLX guarantees no more. A selection kernel
// would be faster for long rows and small k, and can replace them later
// without changing results that callers may rely on.
#include "mlx_lite/ops/sort.h"

#include <stdexcept>

#include "mlx_lite/ops/shape.h"
#include "mlx_lite/primitives/sort.h"
#include "mlx_lite/utils.h"

namespace mlx_lite {

namespace {

array flat(const array& a, StreamOrDevice s) {
  return reshape(a, {static_cast<ShapeElem>(a.size())}, s);
}

// kth normalized into [0, n), or std::invalid_argument.
int check_kth(const array& a, int kth, int axis, const char* op) {
  const int n = static_cast<int>(a.shape(axis));
  if (kth < -n || kth >= n) {
    throw std::invalid_argument(fmt::format(
        "[{}] kth {} is out of range for axis {} of size {} (array shape {}); expected {} <= kth "
        "< {}.",
        op, kth, axis, n, shape_string(a.shape()), -n, n));
  }
  return kth < 0 ? kth + n : kth;
}

}  // namespace

array sort(const array& a, int axis, StreamOrDevice s) {
  axis = normalize_axis(axis, a.ndim(), "sort");
  return array(a.shape(), a.dtype(), std::make_shared<Sort>(to_stream(s), axis), {a});
}
array sort(const array& a, StreamOrDevice s) {
  return sort(flat(a, s), 0, s);
}

array argsort(const array& a, int axis, StreamOrDevice s) {
  axis = normalize_axis(axis, a.ndim(), "argsort");
  return array(a.shape(), uint32, std::make_shared<ArgSort>(to_stream(s), axis), {a});
}
array argsort(const array& a, StreamOrDevice s) {
  return argsort(flat(a, s), 0, s);
}

array partition(const array& a, int kth, int axis, StreamOrDevice s) {
  axis = normalize_axis(axis, a.ndim(), "partition");
  check_kth(a, kth, axis, "partition");
  return sort(a, axis, s);
}
array partition(const array& a, int kth, StreamOrDevice s) {
  return partition(flat(a, s), kth, 0, s);
}

array argpartition(const array& a, int kth, int axis, StreamOrDevice s) {
  axis = normalize_axis(axis, a.ndim(), "argpartition");
  check_kth(a, kth, axis, "argpartition");
  return argsort(a, axis, s);
}
array argpartition(const array& a, int kth, StreamOrDevice s) {
  return argpartition(flat(a, s), kth, 0, s);
}

array topk(const array& a, int k, int axis, StreamOrDevice s) {
  axis = normalize_axis(axis, a.ndim(), "topk");
  const ShapeElem n = a.shape(axis);
  if (k < 0 || k > n) {
    throw std::invalid_argument(
        fmt::format("[topk] k {} is out of range for axis {} of size {} (array shape {}); "
                    "expected 0 <= k <= {}.",
                    k, axis, n, shape_string(a.shape()), n));
  }
  if (k == n) return a;  // every element, as MLX returns them
  // The last k of a sorted line are its k largest.
  Shape start(a.ndim(), 0);
  start[axis] = n - k;
  return slice(sort(a, axis, s), std::move(start), a.shape(), s);
}
array topk(const array& a, int k, StreamOrDevice s) {
  return topk(flat(a, s), k, 0, s);
}

bool Sort::is_equivalent(const Primitive& other) const {
  auto* o = dynamic_cast<const Sort*>(&other);
  return o && o->axis_ == axis_;
}
bool ArgSort::is_equivalent(const Primitive& other) const {
  auto* o = dynamic_cast<const ArgSort*>(&other);
  return o && o->axis_ == axis_;
}

}  // namespace mlx_lite
