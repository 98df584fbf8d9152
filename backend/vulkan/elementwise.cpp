#include "backend/vulkan/elementwise.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <stdexcept>

#include "backend/cpu/strided.h"
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
  auto [dims, st] = cpu::collapse_dims<N>(shape, st_in);
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

std::string copy_shader(const array& in, const array& out) {
  return fmt::format("copy_{}_{}", dtype_name(in.dtype()), dtype_name(out.dtype()));
}

}  // namespace

void dispatch_elementwise(const std::string& shader, uint32_t op, const std::vector<array>& inputs,
                          array& out) {
  // Each thread reads element i of its inputs, then writes element i.
  if (!std::ranges::any_of(inputs, [&](const array& in) { return cpu::try_donate(in, out); })) {
    cpu::allocate(out);
  }
  if (out.size() == 0) return;
  std::vector<const Strides*> strides;
  std::vector<int64_t> offsets;
  for (const auto& in : inputs) {
    strides.push_back(&in.strides());
    offsets.push_back(in.offset());
  }
  const Layout l = layout(inputs[0].shape(), strides, offsets);
  auto& encoder = Encoder::get();
  std::vector<Binding> bindings = {encoder.metadata(l.words)};
  for (const auto& in : inputs) bindings.push_back(input_binding(in));
  bindings.push_back(output_binding(out));
  encoder.dispatch(shader, {kWorkgroupSize, op, l.dense ? 1u : 0u}, bindings, out.size());
}

void copy_gpu(const array& in, array& out) {
  dispatch_elementwise(copy_shader(in, out), kCopyDense, {in}, out);
}

void copy_gpu_into(const array& in, const Strides& out_strides, int64_t out_offset, array& out) {
  if (in.size() == 0) return;
  // The destination is the metadata's operand 1, a view of out's buffer.
  const Layout l =
      layout(in.shape(), {&in.strides(), &out_strides}, {in.offset(), out.offset() + out_offset});
  auto& encoder = Encoder::get();
  auto metadata = encoder.metadata(l.words);
  encoder.dispatch(copy_shader(in, out), {kWorkgroupSize, kCopyStridedOut, l.dense ? 1u : 0u},
                   {metadata, input_binding(in), output_binding(out)}, in.size());
}

void fill_gpu(const array& value, array& out) {
  // value's one element, broadcast (zero strides) to out's shape.
  array broadcast(out.shape(), value.dtype(), nullptr, {});
  broadcast.copy_shared_buffer(value, Strides(out.ndim(), 0), value.offset());
  copy_gpu(broadcast, out);
}

}  // namespace mlx_lite::vulkan
