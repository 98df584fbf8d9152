// A custom kernel's variants: generated and compiled once per combination
// of input dtypes and ranks, output dtypes and template arguments.
#include <fmt/format.h>

#include <iostream>
#include <iterator>

#include "backend/common/log.h"
#include "backend/vulkan/custom_kernel.h"
#include "backend/vulkan/device.h"
#include "backend/vulkan/kernel_extensions.h"
#include "backend/vulkan/khr_cooperative_matrix.h"
#include "backend/vulkan/loop_cap.h"
#include "backend/vulkan/matrix_units.h"

namespace mlx_lite::vulkan {

namespace {

// The bytes that select a variant: what the generated source depends on
// besides the kernel's own source.
std::string variant_key(std::span<const array> inputs, std::span<const Dtype> output_dtypes,
                        std::span<const std::pair<std::string, fast::TemplateArg>> template_args,
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
    if (auto* d = std::get_if<Dtype>(&value)) {
      fmt::format_to(std::back_inserter(key), "d{}", int(d->val));
    }
    if (auto* i = std::get_if<int>(&value)) fmt::format_to(std::back_inserter(key), "i{}", *i);
    if (auto* b = std::get_if<bool>(&value)) key += *b ? "b1" : "b0";
  }
  return key;
}

// How simdgroups run on this device for a kernel (kernel_simd.h).
SimdTarget simd_target(bool native_simdgroups) {
  const auto& device = Device::get();
  const auto& f = device.features();
  return {.width = native_simdgroups ? SimdWidth::device : SimdWidth::metal32,
          .subgroups32 = native_simdgroups ? f.subgroup_size == 32 : f.subgroups32(),
          .float16 = f.float16};
}

// Metal's simdgroups on a device whose default subgroups are not 32 but can be.
uint32_t required_subgroup_size(const SimdTarget& simd) {
  const auto& f = Device::get().features();
  return simd.width == SimdWidth::metal32 && f.subgroup_size != 32 && f.require_subgroup_32 ? 32
                                                                                            : 0;
}

// verbose=true: the GLSL on stdout, and once on stderr what the device's
// loop cap means for it (lavapipe).
void print_glsl(const std::string& glsl) {
  note_loop_cap(/*verbose=*/true);
  std::cout << glsl << std::flush;
}

}  // namespace

CustomKernelTemplate::CustomKernelTemplate(CustomKernelSource source) : source_(std::move(source)) {
  check_kernel_name(source_.name);
  if (source_.output_names.empty()) {
    throw std::invalid_argument(
        fmt::format("[vulkan_kernel] Kernel '{}' needs at least one output name.", source_.name));
  }
  check_kernel_names(source_.input_names, source_.output_names);
}

std::shared_ptr<const CustomKernelVariant> CustomKernelTemplate::variant(
    std::span<const array> inputs, std::span<const Dtype> output_dtypes,
    std::span<const std::pair<std::string, fast::TemplateArg>> template_args, bool verbose) const {
  const bool float_atomics = Device::get().float32_atomic_add();
  const std::string key = variant_key(inputs, output_dtypes, template_args, float_atomics);
  {
    std::lock_guard lock(mutex_);
    if (auto it = variants_.find(key); it != variants_.end()) {
      logging::debug("kernel '{}' from the memory cache", source_.name);
      if (verbose) print_glsl(it->second->generated.glsl);
      return it->second;
    }
  }
  check_kernel_extensions(source_.name, source_.header, source_.source);
  KernelSourceRequest request{.name = source_.name,
                              .input_names = source_.input_names,
                              .output_names = source_.output_names,
                              .source = source_.source,
                              .header = source_.header,
                              .atomic_outputs = source_.atomic_outputs,
                              .input_dtypes = {},
                              .output_dtypes = {output_dtypes.begin(), output_dtypes.end()},
                              .input_ndims = {},
                              .template_args = {template_args.begin(), template_args.end()},
                              .float32_atomic_add = float_atomics,
                              .simd = simd_target(source_.native_simdgroups),
                              .matrix_units = kernel_matrix_units(Device::get())};
  for (const auto& in : inputs) {
    request.input_dtypes.push_back(in.dtype());
    request.input_ndims.push_back(in.ndim());
  }
  auto v = std::make_shared<CustomKernelVariant>();
  auto generate_and_compile = [&] {
    v->generated = generate_kernel_source(request);
    if (verbose) print_glsl(v->generated.glsl);
    v->compiled = compile_kernel(source_.name, v->generated.glsl, source_.header, source_.source,
                                 required_subgroup_size(request.simd));
  };
  try {
    generate_and_compile();
  } catch (const KhrTranslationError& e) {
    // A simdgroup matrix that is two operands (the A of one product and the
    // B of another) has no VK_KHR_cooperative_matrix type: the library's
    // fallback computes the same result.
    if (!v->generated.uses_simdgroup_matrices) throw;
    logging::info("kernel '{}' runs its simdgroup matrices on the fallback: {}", source_.name,
                  e.what());
    request.matrix_units = false;
    generate_and_compile();
  }
  std::lock_guard lock(mutex_);
  return variants_.try_emplace(key, std::move(v)).first->second;
}

}  // namespace mlx_lite::vulkan
