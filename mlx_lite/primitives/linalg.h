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
  const char* name() const override { return "Matmul"; }
  bool is_equivalent(const Primitive& other) const override;
};

}  // namespace mlx_lite
