// Indexing primitives: Gather (MLX's general gather) and Scatter (replace or
// add slices at indexed positions). Their inputs are the source array, then
// one index array per axis (all of one broadcast shape, any integer dtype),
// then, for Scatter, the updates (already of the source's dtype).
#pragma once

#include <vector>

#include "mlx_lite/primitives.h"

namespace mlx_lite {

// out[i..., s...] = a[idx_0[i...] + s_0, ..., s_k] where axes[k] is indexed by
// idx_k and the other axes start at 0; out's shape is indices' shape followed
// by slice_sizes (size-1 slice dims kept, as MLX). Negative indices count
// from the end; indices still out of range are clamped so that the whole
// slice lies inside the array.
class Gather : public UnaryPrimitive {
 public:
  Gather(Stream stream, std::vector<int> axes, Shape slice_sizes)
      : UnaryPrimitive(stream), axes_(std::move(axes)), slice_sizes_(std::move(slice_sizes)) {}
  void eval_cpu(const std::vector<array>& inputs, array& out) override;
  void eval_gpu(const std::vector<array>& inputs, array& out) override;
  std::vector<array> jvp(const std::vector<array>& primals, const std::vector<array>& tangents,
                         const std::vector<int>& argnums) override;
  std::vector<array> vjp(const std::vector<array>& primals, const std::vector<array>& cotangents,
                         const std::vector<int>& argnums,
                         const std::vector<array>& outputs) override;
  const char* name() const override { return "Gather"; }
  bool is_equivalent(const Primitive& other) const override;
  const std::vector<int>& axes() const { return axes_; }
  const Shape& slice_sizes() const { return slice_sizes_; }

 private:
  std::vector<int> axes_;
  Shape slice_sizes_;
};

// A copy of a with each update slice written (None) or added (Sum) at its
// indexed position. updates has shape indices' shape + one dim per dim of a
// (each no larger than a's). Negative indices count from the end; a slice
// whose position is still out of range is dropped. Repeated positions apply
// in order: the last write wins for None, all add up for Sum. `zero_source`
// records that the source is known to be zeros (Gather's vjp builds such a
// scatter_add), so that the sum with another array can scatter into it
// instead (absorb_addend).
class Scatter : public UnaryPrimitive {
 public:
  /// How an update combines with the element it lands on (MLX's names).
  enum ReduceType { None, Sum, Prod, Max, Min };
  Scatter(Stream stream, ReduceType reduce, std::vector<int> axes, bool zero_source = false)
      : UnaryPrimitive(stream),
        reduce_(reduce),
        axes_(std::move(axes)),
        zero_source_(zero_source) {}
  void eval_cpu(const std::vector<array>& inputs, array& out) override;
  void eval_gpu(const std::vector<array>& inputs, array& out) override;
  std::vector<array> jvp(const std::vector<array>& primals, const std::vector<array>& tangents,
                         const std::vector<int>& argnums) override;
  std::vector<array> vjp(const std::vector<array>& primals, const std::vector<array>& cotangents,
                         const std::vector<int>& argnums,
                         const std::vector<array>& outputs) override;
  std::optional<array> absorb_addend(const array& output, const array& addend) const override;
  const char* name() const override { return "Scatter"; }
  bool is_equivalent(const Primitive& other) const override;
  ReduceType reduce_type() const { return reduce_; }
  const std::vector<int>& axes() const { return axes_; }
  bool zero_source() const { return zero_source_; }

 private:
  ReduceType reduce_;
  std::vector<int> axes_;
  bool zero_source_;
};

}  // namespace mlx_lite
