// GPU kernels of Softmax and LogSumExp over the last axis
// (shaders/softmax.comp): one workgroup per row, input read through its
// strides.
#include "backend/vulkan/shaders/params/softmax.h"

#include <algorithm>
#include <bit>

#include "backend/common/buffers.h"
#include "backend/vulkan/encoder.h"
#include "backend/vulkan/lines.h"
#include "mlx_lite/primitives/reduction.h"

namespace mlx_lite {

namespace params = vulkan::params;

namespace {

void last_axis_gpu(const Stream& s, const array& in, array& out, uint32_t op) {
  static const vulkan::KernelsByDtype<vulkan::Kernel<params::SoftmaxParams, params::SoftmaxSpec>>
      kernels("softmax_{}");
  common::allocate(out);
  if (in.size() == 0) return;
  vulkan::ShapeBlock shapes;
  const auto [lines, contiguous] = vulkan::lines_along(in, in.ndim() - 1, shapes);
  // About 4 elements per thread for short rows, so a short row does not
  // keep 256 threads mostly idle; softmax.comp's shared array holds 256.
  const auto threads = static_cast<uint32_t>(std::clamp<uint64_t>(
      std::bit_ceil(static_cast<uint64_t>((lines.len + 3) / 4)), 32, params::kSoftmaxMaxThreads));
  const params::SoftmaxSpec spec{.workgroup_size = threads, .OP = op, .CONTIGUOUS = contiguous};
  vulkan::encoder(s).dispatch(kernels(in.dtype()), spec, params::SoftmaxParams{.lines = lines},
                              shapes, {vulkan::input(in), vulkan::output(out)},
                              vulkan::Grid::workgroups(lines.rows));
}

}  // namespace

// The GPU accumulates every dtype in float32 (as the CPU does), so `precise`
// changes nothing.
void Softmax::eval_gpu(const std::vector<array>& inputs, array& out) {
  last_axis_gpu(stream(), inputs[0], out, params::kSoftmax);
}

void LogSumExp::eval_gpu(const std::vector<array>& inputs, array& out) {
  last_axis_gpu(stream(), inputs[0], out, params::kLogSumExp);
}

}  // namespace mlx_lite
