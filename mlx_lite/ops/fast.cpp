// fast::vulkan_kernel: checks a call's arguments and builds its CustomKernel
// node; the shader's generation, compilation and caching, and its eval_gpu,
// are the Vulkan backend's (backend/vulkan/custom_kernel.h).
#include "mlx_lite/ops/fast.h"

#include <fmt/format.h>

#include <set>
#include <stdexcept>

#include "backend/vulkan/custom_kernel.h"
#include "mlx_lite/primitives/fast.h"
#include "mlx_lite/utils.h"

namespace mlx_lite::fast {

namespace {

std::array<uint32_t, 3> checked_dims(const std::string& kernel, const char* what,
                                     std::tuple<int, int, int> dims, int least = 1) {
  const auto [x, y, z] = dims;
  if (x < least || y < least || z < least) {
    throw std::invalid_argument(fmt::format(
        "[vulkan_kernel] Kernel '{}': {} ({}, {}, {}) must be {} in every dimension.", kernel, what,
        x, y, z, least == 0 ? "positive (or zero, when every output is empty)" : "positive"));
  }
  return {static_cast<uint32_t>(x), static_cast<uint32_t>(y), static_cast<uint32_t>(z)};
}

// A grid without threads (an empty batch) runs nothing: fine when every
// output is empty too, else those outputs would never be written.
bool empty_launch(const std::string& kernel, const std::vector<std::string>& output_names,
                  const std::array<uint32_t, 3>& grid, const std::vector<Shape>& output_shapes) {
  if (grid[0] != 0 && grid[1] != 0 && grid[2] != 0) return false;
  for (size_t i = 0; i < output_shapes.size(); ++i) {
    const int64_t size = checked_size(output_shapes[i], "vulkan_kernel");
    if (size == 0) continue;
    throw std::invalid_argument(fmt::format(
        "[vulkan_kernel] Kernel '{}': grid ({}, {}, {}) must be positive when an output has "
        "elements: no thread would write output '{}' of shape {} ({} elements). A zero grid is "
        "allowed only when every output is empty (an empty batch).",
        kernel, grid[0], grid[1], grid[2], output_names[i], shape_string(output_shapes[i]), size));
  }
  return true;
}

void check_counts(const vulkan::CustomKernelSource& k, const std::vector<array>& inputs,
                  const std::vector<Shape>& output_shapes,
                  const std::vector<Dtype>& output_dtypes) {
  auto count = [&](const char* what, size_t given, size_t expected) {
    if (given != expected) {
      throw std::invalid_argument(
          fmt::format("[vulkan_kernel] Kernel '{}' was called with {} {}; it has {} ({}).", k.name,
                      given, what, expected, what[0] == 'i' ? "input_names" : "output_names"));
    }
  };
  count("inputs", inputs.size(), k.input_names.size());
  count("output shapes", output_shapes.size(), k.output_names.size());
  count("output dtypes", output_dtypes.size(), k.output_names.size());
  for (size_t i = 0; i < output_shapes.size(); ++i) {
    if (std::ranges::any_of(output_shapes[i], [](int d) { return d < 0; })) {
      throw std::invalid_argument(fmt::format(
          "[vulkan_kernel] Kernel '{}': output '{}' has shape {} with a negative dimension.",
          k.name, k.output_names[i], shape_string(output_shapes[i])));
    }
  }
}

void check_template_args(const std::string& kernel,
                         const std::vector<std::pair<std::string, TemplateArg>>& template_args) {
  std::set<std::string> names;
  for (const auto& [name, value] : template_args) {
    if (!names.insert(name).second) {
      throw std::invalid_argument(fmt::format(
          "[vulkan_kernel] Kernel '{}': template argument '{}' is given twice.", kernel, name));
    }
  }
}

// A kernel that calls a barrier, or threadgroup_* helpers (which contain
// barriers), which every thread of a workgroup must reach, needs a grid of
// whole workgroups; threadgroup_* take at most 32 simdgroups.
bool whole_threadgroups(const std::array<uint32_t, 3>& grid, const std::array<uint32_t, 3>& group) {
  return grid[0] % group[0] == 0 && grid[1] % group[1] == 0 && grid[2] % group[2] == 0;
}

void check_barrier(const std::string& kernel, const vulkan::CustomKernelVariant& variant,
                   const std::array<uint32_t, 3>& grid, const std::array<uint32_t, 3>& group) {
  if (!variant.generated.uses_barrier) return;
  if (!whole_threadgroups(grid, group)) {
    throw std::invalid_argument(fmt::format(
        "[vulkan_kernel] Kernel '{}' calls a barrier (threadgroup_barrier, or a threadgroup_* "
        "helper), which every thread of a threadgroup must reach, so its grid ({}, {}, {}) "
        "must be a multiple of its threadgroup ({}, {}, {}). Round the grid up and let the "
        "extra threads skip their loads and stores.",
        kernel, grid[0], grid[1], grid[2], group[0], group[1], group[2]));
  }
  const uint64_t threads = uint64_t{group[0]} * group[1] * group[2];
  if (variant.generated.uses_threadgroup_helpers && threads > 1024) {
    throw std::invalid_argument(fmt::format(
        "[vulkan_kernel] Kernel '{}' calls threadgroup_* helpers, which take at most 1024 threads "
        "(32 simdgroups of 32); its threadgroup ({}, {}, {}) has {}.",
        kernel, group[0], group[1], group[2], threads));
  }
}

// Simdgroup matrices are operations of whole simdgroups (a subgroup's
// cooperative matrices on matrix units): every simdgroup of 32 threads must
// be complete and reach them.
void check_simdgroup_matrices(const std::string& kernel, const vulkan::CustomKernelVariant& variant,
                              const std::array<uint32_t, 3>& grid,
                              const std::array<uint32_t, 3>& group) {
  if (!variant.generated.uses_simdgroup_matrices) return;
  const uint64_t threads = uint64_t{group[0]} * group[1] * group[2];
  if (threads % 32 != 0 || !whole_threadgroups(grid, group)) {
    throw std::invalid_argument(fmt::format(
        "[vulkan_kernel] Kernel '{}' uses simdgroup matrices, which whole simdgroups of 32 "
        "threads operate on together: its threadgroup ({}, {}, {}) must have a multiple of 32 "
        "threads (it has {}) and its grid ({}, {}, {}) must be a multiple of the threadgroup.",
        kernel, group[0], group[1], group[2], threads, grid[0], grid[1], grid[2]));
  }
}

}  // namespace

CustomKernelFunction vulkan_kernel(const std::string& name,
                                   const std::vector<std::string>& input_names,
                                   const std::vector<std::string>& output_names,
                                   const std::string& source, const std::string& header,
                                   bool ensure_row_contiguous, bool atomic_outputs,
                                   bool native_simdgroups) {
  return CustomKernelFunction(std::make_shared<const vulkan::CustomKernelTemplate>(
      vulkan::CustomKernelSource{name, input_names, output_names, source, header,
                                 ensure_row_contiguous, atomic_outputs, native_simdgroups}));
}

std::vector<array> CustomKernelFunction::operator()(
    const std::vector<array>& inputs, const std::vector<Shape>& output_shapes,
    const std::vector<Dtype>& output_dtypes, std::tuple<int, int, int> grid,
    std::tuple<int, int, int> threadgroup,
    const std::vector<std::pair<std::string, TemplateArg>>& template_args,
    std::optional<float> init_value, bool verbose, StreamOrDevice s) const {
  const vulkan::CustomKernelSource& k = kernel_->source();
  const Stream stream = to_stream(s);
  if (stream.device.type != Device::gpu) {
    throw std::invalid_argument(fmt::format(
        "[vulkan_kernel] Kernel '{}': custom kernels run on the GPU only; the call was given a "
        "CPU stream.",
        k.name));
  }
  vulkan::require_gpu_backend();
  check_counts(k, inputs, output_shapes, output_dtypes);
  check_template_args(k.name, template_args);
  const auto grid_dims = checked_dims(k.name, "grid", grid, /*least=*/0);
  const auto group_dims = checked_dims(k.name, "threadgroup", threadgroup);
  if (empty_launch(k.name, k.output_names, grid_dims, output_shapes)) {
    std::vector<array> outputs;
    for (size_t i = 0; i < output_shapes.size(); ++i) {
      outputs.emplace_back(nullptr, output_shapes[i], output_dtypes[i], [](void*) {});
    }
    return outputs;
  }
  vulkan::check_launch(k.name, grid_dims, group_dims);
  auto variant = kernel_->variant(inputs, output_dtypes, template_args, verbose);
  vulkan::check_shared_memory(k.name, *variant->compiled, group_dims);
  check_barrier(k.name, *variant, grid_dims, group_dims);
  check_simdgroup_matrices(k.name, *variant, grid_dims, group_dims);
  auto primitive = std::make_shared<CustomKernel>(
      stream, k.name, std::move(variant),
      CustomKernel::Launch{grid_dims, group_dims, init_value, k.ensure_row_contiguous});
  return array::make_arrays(output_shapes, output_dtypes, primitive, inputs);
}

KernelCacheStats kernel_cache_stats() {
  return vulkan::kernel_cache_stats();
}

size_t set_kernel_cache_limit(size_t entries) {
  return vulkan::set_kernel_cache_limit(entries);
}

}  // namespace mlx_lite::fast

namespace mlx_lite {

bool CustomKernel::is_equivalent(const Primitive& other) const {
  const auto* o = dynamic_cast<const CustomKernel*>(&other);
  return o != nullptr && o->kernel_->compiled == kernel_->compiled &&
         o->launch_.grid == launch_.grid && o->launch_.threadgroup == launch_.threadgroup &&
         o->launch_.init_value == launch_.init_value &&
         o->launch_.ensure_row_contiguous == launch_.ensure_row_contiguous;
}

}  // namespace mlx_lite
