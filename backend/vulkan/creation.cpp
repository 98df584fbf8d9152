// GPU kernels of the creation primitives: Arange (shaders/arange.comp) and
// Eye (a fill of zeros and a strided copy of ones onto the diagonal).
#include "mlx_lite/primitives/creation.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>

#include "backend/common/buffers.h"
#include "backend/vulkan/elementwise.h"
#include "backend/vulkan/encoder.h"

namespace mlx_lite {

void Arange::eval_gpu(const std::vector<array>&, array& out) {
  common::allocate(out);
  if (out.size() == 0) return;
  // The shader redoes the CPU's double arithmetic on the bits.
  auto& encoder = vulkan::Encoder::get();
  auto metadata = encoder.metadata({static_cast<int64_t>(out.size()),
                                    std::bit_cast<int64_t>(start_), std::bit_cast<int64_t>(step_)});
  encoder.dispatch(fmt::format("arange_{}", dtype_name(out.dtype())), {256},
                   {metadata, vulkan::output_binding(out)}, out.size());
}

void Eye::eval_gpu(const std::vector<array>&, array& out) {
  // The scalars made here may die before the GPU reads them: the allocator
  // returns their buffers to its cache only once that work completes.
  array zero(0.0f);
  vulkan::fill_gpu(zero, out);
  // The diagonal column - row == k_ starts at (max(0, -k), max(0, k)) and
  // steps one row and one column at a time.
  const int64_t n = out.shape(0), m = out.shape(1);
  const int64_t first_row = std::max<int64_t>(0, -k_);
  const int64_t length = std::min(n - first_row, m - (first_row + k_));
  if (length <= 0) return;
  array one(1.0f);
  array ones({static_cast<ShapeElem>(length)}, float32, nullptr, {});
  ones.copy_shared_buffer(one, {0}, one.offset());
  vulkan::copy_gpu_into(ones, {m + 1}, first_row * m + first_row + k_, out);
}

}  // namespace mlx_lite
