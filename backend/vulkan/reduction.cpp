// GPU kernel of Reduce (shaders/reduce.comp).
#include "mlx_lite/primitives/reduction.h"

#include <algorithm>
#include <bit>
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
// The most elements one workgroup reduces: each thread then adds at most 16
// groups of 4 to its accumulator in turn (reduce.comp), so a float32 sum's
// rounding error no longer grows with the row (the chunks' partials are
// reduced by further passes, as a tree: the error grows as log(len), as
// pairwise summation's), and no loop comes near lavapipe's cap of 65,535
// iterations. Longer rows take more passes, each over 1/16384 of the last.
constexpr int64_t kMaxChunk = 64 * kThreads;
// The most partials one pass writes (32 MiB of int64), far below any
// device's storage-buffer range; only inputs of 2^36 elements and more get
// chunks longer than kMaxChunk.
constexpr int64_t kMaxPartials = int64_t{1} << 22;

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

// Threads per chunk: about kElementsPerThread elements each, a power of two
// of at most kThreads, so that a short row does not keep 256 threads
// mostly idle through the shared-memory combine (the rest of the workgroup
// takes the next rows).
constexpr int64_t kElementsPerThread = 16;

uint32_t row_threads(int64_t chunk) {
  const auto wanted = static_cast<uint64_t>(ceil_div(chunk, kElementsPerThread));
  return static_cast<uint32_t>(std::min<uint64_t>(std::bit_ceil(wanted), kThreads));
}

params::ReduceSpec spec(uint32_t op, bool dense, uint32_t threads_per_chunk, bool runs) {
  return {.workgroup_size = kThreads,
          .OP = op,
          .CONTIGUOUS = dense,
          .ROW_THREADS = threads_per_chunk,
          .RUNS = runs};
}

// Whether a pass over `src` (dense where `dense`) in chunks of p.chunk loads
// runs of 4 as vectors: 32-bit elements, and every chunk whole runs that
// start at multiples of 4 (a chunk is a row's where groups is 1, else a
// multiple of kThreads). On an H200, sums of 64M float32 took 66-70 us of
// GPU time so, against 73-74 us element by element.
bool whole_runs(const array& src, bool dense, const params::ReduceParams& p) {
  return dense && size_of(src.dtype()) == 4 && p.offset % 4 == 0 && p.len % 4 == 0 &&
         p.chunk % 4 == 0;
}

// Workgroups for `chunks` chunks of `chunk` elements.
vulkan::Grid chunk_grid(int64_t chunks, int64_t chunk) {
  return vulkan::Grid::workgroups(ceil_div(chunks, kThreads / row_threads(chunk)));
}

// How a pass cuts each of `rows` rows of `len` elements: `groups` chunks of
// `chunk` elements (a multiple of kThreads), one workgroup each.
struct Chunks {
  int64_t groups = 1, chunk;
};

Chunks chunks(int64_t rows, int64_t len) {
  int64_t groups = 1;
  if (rows < kTargetWorkgroups && len >= 2 * kMinChunk) {
    groups = std::min(ceil_div(kTargetWorkgroups, rows), len / kMinChunk);
  }
  groups = std::max(groups, ceil_div(len, kMaxChunk));
  groups = std::min(groups, std::max<int64_t>(kMaxPartials / rows, 1));
  if (groups == 1) return {1, len};
  const int64_t chunk = ceil_div(ceil_div(len, groups), kThreads) * kThreads;
  return {ceil_div(len, chunk), chunk};  // no empty chunk
}

}  // namespace

void Reduce::eval_gpu(const std::vector<array>& inputs, array& out) {
  using vulkan::input, vulkan::output;
  const array& in = inputs[0];
  common::allocate(out);
  const int64_t rows = static_cast<int64_t>(out.size());
  if (rows == 0) return;
  View view = reduction_view(in, axes_);
  auto [dims, st] = common::collapse_dims<1>(view.shape, {&view.strides});
  const bool dense = st[0] == row_major_strides(dims);
  const uint32_t op = static_cast<uint32_t>(type_);
  auto& encoder = vulkan::encoder(stream());

  // Long rows: G workgroups per row reduce chunks into partials, and further
  // passes reduce each row's partials (a dense run of G) the same way.
  int64_t len = view.len;
  Chunks c = chunks(rows, len);
  vulkan::ShapeBlock shapes;
  params::ReduceParams p{.n = rows * len,
                         .rows = rows,
                         .len = len,
                         .groups = c.groups,
                         .chunk = c.chunk,
                         .offset = view.offset,
                         .view = shapes.add<1>(dims, st)};
  // Partials in the accumulator type of reduce.comp: integer sums keep
  // wrapping modulo 2^64 (uint64's min and max keep their order) and NaN
  // stays NaN across the passes.
  const Dtype acc = is_floating_point(in.dtype()) ? float32 : in.dtype() == uint64 ? uint64 : int64;
  array src = in;
  bool src_dense = dense;
  const vulkan::ShapeBlock no_shapes;  // the partials' passes read none
  const vulkan::ShapeBlock* src_shapes = &shapes;
  while (c.groups > 1) {
    const int64_t partials = rows * c.groups;
    array temp(allocator::malloc(partials * size_of(acc)), {static_cast<ShapeElem>(partials)}, acc);
    encoder.dispatch(kernel(src.dtype(), acc),
                     spec(op, src_dense, row_threads(c.chunk), whole_runs(src, src_dense, p)), p,
                     *src_shapes, {input(src), output(temp)}, chunk_grid(partials, c.chunk));
    // Each row's partials are a dense run: the flat path reads no shapes.
    src = temp;
    src_dense = true;
    src_shapes = &no_shapes;
    len = c.groups;
    c = chunks(rows, len);
    p = {.n = partials,
         .rows = rows,
         .len = len,
         .groups = c.groups,
         .chunk = c.chunk,
         .offset = 0,
         .view = {}};
  }
  encoder.dispatch(kernel(src.dtype(), out.dtype()),
                   spec(op, src_dense, row_threads(len), whole_runs(src, src_dense, p)), p,
                   *src_shapes, {input(src), output(out)}, chunk_grid(rows, len));
}

}  // namespace mlx_lite
