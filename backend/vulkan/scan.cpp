// GPU kernel of Scan (shaders/scan.comp).
#include <fmt/format.h>

#include "backend/common/buffers.h"
#include "backend/vulkan/encoder.h"
#include "backend/vulkan/reduction_lines.h"
#include "mlx_lite/primitives/reduction.h"

namespace mlx_lite {

namespace {

constexpr uint32_t kMaxThreads = 256;  // scan.comp's shared arrays
// Lines this short (a workgroup's tile holds 1024 elements), or this many
// lines that do not run along the fast axis, get one thread each (scan.comp).
constexpr int64_t kThreadPerLineLen = 64;
constexpr int64_t kThreadPerLineRows = 32768;

}  // namespace

void Scan::eval_gpu(const std::vector<array>& inputs, array& out) {
  const array& in = inputs[0];
  common::allocate(out);
  if (out.size() == 0) return;
  auto lines = vulkan::lines_along(in, axis_);
  int64_t inner = 1;
  for (int i = axis_ + 1; i < in.ndim(); ++i) inner *= in.shape(i);
  lines.words.insert(lines.words.end(), {inner, reverse_, inclusive_});
  const bool thread_per_line =
      lines.len <= kThreadPerLineLen ||
      (lines.rows >= kThreadPerLineRows && (lines.stride != 1 || inner != 1));

  // A workgroup walks its line in tiles of 4 elements per thread: shorter
  // lines get fewer threads (fewer idle, and cheaper barriers).
  uint32_t threads = 64;
  while (threads < kMaxThreads && 4 * threads < lines.len) threads *= 2;

  auto& encoder = vulkan::Encoder::get();
  auto metadata = encoder.metadata(lines.words);
  encoder.dispatch(
      fmt::format("scan_{}_{}", dtype_name(in.dtype()), dtype_name(out.dtype())),
      {thread_per_line ? kMaxThreads : threads, 0, lines.contiguous, thread_per_line ? 1u : 0u},
      {metadata, vulkan::input_binding(in), vulkan::output_binding(out)},
      static_cast<uint64_t>(lines.rows) * (thread_per_line ? 1 : threads));
}

}  // namespace mlx_lite
