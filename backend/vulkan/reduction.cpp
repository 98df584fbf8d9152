// GPU kernel of Reduce (shaders/reduce.comp).
#include "mlx_lite/primitives/reduction.h"

#include <algorithm>
#include <numeric>

#include "backend/common/buffers.h"
#include "backend/common/layout.h"
#include "backend/vulkan/encoder.h"
#include "backend/vulkan/shaders/params/reduce.h"

namespace mlx_lite {

namespace params = vulkan::params;

namespace {

using ReduceKernel = vulkan::Kernel<params::ReduceParams, params::ReduceSpec>;

constexpr uint32_t kThreads = params::kReduceThreads;
// Rows fewer than this leave a large GPU idle with one workgroup each (an
// H100 runs 132 x 8 workgroups of 256 at once): they get split into chunks.
constexpr int64_t kTargetWorkgroups = 1024;
// Below this many elements per chunk a second dispatch costs more than it saves.
constexpr int64_t kMinChunk = 4096;

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

// The input as [kept dims..., reduced dims...]: output r reduces the r-th run
// of `len` elements of this view (a permutation of the strides, no copy).
// The reduced dims may be taken in any order and direction, so they are
// flipped to positive strides and sorted by falling stride: any dense block
// of reduced elements (a full reduction of a transposed or reversed array,
// say) then collapses to one run of stride 1.
struct View {
  Shape shape;
  Strides strides;
  int64_t offset;
  int64_t len = 1;
};

View reduction_view(const array& in, const std::vector<int>& axes) {
  View v{{}, {}, in.offset()};
  std::vector<std::pair<int64_t, int64_t>> reduced;  // (stride, extent)
  for (int i = 0; i < in.ndim(); ++i) {
    if (std::find(axes.begin(), axes.end(), i) == axes.end()) {
      v.shape.push_back(in.shape(i));
      v.strides.push_back(in.strides()[i]);
      continue;
    }
    int64_t stride = in.strides()[i];
    if (stride < 0 && in.shape(i) > 1) {
      v.offset += (in.shape(i) - 1) * stride;
      stride = -stride;
    }
    reduced.emplace_back(stride, in.shape(i));
    v.len *= in.shape(i);
  }
  std::stable_sort(reduced.begin(), reduced.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (auto [stride, extent] : reduced) {
    v.shape.push_back(extent);
    v.strides.push_back(stride);
  }
  return v;
}

const ReduceKernel& kernel(Dtype in, Dtype out) {
  static const vulkan::KernelsByDtype<ReduceKernel> kernels("reduce_{}_{}");
  return kernels(in, out);
}

params::ReduceSpec spec(uint32_t op, bool dense) {
  return {.workgroup_size = kThreads, .OP = op, .CONTIGUOUS = dense};
}

}  // namespace

void Reduce::eval_gpu(const std::vector<array>& inputs, array& out) {
  using vulkan::input, vulkan::output;
  const array& in = inputs[0];
  common::allocate(out);
  const int64_t rows = static_cast<int64_t>(out.size());
  if (rows == 0) return;
  View view = reduction_view(in, axes_);
  const int64_t len = view.len;
  auto [dims, st] = common::collapse_dims<1>(view.shape, {&view.strides});
  const bool dense = st[0] == row_major_strides(dims);

  // Few long rows: G workgroups per row reduce chunks into partials, and a
  // second dispatch reduces each row's G partials.
  int64_t groups = 1, chunk = len;
  if (rows < kTargetWorkgroups && len >= 2 * kMinChunk) {
    groups = std::min(ceil_div(kTargetWorkgroups, rows), len / kMinChunk);
    chunk = ceil_div(ceil_div(len, groups), kThreads) * kThreads;
    groups = ceil_div(len, chunk);  // no empty chunk
  }

  vulkan::ShapeBlock shapes;
  const params::ReduceParams first{.n = rows * len,
                                   .rows = rows,
                                   .len = len,
                                   .groups = groups,
                                   .chunk = chunk,
                                   .offset = view.offset,
                                   .view = shapes.add<1>(dims, st)};
  const uint32_t op = static_cast<uint32_t>(type_);
  auto& encoder = vulkan::encoder(stream());
  if (groups == 1) {
    encoder.dispatch(kernel(in.dtype(), out.dtype()), spec(op, dense), first, shapes,
                     {input(in), output(out)}, vulkan::Grid::workgroups(rows));
    return;
  }
  // Partials in the accumulator type of reduce.comp: integer sums keep
  // wrapping modulo 2^64 (uint64's min and max keep their order) and NaN
  // stays NaN across the two passes.
  const Dtype acc = is_floating_point(in.dtype()) ? float32 : in.dtype() == uint64 ? uint64 : int64;
  const int64_t partials = rows * groups;
  array temp(allocator::malloc(partials * size_of(acc)), {static_cast<ShapeElem>(partials)}, acc);
  encoder.dispatch(kernel(in.dtype(), acc), spec(op, dense), first, shapes,
                   {input(in), output(temp)}, vulkan::Grid::workgroups(partials));
  // Each row's partials are a dense run: the flat path reads no shapes.
  const params::ReduceParams second{.n = partials,
                                    .rows = rows,
                                    .len = groups,
                                    .groups = 1,
                                    .chunk = groups,
                                    .offset = 0,
                                    .view = {}};
  encoder.dispatch(kernel(acc, out.dtype()), spec(op, true), second, {}, {input(temp), output(out)},
                   vulkan::Grid::workgroups(rows));
}

}  // namespace mlx_lite
