// GPU kernel of ArgReduce (shaders/arg_reduce.comp).
#include "backend/vulkan/shaders/params/arg_reduce.h"

#include <algorithm>

#include "backend/common/buffers.h"
#include "backend/vulkan/encoder.h"
#include "backend/vulkan/lines.h"
#include "mlx_lite/primitives/reduction.h"

namespace mlx_lite {

namespace params = vulkan::params;

namespace {

constexpr uint32_t kThreads = params::kArgReduceThreads;
// As Reduce's: few long lines are split into chunks so that a large GPU has
// enough workgroups, and a chunk is long enough to pay for a second dispatch.
constexpr int64_t kTargetWorkgroups = 1024;
constexpr int64_t kMinChunk = 4096;
// From this many lines, lines that do not run along the fast axis get one
// thread each: neighbouring threads read neighbouring elements.
constexpr int64_t kThreadPerLineRows = 32768;
// lavapipe stops an invocation after 65,535 loop iterations, silently: a
// thread walks at most kMaxThreadLine elements of its line, and a workgroup's
// thread kMaxChunk / kThreads of its chunk (16,384). Only an input broadcast
// along the axis reaches these lengths there (its buffers hold 2^27 bytes).
constexpr int64_t kMaxThreadLine = 1 << 15;
constexpr int64_t kMaxChunk = int64_t{1} << 22;

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

}  // namespace

void ArgReduce::eval_gpu(const std::vector<array>& inputs, array& out) {
  using vulkan::input, vulkan::output, vulkan::Grid;
  static const vulkan::KernelsByDtype<
      vulkan::Kernel<params::ArgReduceParams, params::ArgReduceSpec>>
      kernels("arg_reduce_{}");
  const array& in = inputs[0];
  common::allocate(out);
  if (out.size() == 0) return;  // mlx_lite/ops/ rejects empty lines, so len >= 1
  vulkan::ShapeBlock shapes;
  const auto [lines, contiguous] = vulkan::lines_along(in, axis_, shapes);
  const int64_t rows = lines.rows, len = lines.len;

  int64_t groups = 1, chunk = len;
  const bool thread_per_line =
      len <= 16 || (lines.stride != 1 && rows >= kThreadPerLineRows && len <= kMaxThreadLine);
  const bool few_rows = rows < kTargetWorkgroups && len >= 2 * kMinChunk;
  if (!thread_per_line && (few_rows || len > kMaxChunk)) {
    groups = few_rows ? std::min(ceil_div(kTargetWorkgroups, rows), len / kMinChunk) : 1;
    groups = std::max(groups, ceil_div(len, kMaxChunk));
    // Chunks of whole runs of 4 (kMaxChunk is a multiple of 4 too).
    chunk = ceil_div(ceil_div(len, groups), 4) * 4;
    groups = ceil_div(len, chunk);  // no empty chunk
  }
  // Runs of 4 load as vectors where every chunk is whole runs that start at
  // multiples of 4 in the buffer (argmax of 64M float32 on an H200: see
  // docs/performance.md, issue 17's eleventh part).
  const bool runs = contiguous && size_of(in.dtype()) == 4 && len % 4 == 0 && lines.offset % 4 == 0;
  const params::ArgReduceParams p{.lines = lines, .groups = groups, .chunk = chunk};
  auto spec = [&](uint32_t mode) {
    return params::ArgReduceSpec{.workgroup_size = kThreads,
                                 .OP = static_cast<uint32_t>(type_),
                                 .CONTIGUOUS = contiguous,
                                 .MODE = mode,
                                 .RUNS = runs && mode == params::kWorkgroupPerChunk};
  };

  auto& encoder = vulkan::encoder(stream());
  const auto& kernel = kernels(in.dtype());
  // Binding 2 (the chunks' winners) is read in kPickAmongChunks alone; the
  // other modes bind the input there.
  if (thread_per_line) {
    encoder.dispatch(kernel, spec(params::kThreadPerLine), p, shapes,
                     {input(in), input(in), output(out)}, Grid::threads(rows));
    return;
  }
  if (groups == 1) {
    encoder.dispatch(kernel, spec(params::kWorkgroupPerChunk), p, shapes,
                     {input(in), input(in), output(out)}, Grid::workgroups(rows));
    return;
  }
  const int64_t partials = rows * groups;
  array winners(allocator::malloc(partials * sizeof(uint32_t)), {static_cast<ShapeElem>(partials)},
                uint32);
  encoder.dispatch(kernel, spec(params::kWorkgroupPerChunk), p, shapes,
                   {input(in), input(in), output(winners)}, Grid::workgroups(partials));
  encoder.dispatch(kernel, spec(params::kPickAmongChunks), p, shapes,
                   {input(in), input(winners), output(out)}, Grid::workgroups(rows));
}

}  // namespace mlx_lite
