#include "backend/vulkan/elementwise.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <stdexcept>

#include "backend/common/buffers.h"
#include "backend/common/layout.h"
#include "backend/vulkan/encoder.h"

namespace mlx_lite::vulkan {

namespace {

constexpr uint32_t kWorkgroupSize = 256;

// The copy shader's OP: where element i goes.
constexpr uint32_t kCopyDense = 0;
constexpr uint32_t kCopyStridedOut = 1;

struct Layout {
  // [n, ndim, shape..., then per operand: offset, strides...] as the shaders read it.
  std::vector<int64_t> words;
  // Every operand is row-major after merging: the shaders' flat path.
  bool dense;
};

// The layout of N operands of `shape` (their strides and element offsets),
// with the dims contiguous in every operand merged.
template <size_t N>
Layout layout(const Shape& shape, const std::vector<const Strides*>& strides,
              const std::vector<int64_t>& offsets) {
  std::array<const Strides*, N> st_in;
  for (size_t k = 0; k < N; ++k) st_in[k] = strides[k];
  auto [dims, st] = common::collapse_dims<N>(shape, st_in);
  int64_t n = 1;
  for (auto d : shape) n *= d;
  Layout result{{n, static_cast<int64_t>(dims.size())}, true};
  result.words.insert(result.words.end(), dims.begin(), dims.end());
  const Strides dense = row_major_strides(dims);
  for (size_t k = 0; k < N; ++k) {
    result.words.push_back(offsets[k]);
    result.words.insert(result.words.end(), st[k].begin(), st[k].end());
    result.dense &= st[k] == dense;
  }
  return result;
}

Layout layout(const Shape& shape, const std::vector<const Strides*>& strides,
              const std::vector<int64_t>& offsets) {
  switch (strides.size()) {
    case 1:
      return layout<1>(shape, strides, offsets);
    case 2:
      return layout<2>(shape, strides, offsets);
    case 3:
      return layout<3>(shape, strides, offsets);
    default:
      throw std::logic_error(
          fmt::format("[vulkan] {} operands of an elementwise kernel; at most 3", strides.size()));
  }
}

// Elements per thread of an elementwise dispatch (shaders/elementwise_main.glsl)
// and the threads that takes: several for large arrays, where bandwidth
// counts (runs along the innermost dim on the strided path, which needs at
// least that many elements there), one for small ones, where latency does.
struct Threads {
  uint32_t per_thread;
  uint64_t count;
};

constexpr uint32_t kElementsPerThread = 4;

Threads threads_of(const Layout& l) {
  const uint64_t n = l.words[0];
  const int64_t ndim = l.words[1];
  const uint64_t inner = ndim > 0 ? l.words[1 + ndim] : 1;
  if (n < (uint64_t{1} << 16) || n > 0xffffffffu) return {1, n};
  if (l.dense) return {kElementsPerThread, (n + kElementsPerThread - 1) / kElementsPerThread};
  if (inner < kElementsPerThread) return {1, n};
  return {kElementsPerThread, n / inner * ((inner + kElementsPerThread - 1) / kElementsPerThread)};
}

// Records an elementwise shader over the layout's elements with spec
// constants {workgroup size, op, dense, elements per thread}.
void dispatch_over(const std::string& shader, uint32_t op, const Layout& l,
                   const std::vector<Binding>& bindings) {
  const Threads t = threads_of(l);
  Encoder::get().dispatch(shader, {kWorkgroupSize, op, l.dense ? 1u : 0u, t.per_thread}, bindings,
                          t.count);
}

std::string copy_shader(const array& in, const array& out) {
  return fmt::format("copy_{}_{}", dtype_name(in.dtype()), dtype_name(out.dtype()));
}

}  // namespace

void dispatch_elementwise(const std::string& shader, uint32_t op, const std::vector<array>& inputs,
                          array& out) {
  // Each thread reads element i of its inputs, then writes element i.
  if (!std::ranges::any_of(inputs, [&](const array& in) { return common::try_donate(in, out); })) {
    common::allocate(out);
  }
  if (out.size() == 0) return;
  Layout l;
  if (std::ranges::all_of(inputs, [](const array& in) { return in.flags().row_contiguous; })) {
    // One dense dim: what merging gives, without its allocations (small ops
    // are host-bound).
    const auto n = static_cast<int64_t>(out.size());
    l.words.reserve(3 + 2 * inputs.size());
    l.words = {n, 1, n};
    for (const auto& in : inputs) l.words.insert(l.words.end(), {in.offset(), 1});
    l.dense = true;
  } else {
    std::vector<const Strides*> strides;
    std::vector<int64_t> offsets;
    for (const auto& in : inputs) {
      strides.push_back(&in.strides());
      offsets.push_back(in.offset());
    }
    l = layout(inputs[0].shape(), strides, offsets);
  }
  auto& encoder = Encoder::get();
  std::vector<Binding> bindings;
  bindings.reserve(inputs.size() + 2);
  bindings.push_back(encoder.metadata(l.words));
  for (const auto& in : inputs) bindings.push_back(input_binding(in));
  bindings.push_back(output_binding(out));
  dispatch_over(shader, op, l, bindings);
}

void copy_gpu(const array& in, array& out) {
  // A dense source of out's dtype that nothing else holds becomes out: no
  // copy at all (a Scatter over the previous scatter's result, as the vjp of
  // several gathers of one array builds).
  if (in.dtype() == out.dtype() && common::try_donate(in, out)) return;
  dispatch_elementwise(copy_shader(in, out), kCopyDense, {in}, out);
}

void copy_gpu_into(const array& in, const Strides& out_strides, int64_t out_offset, array& out) {
  if (in.size() == 0) return;
  // The destination is the metadata's operand 1, a view of out's buffer.
  const Layout l =
      layout(in.shape(), {&in.strides(), &out_strides}, {in.offset(), out.offset() + out_offset});
  auto& encoder = Encoder::get();
  auto metadata = encoder.metadata(l.words);
  dispatch_over(copy_shader(in, out), kCopyStridedOut, l,
                {metadata, input_binding(in), output_binding(out)});
}

void fill_gpu(const array& value, array& out) {
  // value's one element, broadcast (zero strides) to out's shape.
  array broadcast(out.shape(), value.dtype(), nullptr, {});
  broadcast.copy_shared_buffer(value, Strides(out.ndim(), 0), value.offset());
  copy_gpu(broadcast, out);
}

}  // namespace mlx_lite::vulkan
