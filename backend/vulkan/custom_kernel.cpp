// GPU kernel of CustomKernel (fast::vulkan_kernel): fill or allocate the
// outputs, copy the inputs the kernel cannot read in place, fill in the
// metadata where the generated interface says, dispatch the compiled kernel
// with the grid folded where it exceeds the device's workgroup counts.
#include "backend/vulkan/custom_kernel.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <stdexcept>

#include "backend/common/buffers.h"
#include "backend/gpu_backend.h"
#include "backend/vulkan/device.h"
#include "backend/vulkan/elementwise.h"
#include "backend/vulkan/encoder.h"
#include "backend/vulkan/shaders/params/custom_kernel.h"
#include "mlx_lite/utils.h"

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

// init_value as a scalar of `dtype` where that holds it exactly, converted
// on the host (copy_gpu then fills the buffer by vkCmdFillBuffer where the
// element's bits repeat every 32 bits), else as the float32 scalar, which the
// copy converts as astype does (out-of-range integers, say).
array init_scalar(float value, Dtype dtype) {
  if (dtype == float64) return array(value);  // never on the GPU
  // bool and the float dtypes: the host converts as astype does (!= 0,
  // rounded to nearest even).
  if (!is_integral(dtype)) return array(value, dtype);
  // An integer dtype holds an integral value in [min, max]; max + 1 as a
  // double is past every float at or below max (for 64 bits it rounds to
  // 2^64 or 2^63, which a float can be, so the bound is strict).
  const iinfo limits(dtype);
  const double v = value;
  const bool exact = std::trunc(v) == v && v >= static_cast<double>(limits.min) &&
                     v < static_cast<double>(limits.max) + 1.0;
  return exact ? array(value, dtype) : array(value);
}

// A binding starts at the view's first element, so that inp[i] reads it:
// views that start off the device's offset alignment, or that run backwards
// (GLSL cannot index below 0), are read from a row-contiguous copy, as are
// all non-row-contiguous inputs with ensure_row_contiguous.
std::vector<array> readable_inputs(Encoder& encoder, const std::vector<array>& inputs,
                                   bool ensure_row_contiguous) {
  const uint64_t align = Device::get().limits().min_storage_buffer_offset_alignment;
  std::vector<array> ins;
  for (const auto& in : inputs) {
    const bool backwards = std::ranges::any_of(in.strides(), [](int64_t s) { return s < 0; });
    const bool unaligned = in.offset() * in.itemsize() % align != 0;
    if ((ensure_row_contiguous && !in.flags().row_contiguous) || backwards || unaligned) {
      array copy(in.shape(), in.dtype(), nullptr, {});
      copy_gpu(encoder, in, copy);
      ins.push_back(copy);
    } else {
      ins.push_back(in);
    }
  }
  return ins;
}

// Gives `out` its buffer, filled with `init_value` where given.
void initialize_output(Encoder& encoder, array& out, std::optional<float> init_value) {
  if (init_value) {
    fill_gpu(encoder, init_scalar(*init_value, out.dtype()), out);
  } else {
    common::allocate(out);
  }
}

template <typename T>
void put(std::vector<std::byte>& bytes, size_t offset, T value) {
  std::memcpy(bytes.data() + offset, &value, sizeof(T));
}

// The metadata of a call, laid out as the generated interface says.
std::vector<std::byte> metadata(const KernelInterface& interface,
                                const std::array<uint32_t, 3>& grid,
                                const std::array<uint64_t, 3>& groups,
                                const std::vector<array>& ins) {
  std::vector<std::byte> bytes(interface.bytes);
  params::CustomKernelParams p{};
  for (int i = 0; i < 3; ++i) {
    p.grid[i] = grid[i];
    p.groups[i] = static_cast<uint32_t>(groups[i]);
  }
  std::memcpy(bytes.data(), &p, sizeof(p));
  for (const auto& b : interface.blocks) {
    const array& a = ins[b.input];
    for (int d = 0; d < a.ndim(); ++d) {
      if (b.strides) {
        put(bytes, b.offset + 8 * d, a.strides()[d]);
      } else {
        put(bytes, b.offset + 4 * d, static_cast<int32_t>(a.shape(d)));
      }
    }
  }
  return bytes;
}

}  // namespace

void require_gpu_backend() {
  if (!gpu_backend::is_active()) {
    throw std::runtime_error(
        "[vulkan_kernel] Custom kernels need the Vulkan GPU backend, and this process has none "
        "(no Vulkan device, or MLX_LITE_DEVICE=cpu).");
  }
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
  auto& encoder = vulkan::encoder(stream());
  const std::vector<array> ins = readable_inputs(encoder, inputs, launch_.ensure_row_contiguous);
  for (auto& out : outputs) initialize_output(encoder, out, launch_.init_value);

  const KernelInterface& interface = kernel_->generated.interface;
  const auto groups = workgroups(launch_.grid, launch_.threadgroup);
  const std::vector<std::byte> bytes = metadata(interface, launch_.grid, groups, ins);
  ShapeBlock shapes;
  std::span<const std::byte> push_constants;
  if (interface.in_push_constants) {
    push_constants = bytes;
  } else {
    shapes.set_table_bytes(bytes);
  }
  // The inputs (each from its first element) and outputs in the order of
  // their bindings (1, 2, ...).
  std::vector<Operand> operands;
  for (uint32_t binding = 1; binding <= interface.bindings.size(); ++binding) {
    const size_t k = std::ranges::find(interface.bindings, binding) - interface.bindings.begin();
    if (k < ins.size()) {
      operands.push_back({ins[k], false, /*from_first_element=*/true});
    } else {
      operands.push_back(output(outputs[k - ins.size()]));
    }
  }

  bool folded;
  const auto dispatch = physical_groups(groups, folded);  // check_launch saw it fit
  const params::CustomKernelSpec spec{
      {launch_.threadgroup[0], launch_.threadgroup[1], launch_.threadgroup[2]}, folded};
  std::array<uint32_t, 4> spec_words;
  std::memcpy(spec_words.data(), &spec, sizeof(spec));
  encoder.dispatch(kernel_->compiled->shader, spec_words, push_constants, shapes, operands,
                   Grid::workgroups(*dispatch));
}

}  // namespace mlx_lite
