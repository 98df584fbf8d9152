/// \file
/// The Primitive base: one node kind of the graph. Each primitive family
/// declares its classes in `mlx_lite/primitives/<family>.h`; its CPU kernel lives
/// in `backend/cpu/<family>.cpp`, its graph op in `mlx_lite/ops/<family>.cpp`.
#pragma once

#include <optional>
#include <ostream>
#include <vector>

#include "mlx_lite/array.h"
#include "mlx_lite/device.h"

namespace mlx_lite {

/// One node kind of the graph, as MLX's Primitive: what computes an array's
/// outputs from its inputs on one stream, with its derivative rules. Ops
/// create one per node and give it to the arrays it outputs.
class Primitive {
 public:
  /// A primitive whose work runs on `stream`.
  explicit Primitive(Stream stream) : stream_(stream) {}
  virtual ~Primitive() = default;
  Primitive(const Primitive&) = delete;
  Primitive& operator=(const Primitive&) = delete;

  /// The stream the work runs on.
  const Stream& stream() const { return stream_; }
  /// The stream's device.
  const Device& device() const { return stream_.device; }

  /// Computes `outputs` (already shaped and typed, without data) from `inputs`.
  virtual void eval_cpu(const std::vector<array>& inputs, std::vector<array>& outputs) = 0;
  /// Records the GPU kernel (`backend/vulkan/<family>.cpp`). Primitives without
  /// one yet wait for pending GPU work and run eval_cpu on the same buffers.
  virtual void eval_gpu(const std::vector<array>& inputs, std::vector<array>& outputs);

  /// Forward-mode derivative: the tangent of each output, given the tangents
  /// of the inputs listed in argnums. The default throws
  /// std::invalid_argument naming the primitive.
  virtual std::vector<array> jvp(const std::vector<array>& primals,
                                 const std::vector<array>& tangents,
                                 const std::vector<int>& argnums);
  /// Reverse-mode derivative: the cotangent of each input listed in argnums,
  /// given the cotangents of the outputs (and the outputs themselves). The
  /// default throws std::invalid_argument naming the primitive.
  virtual std::vector<array> vjp(const std::vector<array>& primals,
                                 const std::vector<array>& cotangents,
                                 const std::vector<int>& argnums,
                                 const std::vector<array>& outputs);
  /// `output + addend` built so that the work making `output` (one of this
  /// node's outputs, not evaluated yet) absorbs the addition, or nothing where
  /// it cannot; `addend` has output's shape and dtype. vjp sums the cotangents
  /// of one array through it before falling back to add: a scatter_add into
  /// zeros becomes the same scatter_add into the addend, saving a zero fill and
  /// an add of the whole array.
  virtual std::optional<array> absorb_addend(const array& /*output*/,
                                             const array& /*addend*/) const {
    return std::nullopt;
  }
  /// Whether differentiation stops here (StopGradient): the transforms treat
  /// the outputs as constants and do not walk the inputs, so the nodes behind
  /// need no rules.
  virtual bool stops_gradient() const { return false; }

  /// The class's name, as graph listings show it ("Add", "Gather", ...).
  virtual const char* name() const = 0;
  /// Writes the name, with parameters where a primitive has them.
  virtual void print(std::ostream& os) { os << name(); }
  /// Whether `other` computes the same function (same class and parameters).
  virtual bool is_equivalent(const Primitive& /*other*/) const { return false; }

 private:
  Stream stream_;
};

/// A primitive with exactly one output.
class UnaryPrimitive : public Primitive {
 public:
  /// A primitive whose work runs on `stream`.
  using Primitive::Primitive;
  /// Computes `output` (already shaped and typed, without data) from `inputs`.
  virtual void eval_cpu(const std::vector<array>& inputs, array& output) = 0;
  /// Records the GPU kernel; without one, waits for pending GPU work and runs
  /// eval_cpu on the same buffers.
  virtual void eval_gpu(const std::vector<array>& inputs, array& output);
  /// eval_cpu of the one output.
  void eval_cpu(const std::vector<array>& inputs, std::vector<array>& outputs) override {
    eval_cpu(inputs, outputs[0]);
  }
  /// eval_gpu of the one output.
  void eval_gpu(const std::vector<array>& inputs, std::vector<array>& outputs) override {
    eval_gpu(inputs, outputs[0]);
  }
};

}  // namespace mlx_lite
