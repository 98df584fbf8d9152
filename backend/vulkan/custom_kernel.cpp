// GPU kernel of CustomKernel (fast::vulkan_kernel): fill or allocate the
// outputs, copy the inputs the kernel cannot read in place, write the
// metadata, dispatch the compiled kernel with the grid folded where it
// exceeds the device's workgroup counts.
#include "backend/vulkan/custom_kernel.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "backend/common/buffers.h"
#include "backend/gpu_backend.h"
#include "backend/vulkan/device.h"
#include "backend/vulkan/elementwise.h"
#include "backend/vulkan/encoder.h"
#include "backend/vulkan/kernel_compiler.h"
#include "mlx_lite/primitives/fast.h"

namespace mlx_lite::vulkan {

namespace {

// Workgroups per dimension of a grid of threads.
std::array<uint64_t, 3> workgroups(const std::array<uint32_t, 3>& grid,
                                   const std::array<uint32_t, 3>& threadgroup) {
  std::array<uint64_t, 3> groups;
  for (int i = 0; i < 3; ++i) groups[i] = (uint64_t{grid[i]} + threadgroup[i] - 1) / threadgroup[i];
  return groups;
}

// The dispatch of `groups` workgroups on this device: as they are where each
// dimension fits, else their count folded into x, then y, then z (the shader
// unfolds it). Empty when even folded they do not fit.
std::optional<std::array<uint32_t, 3>> physical_groups(const std::array<uint64_t, 3>& groups,
                                                       bool& folded) {
  const auto& max = Device::get().limits().max_workgroup_count;
  folded = groups[0] > max[0] || groups[1] > max[1] || groups[2] > max[2];
  if (!folded) {
    return std::array<uint32_t, 3>{static_cast<uint32_t>(groups[0]),
                                   static_cast<uint32_t>(groups[1]),
                                   static_cast<uint32_t>(groups[2])};
  }
  const uint64_t total = groups[0] * groups[1] * groups[2];
  if (total > 0xffffffffull) return std::nullopt;  // the shader counts them in 32 bits
  const uint64_t x = std::min<uint64_t>(total, max[0]);
  const uint64_t y = std::min<uint64_t>((total + x - 1) / x, max[1]);
  const uint64_t z = (total + x * y - 1) / (x * y);
  if (z > max[2]) return std::nullopt;
  return std::array<uint32_t, 3>{static_cast<uint32_t>(x), static_cast<uint32_t>(y),
                                 static_cast<uint32_t>(z)};
}

// The 32 bits that repeat through a buffer of `dtype` elements equal to
// `value` (so that vkCmdFillBuffer writes it), or none where the value is not
// exactly one of the dtype's (those convert as astype does, in fill_gpu) or
// is an int64 whose two halves differ.
std::optional<uint32_t> fill_word(float value, Dtype dtype) {
  const bool integral = std::trunc(value) == value;
  auto in = [&](double lo, double hi) { return integral && value >= lo && value <= hi; };
  auto repeat16 = [](uint16_t b) { return uint32_t{b} | uint32_t{b} << 16; };
  switch (dtype.val) {
    case Dtype::Val::bool_:
      return value != 0 ? 0x01010101u : 0u;
    case Dtype::Val::uint8:
      if (!in(0, 255)) return std::nullopt;
      return static_cast<uint32_t>(value) * 0x01010101u;
    case Dtype::Val::uint32:
      if (!in(0, 4294967040.0)) return std::nullopt;
      return static_cast<uint32_t>(value);
    case Dtype::Val::int32:
      if (!in(-2147483648.0, 2147483520.0)) return std::nullopt;
      return static_cast<uint32_t>(static_cast<int32_t>(value));
    case Dtype::Val::int64:
      if (value != 0 && value != -1) return std::nullopt;
      return value == 0 ? 0u : 0xffffffffu;
    case Dtype::Val::float16:
      return repeat16(float16_t(value).bits);
    case Dtype::Val::bfloat16:
      return repeat16(bfloat16_t(value).bits);
    case Dtype::Val::float32:
      return std::bit_cast<uint32_t>(value);
  }
  return std::nullopt;
}

template <typename T>
void put(std::vector<int64_t>& words, size_t byte_offset, T value) {
  std::memcpy(reinterpret_cast<char*>(words.data()) + byte_offset, &value, sizeof(T));
}

}  // namespace

void require_gpu_backend() {
  if (!gpu_backend::is_active()) {
    throw std::runtime_error(
        "[vulkan_kernel] Custom kernels need the Vulkan GPU backend, and this process has none "
        "(no Vulkan device, or MLX_LITE_DEVICE=cpu).");
  }
}

bool device_float32_atomic_add() {
  return Device::get().float32_atomic_add();
}

void check_launch(const std::string& kernel_name, const std::array<uint32_t, 3>& grid,
                  const std::array<uint32_t, 3>& threadgroup) {
  const auto& limits = Device::get().limits();
  uint64_t invocations = 1;
  for (int i = 0; i < 3; ++i) {
    invocations *= threadgroup[i];
    if (threadgroup[i] > limits.max_workgroup_size[i]) {
      throw std::invalid_argument(fmt::format(
          "[vulkan_kernel] Kernel '{}': threadgroup ({}, {}, {}) exceeds this device's "
          "maxComputeWorkGroupSize ({}, {}, {}).",
          kernel_name, threadgroup[0], threadgroup[1], threadgroup[2], limits.max_workgroup_size[0],
          limits.max_workgroup_size[1], limits.max_workgroup_size[2]));
    }
  }
  if (invocations > limits.max_workgroup_invocations) {
    throw std::invalid_argument(fmt::format(
        "[vulkan_kernel] Kernel '{}': threadgroup ({}, {}, {}) has {} threads; this device "
        "allows {} (maxComputeWorkGroupInvocations).",
        kernel_name, threadgroup[0], threadgroup[1], threadgroup[2], invocations,
        limits.max_workgroup_invocations));
  }
  bool folded;
  if (!physical_groups(workgroups(grid, threadgroup), folded)) {
    throw std::invalid_argument(fmt::format(
        "[vulkan_kernel] Kernel '{}': grid ({}, {}, {}) needs more workgroups of ({}, {}, {}) "
        "than this device can launch, even folded.",
        kernel_name, grid[0], grid[1], grid[2], threadgroup[0], threadgroup[1], threadgroup[2]));
  }
}

}  // namespace mlx_lite::vulkan

namespace mlx_lite {

void CustomKernel::eval_gpu(const std::vector<array>& inputs, std::vector<array>& outputs) {
  using namespace vulkan;
  auto& encoder = Encoder::get();
  const uint64_t align = vulkan::Device::get().limits().min_storage_buffer_offset_alignment;

  // A binding starts at the view's first element, so that inp[i] reads it:
  // views that start off the device's offset alignment, or that run
  // backwards (GLSL cannot index below 0), are read from a row-contiguous
  // copy, as are all non-row-contiguous inputs with ensure_row_contiguous.
  std::vector<array> ins;
  for (const auto& in : inputs) {
    const bool backwards = std::ranges::any_of(in.strides(), [](int64_t s) { return s < 0; });
    const bool unaligned = in.offset() * in.itemsize() % align != 0;
    if ((launch_.ensure_row_contiguous && !in.flags().row_contiguous) || backwards || unaligned) {
      array copy(in.shape(), in.dtype(), nullptr, {});
      copy_gpu(in, copy);
      ins.push_back(copy);
    } else {
      ins.push_back(in);
    }
  }
  for (auto& out : outputs) {
    const auto word =
        launch_.init_value ? fill_word(*launch_.init_value, out.dtype()) : std::nullopt;
    if (launch_.init_value && !word) {
      fill_gpu(array(*launch_.init_value), out);
      continue;
    }
    common::allocate(out);
    if (!word) continue;
    // vkCmdFillBuffer writes whole words: the block's capacity covers the rounding up.
    Binding b = output_binding(out);
    const uint64_t bytes = (out.nbytes() + 3) / 4 * 4;
    if (bytes <= b.range) {
      b.range = bytes;
      encoder.fill(b, *word);
    } else {
      fill_gpu(array(*launch_.init_value), out);
    }
  }
  std::vector<int64_t> words(launch_.metadata_bytes / 8, 0);
  const auto groups = workgroups(launch_.grid, launch_.threadgroup);
  for (int i = 0; i < 3; ++i) {
    put(words, 4 * i, launch_.grid[i]);
    put(words, 12 + 4 * i, static_cast<uint32_t>(groups[i]));
  }
  for (size_t k = 0; k < ins.size(); ++k) {
    for (int d = 0; d < ins[k].ndim(); ++d) {
      if (launch_.strides_offset[k] >= 0) {
        put(words, launch_.strides_offset[k] + 8 * d, ins[k].strides()[d]);
      }
      if (launch_.shape_offset[k] >= 0) {
        put(words, launch_.shape_offset[k] + 4 * d, static_cast<int32_t>(ins[k].shape(d)));
      }
    }
  }
  std::vector<Binding> bindings = {encoder.metadata(words)};
  for (const auto& in : ins) {
    Binding b = input_binding(in);
    const uint64_t start = in.offset() * in.itemsize();
    b.offset += start;
    b.range -= start;
    bindings.push_back(b);
  }
  for (const auto& out : outputs) bindings.push_back(output_binding(out));

  bool folded;
  const auto dispatch = physical_groups(groups, folded);  // check_launch saw it fit
  encoder.dispatch_groups(
      kernel_->key, kernel_->spirv,
      {launch_.threadgroup[0], launch_.threadgroup[1], launch_.threadgroup[2], folded ? 1u : 0u},
      bindings, *dispatch);
}

}  // namespace mlx_lite
