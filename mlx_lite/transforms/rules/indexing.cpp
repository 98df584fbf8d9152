// Derivative rules of Gather and Scatter. Both are linear in their data
// inputs: a gather's jvp gathers the tangent and its vjp adds the cotangent
// back where the gather read (a scatter_add into zeros, which absorbs the
// array's other cotangents); a scatter's vjp gathers the cotangent at the
// positions it wrote. As in MLX, nothing is differentiated with respect to
// an index array: a rule asked for it throws std::invalid_argument (wrap
// indices computed from differentiated values in stop_gradient).
//
// The two primitives treat out-of-range positions differently (a gather wraps
// a negative index once and then clamps it, a scatter drops the slice), so the
// vjps resolve every index to the position its forward pass used first.
#include "mlx_lite/primitives/indexing.h"

#include <fmt/format.h>

#include <stdexcept>

#include "mlx_lite/ops/ops.h"

namespace mlx_lite {

namespace {

// Index arithmetic is done in 64 bits only where 32 could overflow.
Dtype index_math_type(Dtype t) {
  return t.size == 8 || t == uint32 ? int64 : int32;
}

// idx with a negative index wrapped once, as both CPU kernels do.
array wrapped(const array& idx, int dim, Stream s) {
  array i = astype(idx, index_math_type(idx.dtype()), s);
  if (is_unsigned(idx.dtype())) return i;
  array zero = array(0, i.dtype());
  return where(less(i, zero, s), add(i, array(dim, i.dtype()), s), i, s);
}

// The positions a gather with these slice sizes reads: wrapped, then clamped
// so the whole slice lies inside the array (Gather::eval_cpu).
std::vector<array> gather_positions(const array& src, const std::vector<array>& indices,
                                    const std::vector<int>& axes, const Shape& slice_sizes,
                                    Stream s) {
  std::vector<array> out;
  for (size_t k = 0; k < axes.size(); ++k) {
    const int dim = src.shape(axes[k]);
    array i = wrapped(indices[k], dim, s);
    const int hi = std::max(dim - slice_sizes[axes[k]], 0);
    out.push_back(minimum(maximum(i, array(0, i.dtype()), s), array(hi, i.dtype()), s));
  }
  return out;
}

// Whether each update slice of a scatter lands inside the array (the others
// are dropped), shaped to broadcast against the updates.
array scatter_kept(const array& src, const std::vector<array>& indices,
                   const std::vector<int>& axes, const Shape& slice_shape,
                   const Shape& update_shape, Stream s) {
  const size_t index_ndim = update_shape.size() - slice_shape.size();
  Shape mask_shape(update_shape.begin(), update_shape.begin() + index_ndim);
  mask_shape.resize(update_shape.size(), 1);
  array kept = full(Shape(mask_shape.size(), 1), array(true), s);
  for (size_t k = 0; k < axes.size(); ++k) {
    const int dim = src.shape(axes[k]);
    array i = wrapped(indices[k], dim, s);
    array inside = logical_and(greater_equal(i, array(0, i.dtype()), s),
                               less_equal(i, array(dim - slice_shape[axes[k]], i.dtype()), s), s);
    kept = logical_and(kept, reshape(inside, mask_shape, s), s);
  }
  return kept;
}

// MLX's error for a derivative with respect to the index arrays (inputs
// first_index .. last_index - 1).
void check_not_indices(const std::vector<int>& argnums, int first_index, int last_index,
                       const char* op, const char* transform) {
  for (int arg : argnums) {
    if (arg >= first_index && arg < last_index) {
      throw std::invalid_argument(fmt::format(
          "[{}] Cannot calculate {} with respect to indices (input {}). Indices computed from "
          "values that are differentiated need stop_gradient, as in MLX.",
          op, transform, arg));
    }
  }
}

const char* scatter_op_name(Scatter::ReduceType r) {
  static constexpr const char* names[] = {"scatter", "scatter_add", "scatter_prod", "scatter_max",
                                          "scatter_min"};
  return names[r];
}

std::vector<array> slice_of_inputs(const std::vector<array>& inputs, size_t begin, size_t end) {
  return {inputs.begin() + begin, inputs.begin() + end};
}

// scatter_add(zeros_like(src), positions, updates, axes), marked as a scatter
// into zeros so that vjp can fold another cotangent of src into it. Built
// directly: positions share one shape and updates are a gather's cotangent,
// which is what scatter_add would check.
array scatter_add_into_zeros(const array& src, const std::vector<array>& positions,
                             const array& updates, const std::vector<int>& axes, Stream s) {
  std::vector<array> inputs{zeros_like(src, s)};
  inputs.insert(inputs.end(), positions.begin(), positions.end());
  inputs.push_back(updates);
  return array(src.shape(), src.dtype(),
               std::make_shared<Scatter>(s, Scatter::Sum, axes, /*zero_source=*/true),
               std::move(inputs));
}

}  // namespace

std::vector<array> Gather::jvp(const std::vector<array>& primals,
                               const std::vector<array>& tangents,
                               const std::vector<int>& argnums) {
  check_not_indices(argnums, 1, static_cast<int>(primals.size()), "gather", "JVP");
  const array& src = primals[0];
  auto indices = slice_of_inputs(primals, 1, primals.size());
  const array t = argnums[0] == 0 ? tangents[0] : zeros_like(src, stream());
  return {gather(t, indices, axes_, slice_sizes_, stream())};
}

std::vector<array> Gather::vjp(const std::vector<array>& primals,
                               const std::vector<array>& cotangents,
                               const std::vector<int>& argnums, const std::vector<array>&) {
  check_not_indices(argnums, 1, static_cast<int>(primals.size()), "gather", "VJP");
  // Only the source is left (argnums is {0}): add each cotangent slice where
  // its slice was read; the clamped positions are all in range, so the
  // scatter drops none.
  const array& src = primals[0];
  auto positions = gather_positions(src, slice_of_inputs(primals, 1, primals.size()), axes_,
                                    slice_sizes_, stream());
  return {scatter_add_into_zeros(src, positions, cotangents[0], axes_, stream())};
}

std::vector<array> Scatter::jvp(const std::vector<array>& primals,
                                const std::vector<array>& tangents,
                                const std::vector<int>& argnums) {
  const int last = static_cast<int>(primals.size()) - 1;
  check_not_indices(argnums, 1, last, scatter_op_name(reduce_), "JVP");
  if (reduce_ != None && reduce_ != Sum) {
    throw std::runtime_error(
        fmt::format("[{}] JVP is not implemented (as in MLX).", scatter_op_name(reduce_)));
  }
  // The same scatter of the tangents (zeros for the data inputs that do not
  // depend on the primals).
  array t_src = zeros_like(primals.front(), stream());
  array t_upd = zeros_like(primals.back(), stream());
  for (size_t i = 0; i < argnums.size(); ++i) {
    if (argnums[i] == 0) t_src = tangents[i];
    if (argnums[i] == last) t_upd = tangents[i];
  }
  auto indices = slice_of_inputs(primals, 1, last);
  return {reduce_ == Sum ? scatter_add(t_src, indices, t_upd, axes_, stream())
                         : scatter(t_src, indices, t_upd, axes_, stream())};
}

std::vector<array> Scatter::vjp(const std::vector<array>& primals,
                                const std::vector<array>& cotangents,
                                const std::vector<int>& argnums,
                                const std::vector<array>& outputs) {
  const int last = static_cast<int>(primals.size()) - 1;
  check_not_indices(argnums, 1, last, scatter_op_name(reduce_), "VJP");
  if (reduce_ == Prod) {
    throw std::runtime_error("[scatter_prod] VJP is not implemented (as in MLX).");
  }
  const array& src = primals.front();
  const array& upd = primals.back();
  const array& cot = cotangents[0];
  const array& result = outputs[0];
  const auto indices = slice_of_inputs(primals, 1, last);
  const Shape slice_shape(upd.shape().end() - src.ndim(), upd.shape().end());
  const Stream s = stream();
  std::vector<array> vjps;
  for (int arg : argnums) {
    if (arg == 0) {
      // Added to, src shows through everywhere; replaced, it shows through
      // where nothing was written; maxed or minned, where it is the result
      // (ties share, as MLX's rule does).
      if (reduce_ == Sum) {
        vjps.push_back(cot);
      } else if (reduce_ == None) {
        vjps.push_back(scatter(cot, indices, zeros_like(upd, s), axes_, s));
      } else {
        vjps.push_back(multiply(cot, astype(equal(result, src, s), cot.dtype(), s), s));
      }
      continue;
    }
    // Each update element's cotangent is read where it was written, as the
    // gather of the clamped positions, and zeroed where it did not survive.
    auto positions = gather_positions(src, indices, axes_, slice_shape, s);
    array read = gather(cot, positions, axes_, slice_shape, s);
    array survived = scatter_kept(src, indices, axes_, slice_shape, upd.shape(), s);
    if (reduce_ == None) {
      // Where slices overlap the last write wins: scatter each update
      // element's own number with the same scatter and see which one stayed.
      array ids = reshape(arange(0, static_cast<int>(upd.size()), s), upd.shape(), s);
      array owner = scatter(full(src.shape(), array(-1), int32, s), indices, ids, axes_, s);
      survived = equal(gather(owner, positions, axes_, slice_shape, s), ids, s);
    } else if (reduce_ == Max || reduce_ == Min) {
      // An update gets the cotangent where it is the result.
      array won = equal(gather(result, positions, axes_, slice_shape, s), upd, s);
      survived = logical_and(survived, won, s);
    }
    vjps.push_back(where(survived, read, zeros_like(read, s), s));
  }
  return vjps;
}

// zeros + addend, scattered: the addend becomes the source. Where nothing
// else holds it (vjp's running sum of an array's cotangents), the scatter
// writes over it (copy_gpu's donation), so the chain of scatters of an array
// read by several gathers (grid_sample's image) runs in one buffer.
std::optional<array> Scatter::absorb_addend(const array& output, const array& addend) const {
  if (reduce_ != Sum || !zero_source_) return std::nullopt;
  const auto& in = output.inputs();
  return scatter_add(addend, slice_of_inputs(in, 1, in.size() - 1), in.back(), axes_, stream());
}

}  // namespace mlx_lite
