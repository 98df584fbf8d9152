// GPU kernels of Sort and ArgSort (shaders/sort.comp): one block pass that
// sorts blocks of kSortBlock elements in shared memory, then, for lines
// longer than a block, one merge pass per doubling of the sorted runs, the
// last of which writes the output. Lines of one block take one dispatch.
#include "backend/vulkan/shaders/params/sort.h"

#include <fmt/format.h>

#include <bit>
#include <stdexcept>

#include "backend/common/buffers.h"
#include "backend/vulkan/device.h"
#include "backend/vulkan/encoder.h"
#include "backend/vulkan/lines.h"
#include "mlx_lite/primitives/sort.h"

namespace mlx_lite {

namespace params = vulkan::params;

namespace {

using SortKernel = vulkan::Kernel<params::SortParams, params::SortSpec>;

// A buffer of n keys and n positions (the keys of int64 and uint64 are 64-bit).
struct Pairs {
  array keys, pos;
};

Pairs make_pairs(int64_t n, Dtype in) {
  Pairs p{array({static_cast<ShapeElem>(n)}, size_of(in) == 8 ? int64 : uint32, nullptr, {}),
          array({static_cast<ShapeElem>(n)}, uint32, nullptr, {})};
  common::allocate(p.keys);
  common::allocate(p.pos);
  return p;
}

// The block pass's shared memory: a key and a position per element. Every
// device this runs on has 32 KiB (lavapipe) or more; Vulkan's minimum is 16.
void check_shared_memory(Dtype in) {
  const uint64_t need = uint64_t{params::kSortBlock} * ((size_of(in) == 8 ? 8 : 4) + 4);
  const uint64_t have = vulkan::Device::get().limits().max_shared_memory;
  if (need > have) {
    throw std::runtime_error(fmt::format(
        "[sort] The GPU's kernel needs {} bytes of shared memory for {} keys; this device has {}.",
        need, dtype_name(in), have));
  }
}

void sort_gpu(const Stream& stream, const array& in, array& out, int axis, bool arg) {
  static const vulkan::KernelsByDtype<SortKernel> kernels("sort_{}_{}");
  check_shared_memory(in.dtype());
  common::allocate(out);
  if (out.size() == 0) return;
  vulkan::ShapeBlock shapes;
  const auto [lines, contiguous] = vulkan::lines_along(in, axis, shapes);
  int64_t inner = 1;
  for (int i = axis + 1; i < in.ndim(); ++i) inner *= in.shape(i);
  const int64_t len = lines.len;
  const SortKernel& kernel = kernels(in.dtype(), out.dtype());
  auto& encoder = vulkan::encoder(stream);
  auto spec = [&](uint32_t pass, bool final) {
    return params::SortSpec{.workgroup_size = params::kSortThreads,
                            .CONTIGUOUS = contiguous,
                            .PASS = pass,
                            .FINAL = final,
                            .ARG = arg};
  };
  auto dispatch = [&](uint32_t pass, bool final, uint32_t segment, uint32_t width,
                      const Pairs& from, const Pairs& to, vulkan::Grid grid) {
    const params::SortParams p{.lines = lines, .inner = inner, .segment = segment, .width = width};
    encoder.dispatch(kernel, spec(pass, final), p, shapes,
                     {vulkan::input(in), vulkan::input(from.keys), vulkan::input(from.pos),
                      vulkan::output(to.keys), vulkan::output(to.pos), vulkan::output(out)},
                     grid);
  };

  const int64_t block = params::kSortBlock;
  if (len <= block) {
    // Short lines: several per workgroup, each padded to a power of two.
    const auto segment = static_cast<uint32_t>(std::bit_ceil(static_cast<uint64_t>(len)));
    const int64_t per_group = block / segment;
    const Pairs unused = make_pairs(1, in.dtype());
    dispatch(params::kSortBlockPass, true, segment, 0, unused, unused,
             vulkan::Grid::workgroups((lines.rows + per_group - 1) / per_group));
    return;
  }
  // Long lines: sorted blocks, then merges of runs of width, 2 width, ...
  Pairs a = make_pairs(lines.rows * len, in.dtype());
  Pairs b = make_pairs(lines.rows * len, in.dtype());
  dispatch(params::kSortBlockPass, false, params::kSortBlock, 0, b, a,
           vulkan::Grid::workgroups(lines.rows * ((len + block - 1) / block)));
  for (int64_t width = block; width < len; width *= 2) {
    const bool last = 2 * width >= len;
    dispatch(params::kSortMergePass, last, 0, static_cast<uint32_t>(width), a, b,
             vulkan::Grid::threads(lines.rows * len));
    std::swap(a, b);
  }
}

}  // namespace

void Sort::eval_gpu(const std::vector<array>& inputs, array& out) {
  sort_gpu(stream(), inputs[0], out, axis_, false);
}

void ArgSort::eval_gpu(const std::vector<array>& inputs, array& out) {
  sort_gpu(stream(), inputs[0], out, axis_, true);
}

}  // namespace mlx_lite
