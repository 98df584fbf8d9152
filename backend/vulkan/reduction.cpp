// GPU kernel of Reduce (shaders/reduce.comp).
#include "mlx_lite/primitives/reduction.h"

#include <fmt/format.h>

#include <algorithm>

#include "backend/cpu/strided.h"
#include "backend/vulkan/encoder.h"

namespace mlx_lite {

void Reduce::eval_gpu(const std::vector<array>& inputs, array& out) {
  const array& in = inputs[0];
  cpu::allocate(out);
  const int64_t rows = static_cast<int64_t>(out.size());
  if (rows == 0) return;
  // The input viewed with the kept dims first and the reduced ones last (a
  // permutation of its strides, no copy): output r reduces the r-th run of
  // `len` elements of that view.
  Shape shape;
  Strides strides;
  int64_t len = 1;
  for (int i = 0; i < in.ndim(); ++i) {
    if (std::find(axes_.begin(), axes_.end(), i) != axes_.end()) continue;
    shape.push_back(in.shape(i));
    strides.push_back(in.strides()[i]);
  }
  for (int ax : axes_) {
    shape.push_back(in.shape(ax));
    strides.push_back(in.strides()[ax]);
    len *= in.shape(ax);
  }
  auto [dims, st] = cpu::collapse_dims<1>(shape, {&strides});
  const bool dense = st[0] == row_major_strides(dims);
  std::vector<int64_t> words = {rows * len, static_cast<int64_t>(dims.size())};
  words.insert(words.end(), dims.begin(), dims.end());
  words.push_back(in.offset());
  words.insert(words.end(), st[0].begin(), st[0].end());
  words.push_back(rows);
  words.push_back(len);

  auto& encoder = vulkan::Encoder::get();
  auto metadata = encoder.metadata(words);
  constexpr uint32_t kThreads = 256;  // reduce.comp's shared array
  encoder.dispatch(fmt::format("reduce_{}_{}", dtype_name(in.dtype()), dtype_name(out.dtype())),
                   {kThreads, static_cast<uint32_t>(type_), dense ? 1u : 0u},
                   {metadata, vulkan::input_binding(in), vulkan::output_binding(out)},
                   static_cast<uint64_t>(rows) * kThreads);
}

}  // namespace mlx_lite
