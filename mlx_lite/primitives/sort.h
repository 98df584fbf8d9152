// Sorting primitives: Sort (the sorted values) and ArgSort (the uint32
// indices that sort) along one axis. Both order floats with NaN after every
// number (all NaNs equal) and -0 equal to +0, and are stable: equal elements
// keep their order, so ArgSort's result is unique (CPU and GPU agree bit for
// bit). partition, argpartition and topk are built on them (ops/sort.cpp).
#pragma once

#include "mlx_lite/primitives.h"

namespace mlx_lite {

// The input's elements along `axis`, sorted ascending; the output is
// row-contiguous in the input's shape.
class Sort : public UnaryPrimitive {
 public:
  Sort(Stream stream, int axis) : UnaryPrimitive(stream), axis_(axis) {}
  void eval_cpu(const std::vector<array>& inputs, array& out) override;
  void eval_gpu(const std::vector<array>& inputs, array& out) override;
  std::vector<array> jvp(const std::vector<array>& primals, const std::vector<array>& tangents,
                         const std::vector<int>& argnums) override;
  std::vector<array> vjp(const std::vector<array>& primals, const std::vector<array>& cotangents,
                         const std::vector<int>& argnums,
                         const std::vector<array>& outputs) override;
  const char* name() const override { return "Sort"; }
  bool is_equivalent(const Primitive& other) const override;
  int axis() const { return axis_; }

 private:
  int axis_;
};

// The positions (uint32) along `axis` that sort the input: out[..., i, ...]
// is the index of the i-th smallest element of its line.
class ArgSort : public UnaryPrimitive {
 public:
  ArgSort(Stream stream, int axis) : UnaryPrimitive(stream), axis_(axis) {}
  void eval_cpu(const std::vector<array>& inputs, array& out) override;
  void eval_gpu(const std::vector<array>& inputs, array& out) override;
  std::vector<array> jvp(const std::vector<array>& primals, const std::vector<array>& tangents,
                         const std::vector<int>& argnums) override;
  std::vector<array> vjp(const std::vector<array>& primals, const std::vector<array>& cotangents,
                         const std::vector<int>& argnums,
                         const std::vector<array>& outputs) override;
  const char* name() const override { return "ArgSort"; }
  bool is_equivalent(const Primitive& other) const override;
  int axis() const { return axis_; }

 private:
  int axis_;
};

}  // namespace mlx_lite
