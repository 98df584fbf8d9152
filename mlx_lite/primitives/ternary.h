// Elementwise primitives of three inputs of one shape (the ops broadcast and
// cast before building the node).
#pragma once

#include "mlx_lite/primitives.h"

namespace mlx_lite {

// condition ? x : y, elementwise. Inputs: a bool_ condition and x, y of the
// output's dtype, all of the output's shape (possibly as broadcast views).
class Select : public UnaryPrimitive {
 public:
  explicit Select(Stream stream) : UnaryPrimitive(stream) {}
  void eval_cpu(const std::vector<array>& inputs, array& out) override;
  void eval_gpu(const std::vector<array>& inputs, array& out) override;
  std::vector<array> jvp(const std::vector<array>& primals, const std::vector<array>& tangents,
                         const std::vector<int>& argnums) override;
  std::vector<array> vjp(const std::vector<array>& primals, const std::vector<array>& cotangents,
                         const std::vector<int>& argnums,
                         const std::vector<array>& outputs) override;
  const char* name() const override { return "Select"; }
  bool is_equivalent(const Primitive& other) const override {
    return dynamic_cast<const Select*>(&other) != nullptr;
  }
};

}  // namespace mlx_lite
