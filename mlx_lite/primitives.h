// The Primitive base: one node kind of the graph. Each primitive family
// declares its classes in mlx_lite/primitives/<family>.h; its CPU kernel lives
// in backend/cpu/<family>.cpp, its graph op in mlx_lite/ops/<family>.cpp.
#pragma once

#include <optional>
#include <ostream>
#include <vector>

#include "mlx_lite/array.h"
#include "mlx_lite/device.h"

namespace mlx_lite {

class Primitive {
 public:
  explicit Primitive(Stream stream) : stream_(stream) {}
  virtual ~Primitive() = default;
  Primitive(const Primitive&) = delete;
  Primitive& operator=(const Primitive&) = delete;

  const Stream& stream() const { return stream_; }
  const Device& device() const { return stream_.device; }

  // Computes `outputs` (already shaped and typed, without data) from `inputs`.
  virtual void eval_cpu(const std::vector<array>& inputs, std::vector<array>& outputs) = 0;
  // Records the GPU kernel (backend/vulkan/<family>.cpp). Primitives without
  // one yet wait for pending GPU work and run eval_cpu on the same buffers.
  virtual void eval_gpu(const std::vector<array>& inputs, std::vector<array>& outputs);

  // Forward- and reverse-mode derivatives, for the inputs listed in argnums.
  virtual std::vector<array> jvp(const std::vector<array>& primals,
                                 const std::vector<array>& tangents,
                                 const std::vector<int>& argnums);
  virtual std::vector<array> vjp(const std::vector<array>& primals,
                                 const std::vector<array>& cotangents,
                                 const std::vector<int>& argnums,
                                 const std::vector<array>& outputs);
  // `output + addend` built so that the work making `output` (one of this
  // node's outputs, not evaluated yet) absorbs the addition, or nothing where
  // it cannot; `addend` has output's shape and dtype. vjp sums the cotangents
  // of one array through it before falling back to add: a scatter_add into
  // zeros becomes the same scatter_add into the addend, saving a zero fill and
  // an add of the whole array.
  virtual std::optional<array> absorb_addend(const array& /*output*/,
                                             const array& /*addend*/) const {
    return std::nullopt;
  }
  // Whether differentiation stops here (StopGradient): the transforms treat
  // the outputs as constants and do not walk the inputs, so the nodes behind
  // need no rules.
  virtual bool stops_gradient() const { return false; }

  virtual const char* name() const = 0;
  virtual void print(std::ostream& os) { os << name(); }
  // Whether `other` computes the same function (same class and parameters).
  virtual bool is_equivalent(const Primitive& /*other*/) const { return false; }

 private:
  Stream stream_;
};

// A primitive with exactly one output.
class UnaryPrimitive : public Primitive {
 public:
  using Primitive::Primitive;
  virtual void eval_cpu(const std::vector<array>& inputs, array& output) = 0;
  virtual void eval_gpu(const std::vector<array>& inputs, array& output);
  void eval_cpu(const std::vector<array>& inputs, std::vector<array>& outputs) override {
    eval_cpu(inputs, outputs[0]);
  }
  void eval_gpu(const std::vector<array>& inputs, std::vector<array>& outputs) override {
    eval_gpu(inputs, outputs[0]);
  }
};

}  // namespace mlx_lite
