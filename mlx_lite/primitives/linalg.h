// Matrix multiplication.
#pragma once

#include "mlx_lite/primitives.h"

namespace mlx_lite {

// Batched matrix product of two arrays of one floating dtype, each at least
// 2-D with the same (broadcast) batch dims: (..., M, K) x (..., K, N).
class Matmul : public UnaryPrimitive {
 public:
  using UnaryPrimitive::UnaryPrimitive;
  void eval_cpu(const std::vector<array>& inputs, array& out) override;
  void eval_gpu(const std::vector<array>& inputs, array& out) override;
  std::vector<array> jvp(const std::vector<array>& primals, const std::vector<array>& tangents,
                         const std::vector<int>& argnums) override;
  std::vector<array> vjp(const std::vector<array>& primals, const std::vector<array>& cotangents,
                         const std::vector<int>& argnums,
                         const std::vector<array>& outputs) override;
  const char* name() const override { return "Matmul"; }
  bool is_equivalent(const Primitive& other) const override;
};

}  // namespace mlx_lite
