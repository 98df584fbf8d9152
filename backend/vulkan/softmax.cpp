// GPU kernels of Softmax and LogSumExp over the last axis, input read
// through its strides: a power of two of threads per row, several short
// rows to a workgroup (shaders/softmax.comp), or for few long rows and for
// any row past 2^21 several workgroups per row (shaders/softmax_split.comp).
#include "backend/vulkan/shaders/params/softmax.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <stdexcept>

#include "backend/common/buffers.h"
#include "backend/vulkan/device.h"
#include "backend/vulkan/encoder.h"
#include "backend/vulkan/lines.h"
#include "backend/vulkan/shaders/params/softmax_split.h"
#include "mlx_lite/primitives/reduction.h"

namespace mlx_lite {

namespace params = vulkan::params;

namespace {

using SplitKernel = vulkan::Kernel<params::SoftmaxSplitParams, params::SoftmaxSplitSpec>;

// Rows fewer than this leave a large GPU idle with one workgroup each (as
// in reduction.cpp): they are split into parts.
constexpr int64_t kTargetWorkgroups = 1024;
// Below this many elements a part is not worth a second dispatch.
constexpr int64_t kMinPartLen = 8192;

// Elements per thread of a short line (within softmax.comp's registers,
// params::kSoftmaxCachedPerThread).
constexpr int64_t kElementsPerThread = 8;
static_assert(kElementsPerThread <= params::kSoftmaxCachedPerThread);

// softmax_split.comp's finish reads a line's part stats one per thread.
static_assert(params::kSoftmaxSplitMaxParts <= params::kSoftmaxMaxThreads);

// The longest part a workgroup walks: 8192 elements a thread a pass, within
// lavapipe's cap of 65,535 loop iterations an invocation (silent: a row of
// 2^24 in one workgroup gave 0.5 everywhere). So a row takes at most
// kSoftmaxSplitMaxParts * 2^21 = 2^29 elements; the ops compose longer ones
// from max and sum (mlx_lite/ops/reduction.cpp's kLongRow).
constexpr int64_t kMaxPartLen = int64_t{1} << 21;

// The workgroups per row: 1, or enough parts to fill the GPU, and at least
// enough that none is longer than kMaxPartLen.
int64_t parts_per_row(const params::Lines& lines) {
  const int64_t wanted = (kTargetWorkgroups + lines.rows - 1) / lines.rows;
  const int64_t parts =
      std::max(std::min({wanted, int64_t{params::kSoftmaxSplitMaxParts}, lines.len / kMinPartLen}),
               (lines.len + kMaxPartLen - 1) / kMaxPartLen);
  if (parts > params::kSoftmaxSplitMaxParts) {
    throw std::logic_error(fmt::format(
        "[softmax] A row of {} elements reached the GPU kernel, whose parts cover at most {}.",
        lines.len, params::kSoftmaxSplitMaxParts * kMaxPartLen));
  }
  return parts;
}

// Each row in `parts` workgroups: their stats, then the outputs.
void split_rows(vulkan::Encoder& encoder, const array& in, array& out, uint32_t op,
                const vulkan::LinesLayout& l, const vulkan::ShapeBlock& shapes, int64_t parts) {
  static const vulkan::KernelsByDtype<SplitKernel> stats_kernels("softmax_split_stats_{}");
  static const vulkan::KernelsByDtype<SplitKernel> finish_kernels("softmax_split_finish_{}");
  const int64_t part_len = (l.lines.len + parts - 1) / parts;
  const params::SoftmaxSplitParams p{
      .lines = l.lines, .parts = (l.lines.len + part_len - 1) / part_len, .part_len = part_len};
  const params::SoftmaxSplitSpec spec{
      .workgroup_size = params::kSoftmaxMaxThreads, .OP = op, .CONTIGUOUS = l.contiguous};
  const int64_t workgroups = l.lines.rows * p.parts;
  array stats(allocator::malloc(workgroups * 2 * size_of(float32)),
              {static_cast<ShapeElem>(workgroups), 2}, float32);
  encoder.dispatch(stats_kernels(in.dtype()), spec, p, shapes,
                   {vulkan::input(in), vulkan::output(stats)},
                   vulkan::Grid::workgroups(workgroups));
  encoder.dispatch(finish_kernels(in.dtype()), spec, p, shapes,
                   {vulkan::input(in), vulkan::input(stats), vulkan::output(out)},
                   vulkan::Grid::workgroups(op == params::kSoftmax ? workgroups : l.lines.rows));
}

// Whether the device's subgroups shuffle (softmax_shuffle_<t>'s need).
bool has_subgroup_shuffle() {
  static const bool has = static_cast<bool>(vulkan::Device::get().features().subgroup_operations &
                                            vk::SubgroupFeatureFlagBits::eShuffle);
  return has;
}

void last_axis_gpu(const Stream& s, const array& in, array& out, uint32_t op) {
  using Kernels =
      vulkan::KernelsByDtype<vulkan::Kernel<params::SoftmaxParams, params::SoftmaxSpec>>;
  static const Kernels plain("softmax_{}"), shuffle("softmax_shuffle_{}");
  const Kernels& kernels = has_subgroup_shuffle() ? shuffle : plain;
  common::allocate(out);
  if (in.size() == 0) return;
  vulkan::ShapeBlock shapes;
  const vulkan::LinesLayout layout = vulkan::lines_along(in, in.ndim() - 1, shapes);
  if (const int64_t parts = parts_per_row(layout.lines); parts > 1) {
    return split_rows(vulkan::encoder(s), in, out, op, layout, shapes, parts);
  }
  // About kElementsPerThread elements per thread, so a short line does not
  // keep 256 threads mostly idle: a power of two of them per line, the rest
  // of the 256 on the next lines (fewer threads per line also mean fewer
  // steps of the shared-memory combine).
  const auto row_threads = static_cast<uint32_t>(std::clamp<uint64_t>(
      std::bit_ceil(
          static_cast<uint64_t>((layout.lines.len + kElementsPerThread - 1) / kElementsPerThread)),
      1, params::kSoftmaxMaxThreads));
  const int64_t rows_per_workgroup = params::kSoftmaxMaxThreads / row_threads;
  // Runs of 4 load and store as vectors (fewer instructions for the same
  // bytes: softmax over 262144 x 128 float32 ran 1.2x faster on an H200).
  const int64_t len = layout.lines.len;
  const bool runs = layout.contiguous && size_of(in.dtype()) == 4 && len % 4 == 0 &&
                    layout.lines.offset % 4 == 0 &&
                    len <= row_threads * params::kSoftmaxCachedPerThread;
  const params::SoftmaxSpec spec{.workgroup_size = params::kSoftmaxMaxThreads,
                                 .OP = op,
                                 .CONTIGUOUS = layout.contiguous,
                                 .ROW_THREADS = row_threads,
                                 .RUNS = runs};
  vulkan::encoder(s).dispatch(
      kernels(in.dtype()), spec, params::SoftmaxParams{.lines = layout.lines}, shapes,
      {vulkan::input(in), vulkan::output(out)},
      vulkan::Grid::workgroups((layout.lines.rows + rows_per_workgroup - 1) / rows_per_workgroup));
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
