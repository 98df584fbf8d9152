#include "backend/vulkan/elementwise.h"

#include <fmt/format.h>

#include <algorithm>

#include "backend/cpu/strided.h"
#include "backend/vulkan/encoder.h"

namespace mlx_lite::vulkan {

namespace {

constexpr uint32_t kWorkgroupSize = 256;

// [n, ndim, shape..., then per input: offset, strides...] as the shaders read it.
template <size_t N>
std::vector<int64_t> metadata(const Shape& shape, const std::vector<array>& inputs) {
  std::array<const Strides*, N> strides;
  for (size_t k = 0; k < N; ++k) strides[k] = &inputs[k].strides();
  auto [dims, st] = cpu::collapse_dims<N>(shape, strides);
  int64_t n = 1;
  for (auto d : shape) n *= d;
  std::vector<int64_t> words = {n, static_cast<int64_t>(dims.size())};
  words.insert(words.end(), dims.begin(), dims.end());
  for (size_t k = 0; k < N; ++k) {
    words.push_back(inputs[k].offset());
    words.insert(words.end(), st[k].begin(), st[k].end());
  }
  return words;
}

}  // namespace

void dispatch_elementwise(const std::string& shader, uint32_t op, const std::vector<array>& inputs,
                          array& out) {
  // Each thread reads element i of its inputs, then writes element i.
  if (!std::ranges::any_of(inputs, [&](const array& in) { return cpu::try_donate(in, out); })) {
    cpu::allocate(out);
  }
  if (out.size() == 0) return;
  bool dense = true;
  for (const auto& in : inputs) dense &= in.flags().row_contiguous;
  auto& encoder = Encoder::get();
  std::vector<int64_t> words;
  switch (inputs.size()) {
    case 1:
      words = metadata<1>(inputs[0].shape(), inputs);
      break;
    case 2:
      words = metadata<2>(inputs[0].shape(), inputs);
      break;
    default:
      words = metadata<3>(inputs[0].shape(), inputs);
      break;
  }
  std::vector<Binding> bindings = {encoder.metadata(words)};
  for (const auto& in : inputs) bindings.push_back(input_binding(in));
  bindings.push_back(output_binding(out));
  encoder.dispatch(shader, {kWorkgroupSize, op, dense ? 1u : 0u}, bindings, out.size());
}

void copy_gpu(const array& in, array& out) {
  dispatch_elementwise(fmt::format("copy_{}_{}", dtype_name(in.dtype()), dtype_name(out.dtype())),
                       0, {in}, out);
}

}  // namespace mlx_lite::vulkan
