// GPU kernel of Reduce (shaders/reduce.comp).
#include "mlx_lite/primitives/reduction.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "backend/common/buffers.h"
#include "backend/common/layout.h"
#include "backend/vulkan/encoder.h"

namespace mlx_lite {

namespace {

constexpr uint32_t kThreads = 256;  // reduce.comp's shared array
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

}  // namespace

void Reduce::eval_gpu(const std::vector<array>& inputs, array& out) {
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

  std::vector<int64_t> words = {rows * len, static_cast<int64_t>(dims.size())};
  words.insert(words.end(), dims.begin(), dims.end());
  words.push_back(view.offset);
  words.insert(words.end(), st[0].begin(), st[0].end());
  words.insert(words.end(), {rows, len, groups, chunk});

  auto& encoder = vulkan::Encoder::get();
  const uint32_t op = static_cast<uint32_t>(type_);
  const auto in_name = dtype_name(in.dtype());
  const auto out_name = dtype_name(out.dtype());
  if (groups == 1) {
    auto metadata = encoder.metadata(words);
    encoder.dispatch(fmt::format("reduce_{}_{}", in_name, out_name), {kThreads, op, dense},
                     {metadata, vulkan::input_binding(in), vulkan::output_binding(out)},
                     static_cast<uint64_t>(rows) * kThreads);
    return;
  }
  // Partials in the accumulator type of reduce.comp: integer sums keep
  // wrapping modulo 2^64 and NaN stays NaN across the two passes.
  const Dtype acc = is_floating_point(in.dtype()) ? float32 : int64;
  const int64_t partials = rows * groups;
  array temp(allocator::malloc(partials * size_of(acc)), {static_cast<ShapeElem>(partials)}, acc);
  // The temporary dies on return, before the GPU is done with it: the
  // allocator returns it to its cache only once that work completes.
  auto first = encoder.metadata(words);
  auto second = encoder.metadata({partials, 1, partials, 0, 1, rows, groups, 1, groups});
  encoder.dispatch(fmt::format("reduce_{}_{}", in_name, dtype_name(acc)), {kThreads, op, dense},
                   {first, vulkan::input_binding(in), vulkan::output_binding(temp)},
                   static_cast<uint64_t>(partials) * kThreads);
  encoder.dispatch(fmt::format("reduce_{}_{}", dtype_name(acc), out_name), {kThreads, op, 1u},
                   {second, vulkan::input_binding(temp), vulkan::output_binding(out)},
                   static_cast<uint64_t>(rows) * kThreads);
}

}  // namespace mlx_lite
