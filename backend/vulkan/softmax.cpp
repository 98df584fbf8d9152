// GPU kernels of Softmax and LogSumExp over the last axis
// (shaders/softmax.comp): one workgroup per row, input read through its
// strides.
#include <fmt/format.h>

#include <algorithm>
#include <bit>

#include "backend/common/buffers.h"
#include "backend/common/layout.h"
#include "backend/vulkan/encoder.h"
#include "mlx_lite/primitives/reduction.h"

namespace mlx_lite {

namespace {

enum class RowOp : uint32_t { Softmax = 0, LogSumExp = 1 };

void last_axis_gpu(const array& in, array& out, RowOp op) {
  common::allocate(out);
  const int64_t len = in.shape(-1);
  if (in.size() == 0) return;
  const int64_t rows = static_cast<int64_t>(in.size()) / len;
  // The dims other than the last, merged where contiguous: row r starts at
  // their r-th element in row-major order.
  Shape shape(in.shape().begin(), in.shape().end() - 1);
  Strides strides(in.strides().begin(), in.strides().end() - 1);
  auto [dims, st] = common::collapse_dims<1>(shape, {&strides});
  std::vector<int64_t> words = {rows, static_cast<int64_t>(dims.size())};
  words.insert(words.end(), dims.begin(), dims.end());
  words.push_back(in.offset());
  words.insert(words.end(), st[0].begin(), st[0].end());
  words.push_back(len);
  words.push_back(in.strides().back());

  // About 4 elements per thread for short rows, so a short row does not
  // keep 256 threads mostly idle; softmax.comp's shared array holds 256.
  const auto threads = static_cast<uint32_t>(
      std::clamp<uint64_t>(std::bit_ceil(static_cast<uint64_t>((len + 3) / 4)), 32, 256));
  auto& encoder = vulkan::Encoder::get();
  auto metadata = encoder.metadata(words);
  encoder.dispatch(fmt::format("softmax_{}", dtype_name(in.dtype())),
                   {threads, static_cast<uint32_t>(op)},
                   {metadata, vulkan::input_binding(in), vulkan::output_binding(out)},
                   static_cast<uint64_t>(rows) * threads);
}

}  // namespace

// The GPU accumulates every dtype in float32 (as the CPU does), so `precise`
// changes nothing.
void Softmax::eval_gpu(const std::vector<array>& inputs, array& out) {
  last_axis_gpu(inputs[0], out, RowOp::Softmax);
}

void LogSumExp::eval_gpu(const std::vector<array>& inputs, array& out) {
  last_axis_gpu(inputs[0], out, RowOp::LogSumExp);
}

}  // namespace mlx_lite
