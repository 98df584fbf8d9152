// GPU kernel of Scan (shaders/scan.comp).
#include "backend/vulkan/shaders/params/scan.h"

#include "backend/common/buffers.h"
#include "backend/vulkan/encoder.h"
#include "backend/vulkan/lines.h"
#include "mlx_lite/primitives/reduction.h"

namespace mlx_lite {

namespace params = vulkan::params;

namespace {

// Lines this short (a workgroup's tile holds 1024 elements at least), or this many
// lines that do not run along the fast axis, get one thread each (scan.comp).
constexpr int64_t kThreadPerLineLen = 64;
constexpr int64_t kThreadPerLineRows = 32768;

}  // namespace

void Scan::eval_gpu(const std::vector<array>& inputs, array& out) {
  static const vulkan::KernelsByDtype<vulkan::Kernel<params::ScanParams, params::ScanSpec>> kernels(
      "scan_{}_{}");
  const array& in = inputs[0];
  common::allocate(out);
  if (out.size() == 0) return;
  vulkan::ShapeBlock shapes;
  const auto [lines, contiguous] = vulkan::lines_along(in, axis_, shapes);
  int64_t inner = 1;
  for (int i = axis_ + 1; i < in.ndim(); ++i) inner *= in.shape(i);
  const params::ScanParams p{
      .lines = lines, .inner = inner, .reverse = reverse_, .inclusive = inclusive_};
  const bool thread_per_line =
      lines.len <= kThreadPerLineLen ||
      (lines.rows >= kThreadPerLineRows && (lines.stride != 1 || inner != 1));

  // A workgroup walks its line in tiles of kScanPerThread elements per
  // thread: shorter lines get fewer threads (fewer idle, and cheaper
  // barriers).
  uint32_t threads = 64;
  while (threads < params::kScanMaxThreads && params::kScanPerThread * threads < lines.len) {
    threads *= 2;
  }

  // Runs of 4 load and store as vectors where every line is whole runs that
  // start at multiples of 4 elements in both buffers (the output's lines are
  // contiguous when inner is 1; it starts at its buffer's start).
  const bool runs = !thread_per_line && contiguous && inner == 1 && size_of(in.dtype()) == 4 &&
                    size_of(out.dtype()) == 4 && lines.len % 4 == 0 && lines.offset % 4 == 0;

  const params::ScanSpec spec{
      .workgroup_size = thread_per_line ? params::kScanMaxThreads : threads,
      .OP = static_cast<uint32_t>(type_),
      .CONTIGUOUS = contiguous,
      .MODE = thread_per_line ? params::kScanThreadPerLine : params::kWorkgroupPerLine,
      .RUNS = runs};
  const auto grid =
      thread_per_line ? vulkan::Grid::threads(lines.rows) : vulkan::Grid::workgroups(lines.rows);
  vulkan::encoder(stream()).dispatch(kernels(in.dtype(), out.dtype()), spec, p, shapes,
                                     {vulkan::input(in), vulkan::output(out)}, grid);
}

}  // namespace mlx_lite
