// Primitives that make arrays from parameters alone (no inputs).
#pragma once

#include "mlx_lite/primitives.h"

namespace mlx_lite {

// out[i] = start + i * step, computed in double and cast to the dtype.
class Arange : public UnaryPrimitive {
 public:
  Arange(Stream stream, double start, double step)
      : UnaryPrimitive(stream), start_(start), step_(step) {}
  void eval_cpu(const std::vector<array>& inputs, array& out) override;
  void eval_gpu(const std::vector<array>& inputs, array& out) override;
  std::vector<array> jvp(const std::vector<array>& primals, const std::vector<array>& tangents,
                         const std::vector<int>& argnums) override;
  std::vector<array> vjp(const std::vector<array>& primals, const std::vector<array>& cotangents,
                         const std::vector<int>& argnums,
                         const std::vector<array>& outputs) override;
  const char* name() const override { return "Arange"; }
  bool is_equivalent(const Primitive& other) const override;

 private:
  double start_;
  double step_;
};

// A 2-D array with ones where column - row == k_ and zeros elsewhere.
class Eye : public UnaryPrimitive {
 public:
  Eye(Stream stream, int k) : UnaryPrimitive(stream), k_(k) {}
  void eval_cpu(const std::vector<array>& inputs, array& out) override;
  void eval_gpu(const std::vector<array>& inputs, array& out) override;
  std::vector<array> jvp(const std::vector<array>& primals, const std::vector<array>& tangents,
                         const std::vector<int>& argnums) override;
  std::vector<array> vjp(const std::vector<array>& primals, const std::vector<array>& cotangents,
                         const std::vector<int>& argnums,
                         const std::vector<array>& outputs) override;
  const char* name() const override { return "Eye"; }
  bool is_equivalent(const Primitive& other) const override;

 private:
  int k_;
};

}  // namespace mlx_lite
