// GPU kernel of RandomBits (shaders/random.comp): bit for bit the CPU's.
#include "mlx_lite/primitives/random.h"

#include <fmt/format.h>

#include "backend/common/buffers.h"
#include "backend/common/layout.h"
#include "backend/vulkan/encoder.h"

namespace mlx_lite {

void RandomBits::eval_gpu(const std::vector<array>& inputs, array& out) {
  const array& keys = inputs[0];
  common::allocate(out);
  const int64_t num_keys = static_cast<int64_t>(keys.size() / 2);
  if (out.size() == 0 || num_keys == 0) return;
  const int64_t per_key = static_cast<int64_t>(out.size()) / num_keys;
  const int64_t num_words = (per_key * width_ + 3) / 4;
  const int64_t pairs = (num_words + 1) / 2;  // one thread per counter pair
  // The keys are read through their strides (they may be views): their
  // layout as common.glsl reads one input, then the stream's sizes.
  auto [dims, st] = common::collapse_dims<1>(keys.shape(), {&keys.strides()});
  const bool dense = st[0] == row_major_strides(dims);
  std::vector<int64_t> words = {static_cast<int64_t>(keys.size()),
                                static_cast<int64_t>(dims.size())};
  words.insert(words.end(), dims.begin(), dims.end());
  words.push_back(keys.offset());
  words.insert(words.end(), st[0].begin(), st[0].end());
  words.insert(words.end(), {num_keys, per_key, num_words});

  auto& encoder = vulkan::Encoder::get();
  auto metadata = encoder.metadata(words);
  encoder.dispatch(fmt::format("random_{}", dtype_name(out.dtype())),
                   {256, static_cast<uint32_t>(width_), dense ? 1u : 0u},
                   {metadata, vulkan::input_binding(keys), vulkan::output_binding(out)},
                   static_cast<uint64_t>(num_keys * pairs));
}

}  // namespace mlx_lite
