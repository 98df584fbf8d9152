// Derivative rules of Matmul. out = a b, so d out = da b + a db, and the
// cotangent c gives a's gradient c b^T and b's gradient a^T c. The op has
// already broadcast the batch dims (both operands and the output share them),
// so no batch reduction is needed here: Broadcast's vjp does it.
#include "mlx_lite/primitives/linalg.h"

#include <optional>

#include "mlx_lite/ops/ops.h"

namespace mlx_lite {

namespace {

// The transpose of the last two dims (a view).
array transpose_matrices(const array& a, Stream s) {
  return swapaxes(a, -1, -2, s);
}

}  // namespace

std::vector<array> Matmul::jvp(const std::vector<array>& primals,
                               const std::vector<array>& tangents,
                               const std::vector<int>& argnums) {
  std::optional<array> out;
  for (size_t i = 0; i < argnums.size(); ++i) {
    array term = argnums[i] == 0 ? matmul(tangents[i], primals[1], stream())
                                 : matmul(primals[0], tangents[i], stream());
    out = out ? add(*out, term, stream()) : term;
  }
  return {*out};
}

std::vector<array> Matmul::vjp(const std::vector<array>& primals,
                               const std::vector<array>& cotangents,
                               const std::vector<int>& argnums, const std::vector<array>&) {
  const array& cot = cotangents[0];
  std::vector<array> vjps;
  for (int arg : argnums) {
    vjps.push_back(arg == 0 ? matmul(cot, transpose_matrices(primals[1], stream()), stream())
                            : matmul(transpose_matrices(primals[0], stream()), cot, stream()));
  }
  return vjps;
}

}  // namespace mlx_lite
