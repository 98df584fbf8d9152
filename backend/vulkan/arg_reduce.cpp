// GPU kernel of ArgReduce (shaders/arg_reduce.comp).
#include <fmt/format.h>

#include <algorithm>

#include "backend/common/buffers.h"
#include "backend/vulkan/encoder.h"
#include "backend/vulkan/reduction_lines.h"
#include "mlx_lite/primitives/reduction.h"

namespace mlx_lite {

namespace {

constexpr uint32_t kThreads = 256;  // arg_reduce.comp's shared arrays
// As Reduce's: few long lines are split into chunks so that a large GPU has
// enough workgroups, and a chunk is long enough to pay for a second dispatch.
constexpr int64_t kTargetWorkgroups = 1024;
constexpr int64_t kMinChunk = 4096;
// From this many lines, lines that do not run along the fast axis get one
// thread each: neighbouring threads read neighbouring elements.
constexpr int64_t kThreadPerLineRows = 32768;

enum Mode : uint32_t { kWorkgroupPerChunk = 0, kThreadPerLine = 1, kPickAmongChunks = 2 };

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

}  // namespace

void ArgReduce::eval_gpu(const std::vector<array>& inputs, array& out) {
  const array& in = inputs[0];
  common::allocate(out);
  if (out.size() == 0) return;  // ops/ rejects empty lines, so len >= 1
  auto lines = vulkan::lines_along(in, axis_);
  const int64_t rows = lines.rows, len = lines.len;

  int64_t groups = 1, chunk = len;
  const bool thread_per_line = len <= 16 || (lines.stride != 1 && rows >= kThreadPerLineRows);
  if (!thread_per_line && rows < kTargetWorkgroups && len >= 2 * kMinChunk) {
    groups = std::min(ceil_div(kTargetWorkgroups, rows), len / kMinChunk);
    chunk = ceil_div(len, groups);
    groups = ceil_div(len, chunk);  // no empty chunk
  }
  lines.words.insert(lines.words.end(), {groups, chunk});

  auto& encoder = vulkan::Encoder::get();
  const auto shader = fmt::format("arg_reduce_{}", dtype_name(in.dtype()));
  const uint32_t op = static_cast<uint32_t>(type_);
  const uint32_t contiguous = lines.contiguous;
  auto metadata = encoder.metadata(lines.words);
  // Binding 2 (the chunks' winners) is read in kPickAmongChunks alone; the
  // other modes bind the input there.
  if (thread_per_line || groups == 1) {
    const Mode mode = thread_per_line ? kThreadPerLine : kWorkgroupPerChunk;
    encoder.dispatch(shader, {kThreads, op, contiguous, mode},
                     {metadata, vulkan::input_binding(in), vulkan::input_binding(in),
                      vulkan::output_binding(out)},
                     static_cast<uint64_t>(rows) * (thread_per_line ? 1 : kThreads));
    return;
  }
  const int64_t partials = rows * groups;
  array winners(allocator::malloc(partials * sizeof(uint32_t)), {static_cast<ShapeElem>(partials)},
                uint32);
  encoder.dispatch(shader, {kThreads, op, contiguous, kWorkgroupPerChunk},
                   {metadata, vulkan::input_binding(in), vulkan::input_binding(in),
                    vulkan::output_binding(winners)},
                   static_cast<uint64_t>(partials) * kThreads);
  encoder.dispatch(shader, {kThreads, op, contiguous, kPickAmongChunks},
                   {metadata, vulkan::input_binding(in), vulkan::input_binding(winners),
                    vulkan::output_binding(out)},
                   static_cast<uint64_t>(rows) * kThreads);
}

}  // namespace mlx_lite
