// The GLSL of a custom kernel (fast::vulkan_kernel): the user's header and
// body wrapped in generated buffers, metadata, thread attributes and helpers.
// Pure text work, independent of the device.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ops/fast.h"

namespace mlx_lite::vulkan {

// Source string numbers of the #line directives: glslang reports the user's
// header as 1:LINE and the body as 2:LINE.
inline constexpr int kHeaderString = 1;
inline constexpr int kSourceString = 2;

struct KernelSourceRequest {
  std::string name;
  std::vector<std::string> input_names, output_names;
  std::string source, header;
  bool atomic_outputs = false;
  std::vector<Dtype> input_dtypes, output_dtypes;
  std::vector<int> input_ndims;
  std::vector<std::pair<std::string, fast::TemplateArg>> template_args;
  // The device can atomicAdd float32 storage; else a compare-and-swap loop.
  bool float32_atomic_add = true;
};

struct GeneratedKernel {
  std::string glsl;
  // Where the metadata holds each input's NAME_strides (int64) and
  // NAME_shape (int32), in bytes; -1 where the source uses none. The grid
  // (uint[3]) is at 0 and the workgroup counts (uint[3]) at 12.
  std::vector<int64_t> strides_offset, shape_offset;
  // The shader reads the metadata from push constants where it fits the
  // MetadataHead the encoder pushes, else from the buffer at binding 0,
  // which is bound either way.
  size_t metadata_bytes = 0;
  // The source calls threadgroup_barrier or barrier(): every thread of a
  // workgroup must reach it, so grids must be whole workgroups.
  bool uses_barrier = false;
};

// Throws std::invalid_argument when a name is not a GLSL identifier, is
// reserved (gl_..., mlx_..., "__"), repeats, or collides with a name the
// library generates.
void check_kernel_names(const std::vector<std::string>& input_names,
                        const std::vector<std::string>& output_names);

// The shader for one combination of dtypes, ranks and template arguments.
// Throws std::invalid_argument for template names that collide or atomic
// outputs of a dtype without atomics.
GeneratedKernel generate_kernel_source(const KernelSourceRequest& request);

// Replaces the generated names of keyword buffers (mlx_kw_out) in glslang's
// messages with the user's names (out).
std::string unmangle_names(std::string message);

}  // namespace mlx_lite::vulkan
