// GPU kernel of RandomBits (shaders/random.comp): bit for bit the CPU's.
#include "mlx_lite/primitives/random.h"

#include "backend/common/buffers.h"
#include "backend/common/layout.h"
#include "backend/vulkan/encoder.h"
#include "backend/vulkan/shaders/params/random.h"

namespace mlx_lite {

namespace params = vulkan::params;

void RandomBits::eval_gpu(const std::vector<array>& inputs, array& out) {
  // random_<out>: uint8, uint16 or uint32 for widths 1, 2 and 4.
  static const vulkan::KernelsByDtype<vulkan::Kernel<params::RandomParams, params::RandomSpec>>
      kernels("random_{}");
  const array& keys = inputs[0];
  common::allocate(out);
  const int64_t num_keys = static_cast<int64_t>(keys.size() / 2);
  if (out.size() == 0 || num_keys == 0) return;
  const int64_t per_key = static_cast<int64_t>(out.size()) / num_keys;
  const int64_t num_words = (per_key * width_ + 3) / 4;
  const int64_t pairs = (num_words + 1) / 2;  // one thread per counter pair
  // The keys are read through their strides (they may be views).
  auto [dims, st] = common::collapse_dims<1>(keys.shape(), {&keys.strides()});
  vulkan::ShapeBlock shapes;
  const params::RandomParams p{.keys_size = static_cast<int64_t>(keys.size()),
                               .keys_offset = keys.offset(),
                               .num_keys = num_keys,
                               .per_key = per_key,
                               .num_words = num_words,
                               .keys = shapes.add<1>(dims, st)};
  const params::RandomSpec spec{.workgroup_size = 256,
                                .WIDTH = static_cast<uint32_t>(width_),
                                .CONTIGUOUS = st[0] == row_major_strides(dims)};
  vulkan::encoder(stream()).dispatch(kernels(out.dtype()), spec, p, shapes,
                                     {vulkan::input(keys), vulkan::output(out)},
                                     vulkan::Grid::threads(num_keys * pairs));
}

}  // namespace mlx_lite
