#include "ops/fast.h"

#include <absl/container/flat_hash_map.h>
#include <fmt/format.h>

#include <iostream>
#include <iterator>
#include <mutex>
#include <set>
#include <stdexcept>

#include "backend/vulkan/custom_kernel.h"
#include "backend/vulkan/kernel_compiler.h"
#include "backend/vulkan/kernel_source.h"
#include "mlx_lite/primitives/fast.h"
#include "mlx_lite/utils.h"

namespace mlx_lite::fast {

// What vulkan_kernel() was given, and the kernels compiled from it so far,
// one per combination of dtypes, ranks and template arguments: a repeated
// call finds its kernel here without generating any source.
struct CustomKernelSpec {
  std::string name;
  std::vector<std::string> input_names, output_names;
  std::string source, header;
  bool ensure_row_contiguous;
  bool atomic_outputs;

  struct Variant {
    vulkan::GeneratedKernel generated;
    std::shared_ptr<const vulkan::CompiledKernel> compiled;
  };
  mutable std::mutex mutex;
  mutable absl::flat_hash_map<std::string, std::shared_ptr<const Variant>> variants;
};

namespace {

// The bytes that select a variant: what the generated source depends on
// besides the spec itself.
std::string variant_key(const std::vector<array>& inputs, const std::vector<Dtype>& output_dtypes,
                        const std::vector<std::pair<std::string, TemplateArg>>& template_args,
                        bool float_atomics) {
  std::string key;
  for (const auto& in : inputs) {
    key += static_cast<char>(in.dtype().val);
    key += static_cast<char>(in.ndim());
  }
  key += '|';
  for (auto d : output_dtypes) key += static_cast<char>(d.val);
  key += float_atomics ? 'A' : 'C';
  for (const auto& [name, value] : template_args) {
    key += '|' + name + '=';
    if (auto* d = std::get_if<Dtype>(&value))
      fmt::format_to(std::back_inserter(key), "d{}", int(d->val));
    if (auto* i = std::get_if<int>(&value)) fmt::format_to(std::back_inserter(key), "i{}", *i);
    if (auto* b = std::get_if<bool>(&value)) key += *b ? "b1" : "b0";
  }
  return key;
}

std::array<uint32_t, 3> checked_dims(const std::string& kernel, const char* what,
                                     std::tuple<int, int, int> dims) {
  const auto [x, y, z] = dims;
  if (x <= 0 || y <= 0 || z <= 0) {
    throw std::invalid_argument(fmt::format(
        "[vulkan_kernel] Kernel '{}': {} ({}, {}, {}) must be positive in every dimension.", kernel,
        what, x, y, z));
  }
  return {static_cast<uint32_t>(x), static_cast<uint32_t>(y), static_cast<uint32_t>(z)};
}

}  // namespace

CustomKernelFunction vulkan_kernel(const std::string& name,
                                   const std::vector<std::string>& input_names,
                                   const std::vector<std::string>& output_names,
                                   const std::string& source, const std::string& header,
                                   bool ensure_row_contiguous, bool atomic_outputs) {
  if (output_names.empty()) {
    throw std::invalid_argument(
        fmt::format("[vulkan_kernel] Kernel '{}' needs at least one output name.", name));
  }
  vulkan::check_kernel_names(input_names, output_names);
  auto spec = std::make_shared<CustomKernelSpec>();
  spec->name = name;
  spec->input_names = input_names;
  spec->output_names = output_names;
  spec->source = source;
  spec->header = header;
  spec->ensure_row_contiguous = ensure_row_contiguous;
  spec->atomic_outputs = atomic_outputs;
  return CustomKernelFunction(std::move(spec));
}

std::vector<array> CustomKernelFunction::operator()(
    const std::vector<array>& inputs, const std::vector<Shape>& output_shapes,
    const std::vector<Dtype>& output_dtypes, std::tuple<int, int, int> grid,
    std::tuple<int, int, int> threadgroup,
    const std::vector<std::pair<std::string, TemplateArg>>& template_args,
    std::optional<float> init_value, bool verbose, StreamOrDevice s) const {
  const CustomKernelSpec& spec = *spec_;
  const Stream stream = to_stream(s);
  if (stream.device.type != Device::gpu) {
    throw std::invalid_argument(fmt::format(
        "[vulkan_kernel] Kernel '{}': custom kernels run on the GPU only; the call was given a "
        "CPU stream.",
        spec.name));
  }
  vulkan::require_gpu_backend();
  auto count = [&](const char* what, size_t given, size_t expected) {
    if (given != expected) {
      throw std::invalid_argument(fmt::format(
          "[vulkan_kernel] Kernel '{}' was called with {} {}; it has {} ({}).", spec.name, given,
          what, expected, what[0] == 'i' ? "input_names" : "output_names"));
    }
  };
  count("inputs", inputs.size(), spec.input_names.size());
  count("output shapes", output_shapes.size(), spec.output_names.size());
  count("output dtypes", output_dtypes.size(), spec.output_names.size());
  for (size_t i = 0; i < output_shapes.size(); ++i) {
    if (std::ranges::any_of(output_shapes[i], [](int d) { return d < 0; })) {
      throw std::invalid_argument(fmt::format(
          "[vulkan_kernel] Kernel '{}': output '{}' has shape {} with a negative dimension.",
          spec.name, spec.output_names[i], shape_string(output_shapes[i])));
    }
  }
  std::set<std::string> template_names;
  for (const auto& [name, value] : template_args) {
    if (!template_names.insert(name).second) {
      throw std::invalid_argument(fmt::format(
          "[vulkan_kernel] Kernel '{}': template argument '{}' is given twice.", spec.name, name));
    }
  }
  const auto grid_dims = checked_dims(spec.name, "grid", grid);
  const auto group_dims = checked_dims(spec.name, "threadgroup", threadgroup);
  vulkan::check_launch(spec.name, grid_dims, group_dims);

  const bool float_atomics = vulkan::device_float32_atomic_add();
  const std::string key = variant_key(inputs, output_dtypes, template_args, float_atomics);
  std::shared_ptr<const CustomKernelSpec::Variant> variant;
  {
    std::lock_guard lock(spec.mutex);
    if (auto it = spec.variants.find(key); it != spec.variants.end()) variant = it->second;
  }
  if (!variant) {
    std::vector<Dtype> input_dtypes;
    std::vector<int> input_ndims;
    for (const auto& in : inputs) {
      input_dtypes.push_back(in.dtype());
      input_ndims.push_back(in.ndim());
    }
    vulkan::KernelSourceRequest request{.name = spec.name,
                                        .input_names = spec.input_names,
                                        .output_names = spec.output_names,
                                        .source = spec.source,
                                        .header = spec.header,
                                        .atomic_outputs = spec.atomic_outputs,
                                        .input_dtypes = std::move(input_dtypes),
                                        .output_dtypes = output_dtypes,
                                        .input_ndims = std::move(input_ndims),
                                        .template_args = template_args,
                                        .float32_atomic_add = float_atomics};
    CustomKernelSpec::Variant v;
    v.generated = vulkan::generate_kernel_source(request);
    if (verbose) std::cout << v.generated.glsl << std::flush;
    v.compiled = vulkan::compile_kernel(spec.name, v.generated.glsl, spec.header, spec.source);
    variant = std::make_shared<const CustomKernelSpec::Variant>(std::move(v));
    std::lock_guard lock(spec.mutex);
    spec.variants.emplace(key, variant);
  } else if (verbose) {
    std::cout << variant->generated.glsl << std::flush;
  }

  const auto& generated = variant->generated;
  if (generated.uses_barrier) {
    for (int i = 0; i < 3; ++i) {
      if (grid_dims[i] % group_dims[i] != 0) {
        throw std::invalid_argument(fmt::format(
            "[vulkan_kernel] Kernel '{}' calls a barrier, which every thread of a workgroup must "
            "reach, so its grid ({}, {}, {}) must be a multiple of its threadgroup ({}, {}, {}).",
            spec.name, grid_dims[0], grid_dims[1], grid_dims[2], group_dims[0], group_dims[1],
            group_dims[2]));
      }
    }
  }
  CustomKernel::Launch launch{grid_dims,
                              group_dims,
                              init_value,
                              spec.ensure_row_contiguous,
                              generated.strides_offset,
                              generated.shape_offset,
                              generated.metadata_bytes};
  auto primitive =
      std::make_shared<CustomKernel>(stream, spec.name, variant->compiled, std::move(launch));
  return array::make_arrays(output_shapes, output_dtypes, primitive, inputs);
}

KernelCacheStats kernel_cache_stats() {
  return vulkan::kernel_cache_stats();
}

}  // namespace mlx_lite::fast

namespace mlx_lite {

bool CustomKernel::is_equivalent(const Primitive& other) const {
  const auto* o = dynamic_cast<const CustomKernel*>(&other);
  return o != nullptr && o->kernel_ == kernel_ && o->launch_.grid == launch_.grid &&
         o->launch_.threadgroup == launch_.threadgroup &&
         o->launch_.init_value == launch_.init_value &&
         o->launch_.ensure_row_contiguous == launch_.ensure_row_contiguous;
}

}  // namespace mlx_lite
