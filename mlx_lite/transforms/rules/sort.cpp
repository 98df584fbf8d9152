// Derivative rules of Sort and ArgSort. Sorting permutes each line by
// argsort(x), which is locally constant in x: the jvp permutes the tangent
// the same way (take_along_axis) and the vjp puts the cotangent back where
// each element came from (put_along_axis into zeros), as MLX. The indices are
// cut from the graph (stop_gradient) so that second derivatives do not
// differentiate through them. ArgSort's output is piecewise constant: zero.
#include "mlx_lite/primitives/sort.h"

#include "mlx_lite/ops/ops.h"

namespace mlx_lite {

namespace {

array sorting_indices(const array& x, int axis, Stream s) {
  return stop_gradient(argsort(x, axis, s), s);
}

}  // namespace

std::vector<array> Sort::jvp(const std::vector<array>& primals, const std::vector<array>& tangents,
                             const std::vector<int>&) {
  return {
      take_along_axis(tangents[0], sorting_indices(primals[0], axis_, stream()), axis_, stream())};
}

std::vector<array> Sort::vjp(const std::vector<array>& primals,
                             const std::vector<array>& cotangents, const std::vector<int>&,
                             const std::vector<array>&) {
  const array& x = primals[0];
  return {put_along_axis(zeros_like(x, stream()), sorting_indices(x, axis_, stream()),
                         cotangents[0], axis_, stream())};
}

std::vector<array> ArgSort::jvp(const std::vector<array>& primals, const std::vector<array>&,
                                const std::vector<int>&) {
  return {zeros(primals[0].shape(), uint32, stream())};
}

std::vector<array> ArgSort::vjp(const std::vector<array>& primals, const std::vector<array>&,
                                const std::vector<int>&, const std::vector<array>&) {
  return {zeros_like(primals[0], stream())};
}

}  // namespace mlx_lite
