// GPU kernels of the creation primitives: Arange (shaders/arange.comp) and
// Eye (a fill of zeros and a strided copy of ones onto the diagonal).
#include "mlx_lite/primitives/creation.h"

#include <algorithm>
#include <bit>

#include "backend/common/buffers.h"
#include "backend/vulkan/elementwise.h"
#include "backend/vulkan/encoder.h"
#include "backend/vulkan/shaders/params/arange.h"

namespace mlx_lite {

namespace params = vulkan::params;

void Arange::eval_gpu(const std::vector<array>&, array& out) {
  static const vulkan::KernelsByDtype<vulkan::Kernel<params::ArangeParams, params::ArangeSpec>>
      kernels("arange_{}");
  common::allocate(out);
  if (out.size() == 0) return;
  // The shader redoes the CPU's double arithmetic on the bits.
  const params::ArangeParams p{.n = static_cast<int64_t>(out.size()),
                               .start_bits = std::bit_cast<uint64_t>(start_),
                               .step_bits = std::bit_cast<uint64_t>(step_)};
  vulkan::encoder(stream()).dispatch(kernels(out.dtype()),
                                     params::ArangeSpec{.workgroup_size = 256}, p, {},
                                     {vulkan::output(out)}, vulkan::Grid::threads(out.size()));
}

void Eye::eval_gpu(const std::vector<array>&, array& out) {
  auto& encoder = vulkan::encoder(stream());
  // The scalars made here die before the GPU reads them: the work that
  // reads them holds their data until it completes.
  array zero(0.0f);
  vulkan::fill_gpu(encoder, zero, out);
  // The diagonal column - row == k_ starts at (max(0, -k), max(0, k)) and
  // steps one row and one column at a time.
  const int64_t n = out.shape(0), m = out.shape(1);
  const int64_t first_row = std::max<int64_t>(0, -k_);
  const int64_t length = std::min(n - first_row, m - (first_row + k_));
  if (length <= 0) return;
  array one(1.0f);
  array ones({static_cast<ShapeElem>(length)}, float32, nullptr, {});
  ones.copy_shared_buffer(one, {0}, one.offset());
  vulkan::copy_gpu_into(encoder, ones, {m + 1}, first_row * m + first_row + k_, out);
}

}  // namespace mlx_lite
