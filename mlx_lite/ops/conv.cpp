// Convolutions with MLX's API. One lowering, conv_general, which every other
// conv op calls. It is composed of existing differentiable ops, so vjp and jvp
// come from theirs and are the same on both devices (no conv primitive):
//   1. input dilation: pad a new unit axis after each spatial axis, merge, trim;
//   2. padding: slice off negative padding, pad positive padding with zeros;
//   3. im2col: one strided slice of the padded input per kernel offset,
//      concatenated along channels into (N, out spatial..., K * C_in);
//   4. one matmul with the weight reshaped to (K * C_in, C_out), batched over
//      images and groups (the patches regrouped group-major first); or, for a
//      depthwise convolution, a weighted sum of the taps' slices.
// Each step is one copy at most (concatenate writes the patch matrix once), and
// the matmul reads the transposed weight through its strides.
#include "mlx_lite/ops/conv.h"

#include <fmt/format.h>

#include <climits>
#include <stdexcept>
#include <string>

#include "mlx_lite/ops/binary.h"
#include "mlx_lite/ops/linalg.h"
#include "mlx_lite/ops/shape.h"
#include "mlx_lite/ops/unary.h"
#include "mlx_lite/utils.h"

namespace mlx_lite {

namespace {

constexpr const char* kOp = "conv";

std::string ints(const std::vector<int>& v) {
  return fmt::format("({})", fmt::join(v, ","));
}

[[noreturn]] void fail(const std::string& what) {
  throw std::invalid_argument(fmt::format("[conv] {}", what));
}

// MLX's run_conv_checks (plus a positive groups, where MLX divides by it).
void check_arrays(const array& in, const array& wt, int dims, int groups) {
  if (groups <= 0) fail(fmt::format("groups must be positive, got {}.", groups));
  if (!is_floating_point(in.dtype())) {
    fail(
        fmt::format("Invalid input array with type {}. Convolution currently only supports "
                    "floating point types (float32, float16, bfloat16).",
                    in.dtype()));
  }
  if (static_cast<int>(in.ndim()) != dims + 2) {
    fail(
        fmt::format("Invalid input array with {} dimensions for {}D convolution. Expected an "
                    "array with {} dimensions following the format [N, ..., C_in].",
                    in.ndim(), dims, dims + 2));
  }
  if (static_cast<int>(wt.ndim()) != dims + 2) {
    fail(
        fmt::format("Invalid weight array with {} dimensions for {}D convolution. Expected an "
                    "array with {} dimensions following the format [C_out, ..., C_in].",
                    wt.ndim(), dims, dims + 2));
  }
  const int c_in = in.shape(-1);
  if (c_in % groups != 0) {
    fail(
        fmt::format("The input channels must be divisible by the number of groups. Got input "
                    "with shape {} and {} groups.",
                    shape_string(in.shape()), groups));
  }
  if (groups > 1 && wt.shape(0) % groups != 0) {
    fail(
        fmt::format("If groups > 1, the output channels must be divisible by the number of "
                    "groups. Got {} output channels and {} groups.",
                    wt.shape(0), groups));
  }
  if (static_cast<int64_t>(c_in) != static_cast<int64_t>(groups) * wt.shape(-1)) {
    fail(
        fmt::format("Expected the input channels of the input with shape {} to be groups ({}) "
                    "times the weight's last dimension (weight shape {}).",
                    shape_string(in.shape()), groups, shape_string(wt.shape())));
  }
  for (int i = 1; i <= dims; ++i) {
    if (wt.shape(i) <= 0) {
      fail(fmt::format("The weight's spatial dimensions must be positive; got weight shape {}.",
                       shape_string(wt.shape())));
    }
  }
}

// A parameter given for every spatial axis, once for all, or not at all.
std::vector<int> per_axis(std::vector<int> v, int dims, int fallback, const char* name) {
  if (v.size() <= 1) return std::vector<int>(dims, v.empty() ? fallback : v[0]);
  if (static_cast<int>(v.size()) != dims) {
    fail(fmt::format("Invalid {} {} for {}D convolution.", name, ints(v), dims));
  }
  return v;
}

void check_positive(const std::vector<int>& v, const char* name) {
  for (int x : v) {
    if (x <= 0) fail(fmt::format("{} must be positive. Got {} {}.", name, name, ints(v)));
  }
}

// The spatial geometry of one convolution, every size checked.
struct Geometry {
  int dims;
  std::vector<int> stride, lo, hi, kdil, idil;
  Shape out;  // output spatial sizes
};

// Size of an axis of n elements with `d - 1` zeros between neighbours.
int64_t dilated(int64_t n, int64_t d) {
  return n == 0 ? 0 : (n - 1) * d + 1;
}

void compute_output(Geometry& g, const Shape& in_shape, const Shape& wt_shape) {
  for (int i = 0; i < g.dims; ++i) {
    const int64_t size = checked_dim(dilated(in_shape[i + 1], g.idil[i]), kOp);
    const int64_t padded = checked_dim(size + g.lo[i] + g.hi[i], kOp);
    const int64_t kernel = checked_dim(dilated(wt_shape[i + 1], g.kdil[i]), kOp);
    if (padded < kernel) {
      fail(fmt::format(
          "Spatial dimensions of input after padding cannot be smaller than weight spatial "
          "dimensions. Got error at axis {} for input with shape {}, padding low {}, padding "
          "high {}, kernel dilation {}, input dilation {} and weight of shape {}.",
          i + 1, shape_string(in_shape), ints(g.lo), ints(g.hi), ints(g.kdil), ints(g.idil),
          shape_string(wt_shape)));
    }
    g.out.push_back(checked_dim((padded - kernel) / g.stride[i] + 1, kOp));
  }
}

// x with `d - 1` zeros between neighbours along each spatial axis: a unit axis
// after the axis is padded to d, merged into it, and the tail trimmed.
array dilate_input(array x, const std::vector<int>& idil, Stream s) {
  for (int i = 0; i < static_cast<int>(idil.size()); ++i) {
    const int ax = i + 1, n = x.shape(ax), d = idil[i];
    if (d == 1 || n == 0) continue;
    x = expand_dims(x, ax + 1, s);
    x = pad(x, {ax + 1}, {0}, {d - 1}, array(0, x.dtype()), "constant", s);
    Shape merged = x.shape();
    merged[ax] = checked_dim(static_cast<int64_t>(n) * d, kOp);
    merged.erase(merged.begin() + ax + 1);
    x = reshape(x, merged, s);
    Shape start(x.ndim(), 0), stop = x.shape();
    stop[ax] = static_cast<int>(dilated(n, d));
    x = slice(x, std::move(start), std::move(stop), s);
  }
  return x;
}

// x cropped by the negative paddings and zero-padded by the positive ones.
array pad_input(array x, const std::vector<int>& lo, const std::vector<int>& hi, Stream s) {
  const int dims = static_cast<int>(lo.size());
  Shape start(x.ndim(), 0), stop = x.shape();
  bool crop = false, grow = false;
  std::vector<int> axes;
  Shape pad_lo, pad_hi;
  for (int i = 0; i < dims; ++i) {
    start[i + 1] = std::max(0, -lo[i]);
    stop[i + 1] -= std::max(0, -hi[i]);
    crop |= lo[i] < 0 || hi[i] < 0;
    grow |= lo[i] > 0 || hi[i] > 0;
    axes.push_back(i + 1);
    pad_lo.push_back(std::max(0, lo[i]));
    pad_hi.push_back(std::max(0, hi[i]));
  }
  if (crop) x = slice(x, std::move(start), std::move(stop), s);
  if (grow) x = pad(x, axes, pad_lo, pad_hi, array(0, x.dtype()), "constant", s);
  return x;
}

// The weight reversed along its spatial axes (a view).
array flip_kernel(const array& wt, int dims, Stream s) {
  Shape start(wt.ndim(), 0), stop = wt.shape(), steps(wt.ndim(), 1);
  for (int i = 1; i <= dims; ++i) {
    start[i] = -1;
    stop[i] = INT_MIN;
    steps[i] = -1;
  }
  return slice(wt, std::move(start), std::move(stop), std::move(steps), s);
}

// The strided slice of the padded input that each kernel offset meets, for
// the offsets in row-major order: each (N, out spatial..., C), a view.
std::vector<array> taps(const array& padded, const Geometry& g, const Shape& kernel, Stream s) {
  std::vector<array> slices;
  Shape k(g.dims, 0);
  while (true) {
    Shape start(padded.ndim(), 0), stop = padded.shape(), steps(padded.ndim(), 1);
    for (int i = 0; i < g.dims; ++i) {
      start[i + 1] = k[i] * g.kdil[i];
      stop[i + 1] = start[i + 1] + (g.out[i] - 1) * g.stride[i] + 1;
      steps[i + 1] = g.stride[i];
    }
    slices.push_back(slice(padded, std::move(start), std::move(stop), std::move(steps), s));
    int i = g.dims - 1;  // next kernel offset, last axis fastest
    while (i >= 0 && ++k[i] == kernel[i]) k[i--] = 0;
    if (i < 0) break;
  }
  return slices;
}

// im2col: the taps side by side, (N, out spatial..., K * C).
array patches(std::vector<array> slices, Stream s) {
  if (slices.size() == 1) return slices[0];
  return concatenate(std::move(slices), -1, s);
}

// A depthwise convolution (one input and one output channel per group): each
// tap's slice times that tap's weights, summed, elementwise (float32 slices in,
// float32 sums). As a matmul each group would have a single output column.
array depthwise(const std::vector<array>& slices, const array& wt, Stream s) {
  const int c = wt.shape(0), n = static_cast<int>(slices.size());
  array w = astype(reshape(wt, {c, n}, s), float32, s);  // (C, taps)
  auto term = [&](int k) {
    return multiply(slices[k], reshape(slice(w, {0, k}, {c, k + 1}, s), {c}, s), s);
  };
  array acc = term(0);
  for (int k = 1; k < n; ++k) acc = add(acc, term(k), s);
  return astype(acc, wt.dtype(), s);
}

// patches (N, out..., K * C) times the weight (O, kernel..., C / groups): one
// matmul batched over the images with the weight shared (stride 0). Its
// gradient for the weight is then N products summed, not one product whose
// reduction over N * out positions few workgroups would share.
array patch_matmul(const array& cols, const array& wt, int groups, Stream s) {
  const int n = cols.shape(0), depth = cols.shape(-1);  // depth = K * C
  Shape out_shape(cols.shape().begin(), cols.shape().end() - 1);
  const int p = checked_dim(checked_size(Shape(out_shape.begin() + 1, out_shape.end()), kOp), kOp);
  const int o = wt.shape(0);
  out_shape.push_back(o);
  if (groups == 1) {
    array a = reshape(cols, {n, p, depth}, s);
    array w = reshape(wt, {o, depth}, s);
    return reshape(matmul(a, transpose(w, {1, 0}, s), s), out_shape, s);
  }
  // Group-major: (N, G, P, K * C / G) patches times (G, K * C / G, O / G) weights.
  const int k =
      checked_dim(checked_size(Shape(wt.shape().begin() + 1, wt.shape().end() - 1), kOp), kOp);
  const int cg = wt.shape(-1), og = o / groups;
  array a = reshape(cols, {n, p, k, groups, cg}, s);
  a = reshape(transpose(a, {0, 3, 1, 2, 4}, s), {n, groups, p, k * cg}, s);
  array w = swapaxes(reshape(wt, {groups, og, k * cg}, s), 1, 2, s);
  array out = transpose(matmul(a, w, s), {0, 2, 1, 3}, s);  // (N, P, G, O / G)
  return reshape(out, out_shape, s);
}

}  // namespace

array conv_general(array in, array wt, std::vector<int> stride, std::vector<int> padding_lo,
                   std::vector<int> padding_hi, std::vector<int> kernel_dilation,
                   std::vector<int> input_dilation, int groups, bool flip, StreamOrDevice s_) {
  const int dims = static_cast<int>(in.ndim()) - 2;
  if (dims < 1 || dims > 3) {
    fail(
        fmt::format("Only works for inputs with 1-3 spatial dimensions. The inputs must be in "
                    "the format [N, ..., C_in]; got an input with shape {}.",
                    shape_string(in.shape())));
  }
  check_arrays(in, wt, dims, groups);
  Geometry g{dims,
             per_axis(std::move(stride), dims, 1, "strides"),
             per_axis(std::move(padding_lo), dims, 0, "padding"),
             per_axis(std::move(padding_hi), dims, 0, "padding"),
             per_axis(std::move(kernel_dilation), dims, 1, "kernel dilation"),
             per_axis(std::move(input_dilation), dims, 1, "input dilation"),
             {}};
  check_positive(g.stride, "Stride sizes");
  check_positive(g.kdil, "Kernel dilation sizes");
  check_positive(g.idil, "Input dilation sizes");
  compute_output(g, in.shape(), wt.shape());

  Stream s = to_stream(s_);
  const Dtype type = promote_types(in.dtype(), wt.dtype());
  in = astype(in, type, s);
  wt = astype(wt, type, s);
  if (flip) wt = flip_kernel(wt, dims, s);

  const Shape kernel(wt.shape().begin() + 1, wt.shape().end() - 1);
  array padded = pad_input(dilate_input(in, g.idil, s), g.lo, g.hi, s);
  if (wt.shape(-1) == 1 && wt.shape(0) == groups) {
    return depthwise(taps(astype(padded, float32, s), g, kernel, s), wt, s);
  }
  return patch_matmul(patches(taps(padded, g, kernel, s), s), wt, groups, s);
}

array conv1d(const array& input, const array& weight, int stride, int padding, int dilation,
             int groups, StreamOrDevice s) {
  check_arrays(input, weight, 1, groups);
  return conv_general(input, weight, {stride}, {padding}, {padding}, {dilation}, {1}, groups, false,
                      s);
}

array conv2d(const array& input, const array& weight, const std::pair<int, int>& stride,
             const std::pair<int, int>& padding, const std::pair<int, int>& dilation, int groups,
             StreamOrDevice s) {
  check_arrays(input, weight, 2, groups);
  return conv_general(input, weight, {stride.first, stride.second}, {padding.first, padding.second},
                      {padding.first, padding.second}, {dilation.first, dilation.second}, {1, 1},
                      groups, false, s);
}

array conv3d(const array& input, const array& weight, const std::tuple<int, int, int>& stride,
             const std::tuple<int, int, int>& padding, const std::tuple<int, int, int>& dilation,
             int groups, StreamOrDevice s) {
  check_arrays(input, weight, 3, groups);
  auto [s0, s1, s2] = stride;
  auto [p0, p1, p2] = padding;
  auto [d0, d1, d2] = dilation;
  return conv_general(input, weight, {s0, s1, s2}, {p0, p1, p2}, {p0, p1, p2}, {d0, d1, d2},
                      {1, 1, 1}, groups, false, s);
}

namespace {

// MLX's transposed convolution: conv_general over the input dilated by the
// stride with the flipped kernel, padded so that output i * stride - padding
// + k * dilation receives input i times kernel tap k.
array conv_transpose_general(const array& in, const array& wt, int dims,
                             const std::vector<int>& stride, const std::vector<int>& padding,
                             const std::vector<int>& dilation,
                             const std::vector<int>& output_padding, int groups, StreamOrDevice s) {
  check_arrays(in, wt, dims, groups);
  check_positive(stride, "Stride sizes");
  check_positive(dilation, "Kernel dilation sizes");
  std::vector<int> lo(dims), hi(dims);
  for (int i = 0; i < dims; ++i) {
    const int64_t kernel = dilated(wt.shape(i + 1), dilation[i]);
    lo[i] = checked_dim(kernel - 1 - padding[i], kOp);
    hi[i] = checked_dim(kernel - 1 - static_cast<int64_t>(padding[i]) + output_padding[i], kOp);
  }
  return conv_general(in, wt, std::vector<int>(dims, 1), lo, hi, dilation, stride, groups, true, s);
}

}  // namespace

array conv_transpose1d(const array& input, const array& weight, int stride, int padding,
                       int dilation, int output_padding, int groups, StreamOrDevice s) {
  return conv_transpose_general(input, weight, 1, {stride}, {padding}, {dilation}, {output_padding},
                                groups, s);
}

array conv_transpose2d(const array& input, const array& weight, const std::pair<int, int>& stride,
                       const std::pair<int, int>& padding, const std::pair<int, int>& dilation,
                       const std::pair<int, int>& output_padding, int groups, StreamOrDevice s) {
  return conv_transpose_general(input, weight, 2, {stride.first, stride.second},
                                {padding.first, padding.second}, {dilation.first, dilation.second},
                                {output_padding.first, output_padding.second}, groups, s);
}

array conv_transpose3d(const array& input, const array& weight,
                       const std::tuple<int, int, int>& stride,
                       const std::tuple<int, int, int>& padding,
                       const std::tuple<int, int, int>& dilation,
                       const std::tuple<int, int, int>& output_padding, int groups,
                       StreamOrDevice s) {
  auto [s0, s1, s2] = stride;
  auto [p0, p1, p2] = padding;
  auto [d0, d1, d2] = dilation;
  auto [o0, o1, o2] = output_padding;
  return conv_transpose_general(input, weight, 3, {s0, s1, s2}, {p0, p1, p2}, {d0, d1, d2},
                                {o0, o1, o2}, groups, s);
}

}  // namespace mlx_lite
