// GPU kernels of Gather and Scatter (shaders/gather.comp and scatter.comp,
// which share shaders/indexing_common.glsl). Each runs one thread per element
// of (index positions) x (slice), and each thread reads its position's index
// from every index array itself (any integer dtype, any strides), so the host
// precomputes nothing and allocates no temporaries.
#include "mlx_lite/primitives/indexing.h"

#include <fmt/format.h>

#include <span>

#include "backend/common/buffers.h"
#include "backend/common/layout.h"
#include "backend/vulkan/device.h"
#include "backend/vulkan/elementwise.h"
#include "backend/vulkan/encoder.h"

namespace mlx_lite {

namespace {

constexpr size_t kMaxIndexArrays = 8;  // the shaders' bindings 3..10
constexpr uint32_t kWorkgroupSize = 256;

// How indexing_common.glsl reads an index array's elements.
int64_t index_kind(Dtype t) {
  if (t == uint8) return 0;
  if (t == uint32) return 1;
  if (t == int32) return 2;
  return 3;  // int64, the only other integer dtype
}

// The metadata of indexing_common.glsl for `threads` threads over the index
// positions of `indices` (one array per axes[k], all of one shape) times the
// elements of `slice`, a shape over the dims of `indexed` (the array the
// indices index: Gather's source, Scatter's output).
std::vector<int64_t> index_metadata(uint64_t threads, const array& indexed,
                                    std::span<const array> indices, const std::vector<int>& axes,
                                    const Shape& slice) {
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

  std::vector<int64_t> words = {static_cast<int64_t>(threads), n_slice,
                                static_cast<int64_t>(dims.size())};
  words.insert(words.end(), dims.begin(), dims.end());
  for (size_t k = 0; k < indices.size(); ++k) {
    const int ax = axes[k];
    words.insert(words.end(),
                 {indices[k].offset(), index_kind(indices[k].dtype()), indexed.shape(ax),
                  indexed.shape(ax) - slice[ax], indexed.strides()[ax]});
    words.insert(words.end(), st[k].begin(), st[k].end());
  }
  words.push_back(static_cast<int64_t>(slice_dims.size()));
  words.insert(words.end(), slice_dims.begin(), slice_dims.end());
  words.insert(words.end(), slice_st[0].begin(), slice_st[0].end());
  words.push_back(indexed.offset());
  return words;
}

// Records `shader` with the bindings indexing_common.glsl describes; slots
// of absent index arrays get `in`, which the shader never reads there.
void dispatch_indexing(const std::string& shader, const std::vector<int64_t>& words,
                       const array& in, const array& out, std::span<const array> indices,
                       uint64_t threads, uint32_t run = 1) {
  auto& encoder = vulkan::Encoder::get();
  std::vector<vulkan::Binding> bindings = {encoder.metadata(words), vulkan::input_binding(in),
                                           vulkan::output_binding(out)};
  for (size_t k = 0; k < kMaxIndexArrays; ++k) {
    bindings.push_back(vulkan::input_binding(k < indices.size() ? indices[k] : in));
  }
  encoder.dispatch(shader, {kWorkgroupSize, 0, 0, static_cast<uint32_t>(indices.size()), run},
                   bindings, threads);
}

}  // namespace

void Gather::eval_gpu(const std::vector<array>& inputs, array& out) {
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
  // A thread per run of 4 consecutive slice elements (gather.comp's kRun).
  uint64_t n_slice = 1;
  for (auto d : slice_sizes_) n_slice *= d;
  const uint64_t threads = out.size() / n_slice * ((n_slice + 3) / 4);
  const auto words = index_metadata(threads, src, indices, axes_, slice_sizes_);
  // Gather only moves elements: its variants go by element size.
  dispatch_indexing(fmt::format("gather_{}", 8 * size_of(out.dtype())), words, src, out, indices,
                    threads);
}

void Scatter::eval_gpu(const std::vector<array>& inputs, array& out) {
  const array& src = inputs[0];
  const array& upd = inputs.back();
  const std::span<const array> indices(inputs.data() + 1, inputs.size() - 2);
  const auto& device = vulkan::Device::get();
  if (indices.size() > kMaxIndexArrays ||
      (reduce_ == Sum && out.dtype() == int64 && !device.int64_atomics())) {
    // More index arrays than the shader binds, or an int64 sum on a device
    // without 64-bit atomics (no compare-and-swap fallback either, as that is
    // a 64-bit atomic too): the CPU kernel, after the pending GPU work.
    UnaryPrimitive::eval_gpu(inputs, out);
    return;
  }
  vulkan::copy_gpu(src, out);
  if (upd.size() == 0) return;

  // updates' shape is the index shape followed by the slice's. A thread per
  // run of 4 consecutive slice elements (scatter.comp's RUN) where the
  // updates' element index stays 32-bit.
  const Shape slice(upd.shape().end() - src.ndim(), upd.shape().end());
  uint64_t n_slice = 1;
  for (auto d : slice) n_slice *= d;
  const uint32_t run = upd.size() <= 0xffffffffu ? 4 : 1;
  const uint64_t threads = upd.size() / n_slice * ((n_slice + run - 1) / run);
  auto words = index_metadata(threads, out, indices, axes_, slice);
  auto [upd_dims, upd_st] = common::collapse_dims<1>(upd.shape(), {&upd.strides()});
  words.insert(words.end(), {upd.offset(), static_cast<int64_t>(upd_dims.size())});
  words.insert(words.end(), upd_dims.begin(), upd_dims.end());
  words.insert(words.end(), upd_st[0].begin(), upd_st[0].end());

  std::string shader;
  if (reduce_ == None) {
    shader = fmt::format("scatter_{}", 8 * size_of(out.dtype()));
  } else {
    const bool float_atomics = out.dtype() == float32 && device.float32_atomic_add();
    shader =
        fmt::format("scatter_add_{}{}", dtype_name(out.dtype()), float_atomics ? "_atomic" : "");
  }
  dispatch_indexing(shader, words, upd, out, indices, threads, run);
}

}  // namespace mlx_lite
