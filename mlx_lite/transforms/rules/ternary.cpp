// Derivative rules of Select: the condition routes each element's derivative
// to x or y; the condition itself is boolean and gets a zero gradient. The op
// broadcasts and casts before building the node, so all three inputs have the
// output's shape.
#include "mlx_lite/primitives/ternary.h"

#include "mlx_lite/ops/ops.h"

namespace mlx_lite {

std::vector<array> Select::jvp(const std::vector<array>& primals,
                               const std::vector<array>& tangents,
                               const std::vector<int>& argnums) {
  const array& cond = primals[0];
  // x's and y's tangents, zero for an operand that does not depend on the primals.
  std::vector<array> t(2, zeros_like(primals[1], stream()));
  for (size_t i = 0; i < argnums.size(); ++i) {
    if (argnums[i] > 0) t[argnums[i] - 1] = tangents[i];
  }
  return {where(cond, t[0], t[1], stream())};
}

std::vector<array> Select::vjp(const std::vector<array>& primals,
                               const std::vector<array>& cotangents,
                               const std::vector<int>& argnums, const std::vector<array>&) {
  const array& cond = primals[0];
  const array& cot = cotangents[0];
  std::vector<array> vjps;
  for (int arg : argnums) {
    if (arg == 0) {
      vjps.push_back(zeros_like(cond, stream()));
      continue;
    }
    array zero = zeros_like(cot, stream());
    vjps.push_back(arg == 1 ? where(cond, cot, zero, stream()) : where(cond, zero, cot, stream()));
  }
  return vjps;
}

}  // namespace mlx_lite
