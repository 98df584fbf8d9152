// GPU kernels of Gather and Scatter (shaders/gather.comp and scatter.comp,
// which share shaders/indexing_common.glsl). Each runs one thread per element
// of (index positions) x (slice), and each thread reads its position's index
// from every index array itself (any integer dtype, any strides), so the host
// precomputes nothing and allocates no temporaries.
#include "mlx_lite/primitives/indexing.h"

#include <array>
#include <bit>
#include <span>

#include "backend/common/buffers.h"
#include "backend/common/layout.h"
#include "backend/vulkan/device.h"
#include "backend/vulkan/elementwise.h"
#include "backend/vulkan/encoder.h"
#include "backend/vulkan/shaders/params/indexing.h"

namespace mlx_lite {

namespace params = vulkan::params;

namespace {

using IndexingKernel = vulkan::Kernel<params::IndexingParams, params::IndexingSpec>;
constexpr size_t kMaxIndexArrays = params::kMaxIndexArrays;  // the shaders' bindings 3..10
constexpr uint32_t kWorkgroupSize = 256;

// How indexing_common.glsl reads an index array's elements.
int32_t index_kind(Dtype t) {
  if (t == uint8) return params::kIndexUint8;
  if (t == uint32) return params::kIndexUint32;
  if (t == int32) return params::kIndexInt32;
  if (t == int8) return params::kIndexInt8;
  if (t == uint16) return params::kIndexUint16;
  if (t == int16) return params::kIndexInt16;
  return params::kIndexInt64;  // int64, and uint64 read as its bits
}

// The parameters (and shape block) of `threads` threads over the index
// positions of `indices` (one array per axes[k], all of one shape) times the
// elements of `slice`, a shape over the dims of `indexed` (the array the
// indices index: Gather's source, Scatter's output).
params::IndexingParams index_params(uint64_t threads, const array& indexed,
                                    std::span<const array> indices, const std::vector<int>& axes,
                                    const Shape& slice, vulkan::ShapeBlock& shapes) {
  const Shape idx_shape = indices.empty() ? Shape{} : indices[0].shape();
  // Index dims merge where contiguous in every index array; unused operands
  // have stride 0, which merges anywhere.
  const Strides none(idx_shape.size(), 0);
  std::array<const Strides*, kMaxIndexArrays> idx_strides;
  for (size_t k = 0; k < kMaxIndexArrays; ++k) {
    idx_strides[k] = k < indices.size() ? &indices[k].strides() : &none;
  }
  auto [dims, st] = common::collapse_dims<kMaxIndexArrays>(idx_shape, idx_strides);
  auto [slice_dims, slice_st] = common::collapse_dims<1>(slice, {&indexed.strides()});
  int64_t n_slice = 1;
  for (auto d : slice) n_slice *= d;

  params::IndexingTable table{};
  std::array<const Strides*, kMaxIndexArrays> used;
  for (size_t k = 0; k < indices.size(); ++k) {
    const int ax = axes[k];
    table.index_arrays[k] = {.offset = indices[k].offset(),
                             .kind = index_kind(indices[k].dtype()),
                             .extent = indexed.shape(ax),
                             .hi = indexed.shape(ax) - slice[ax],
                             .axis_stride = indexed.strides()[ax]};
    used[k] = &st[k];
  }
  shapes.set_table(table);
  return {.n = static_cast<int64_t>(threads),
          .n_slice = n_slice,
          .indexed_offset = indexed.offset(),
          .updates_offset = 0,
          .indices = shapes.add(dims, std::span(used.data(), indices.size())),
          .slice = shapes.add<1>(slice_dims, slice_st),
          .updates = {}};
}

// Records `kernel` with the bindings params/indexing.h describes; slots of
// absent index arrays get `in`, which the shader never reads there.
void dispatch_indexing(vulkan::Encoder& encoder, const IndexingKernel& kernel,
                       const params::IndexingParams& p, const vulkan::ShapeBlock& shapes,
                       const array& in, const array& out, std::span<const array> indices,
                       uint32_t run) {
  const params::IndexingSpec spec{
      .workgroup_size = kWorkgroupSize, .NIDX = static_cast<uint32_t>(indices.size()), .RUN = run};
  auto idx = [&](size_t k) { return vulkan::input(k < indices.size() ? indices[k] : in); };
  encoder.dispatch(kernel, spec, p, shapes,
                   {vulkan::input(in), vulkan::output(out), idx(0), idx(1), idx(2), idx(3), idx(4),
                    idx(5), idx(6), idx(7)},
                   vulkan::Grid::threads(p.n));
}

// Scatter's variants: replacing elements goes by element size, combining by
// op and dtype (float32 sums with float atomics where the device has them).
const IndexingKernel& scatter_kernel(Dtype t, Scatter::ReduceType reduce) {
  static_assert(Scatter::None == params::kScatterNone && Scatter::Sum == params::kScatterSum &&
                    Scatter::Prod == params::kScatterProd && Scatter::Max == params::kScatterMax &&
                    Scatter::Min == params::kScatterMin,
                "scatter.comp's REDUCE values are Scatter::ReduceType's");
  static const std::array<IndexingKernel, 4> replace = {
      IndexingKernel("scatter_8"), IndexingKernel("scatter_16"), IndexingKernel("scatter_32"),
      IndexingKernel("scatter_64")};
  static const std::array<vulkan::KernelsByDtype<IndexingKernel>, 4> combine = {
      vulkan::KernelsByDtype<IndexingKernel>("scatter_add_{}"),
      vulkan::KernelsByDtype<IndexingKernel>("scatter_prod_{}"),
      vulkan::KernelsByDtype<IndexingKernel>("scatter_max_{}"),
      vulkan::KernelsByDtype<IndexingKernel>("scatter_min_{}")};
  static const IndexingKernel add_atomic("scatter_add_float32_atomic");
  if (reduce == Scatter::None) return replace[std::bit_width(size_of(t)) - 1];
  if (reduce == Scatter::Sum && t == float32 && vulkan::Device::get().float32_atomic_add()) {
    return add_atomic;
  }
  return combine[reduce - 1](t);
}

}  // namespace

void Gather::eval_gpu(const std::vector<array>& inputs, array& out) {
  // Gather only moves elements: its variants go by element size.
  static const std::array<IndexingKernel, 4> kernels = {
      IndexingKernel("gather_8"), IndexingKernel("gather_16"), IndexingKernel("gather_32"),
      IndexingKernel("gather_64")};
  const std::span<const array> indices(inputs.data() + 1, inputs.size() - 1);
  if (indices.size() > kMaxIndexArrays) {
    // More index arrays than the shader binds (an along-axis gather over more
    // than 8 dims): the CPU kernel, after the pending GPU work.
    UnaryPrimitive::eval_gpu(inputs, out);
    return;
  }
  common::allocate(out);
  if (out.size() == 0) return;
  const array& src = inputs[0];
  // A thread per run of 4 consecutive slice elements.
  constexpr uint32_t kRun = 4;
  uint64_t n_slice = 1;
  for (auto d : slice_sizes_) n_slice *= d;
  const uint64_t threads = out.size() / n_slice * ((n_slice + kRun - 1) / kRun);
  vulkan::ShapeBlock shapes;
  const auto p = index_params(threads, src, indices, axes_, slice_sizes_, shapes);
  const size_t by_size = std::bit_width(size_of(out.dtype())) - 1;  // 1, 2, 4, 8 bytes
  dispatch_indexing(vulkan::encoder(stream()), kernels[by_size], p, shapes, src, out, indices,
                    kRun);
}

void Scatter::eval_gpu(const std::vector<array>& inputs, array& out) {
  const array& src = inputs[0];
  const array& upd = inputs.back();
  const std::span<const array> indices(inputs.data() + 1, inputs.size() - 2);
  const auto& device = vulkan::Device::get();
  if (indices.size() > kMaxIndexArrays ||
      (reduce_ != None && (out.dtype() == int64 || out.dtype() == uint64) &&
       !device.int64_atomics())) {
    // More index arrays than the shader binds, or a 64-bit integer reduction
    // on a device without 64-bit atomics (no compare-and-swap fallback either,
    // as that is a 64-bit atomic too): the CPU kernel, after the pending GPU
    // work.
    UnaryPrimitive::eval_gpu(inputs, out);
    return;
  }
  auto& encoder = vulkan::encoder(stream());
  vulkan::copy_gpu(encoder, src, out);
  if (upd.size() == 0) return;

  // updates' shape is the index shape followed by the slice's. A thread per
  // run of 4 consecutive slice elements where the updates' element index
  // stays 32-bit.
  const Shape slice(upd.shape().end() - src.ndim(), upd.shape().end());
  uint64_t n_slice = 1;
  for (auto d : slice) n_slice *= d;
  const uint32_t run = upd.size() <= 0xffffffffu ? 4 : 1;
  const uint64_t threads = upd.size() / n_slice * ((n_slice + run - 1) / run);
  vulkan::ShapeBlock shapes;
  auto p = index_params(threads, out, indices, axes_, slice, shapes);
  auto [upd_dims, upd_st] = common::collapse_dims<1>(upd.shape(), {&upd.strides()});
  p.updates_offset = upd.offset();
  p.updates = shapes.add<1>(upd_dims, upd_st);
  dispatch_indexing(encoder, scatter_kernel(out.dtype(), reduce_), p, shapes, upd, out, indices,
                    run);
}

}  // namespace mlx_lite
