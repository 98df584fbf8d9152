// The GLSL of a custom kernel (fast::vulkan_kernel): the user's header and
// body wrapped in generated buffers, parameters, thread attributes and
// helpers; and a typed description of that interface, which the kernel's
// eval_gpu fills (custom_kernel.cpp). Pure text work, independent of the
// device.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "backend/vulkan/kernel_matrix.h"
#include "backend/vulkan/kernel_simd.h"
#include "mlx_lite/primitives/fast.h"

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
  // How wide simdgroups are, and what the device's subgroups give.
  SimdTarget simd;
  // Simdgroup matrices run on the device's matrix units (kernel_matrix.h).
  bool matrix_units = false;
};

// Where the generated shader expects each argument of a call: the
// metadata, params::CustomKernelParams followed by the NAME_strides (int64
// per dim) and NAME_shape (int32 per dim) arrays the source uses, std430, in
// the push constants when it fits their 128 bytes (threads read those
// through the constant cache) and otherwise in a storage buffer at binding
// 0; then the buffers.
struct KernelInterface {
  struct Block {
    size_t input;
    bool strides;     // else the shape
    uint32_t offset;  // of element 0 in the metadata; element d follows at d * its size
  };
  std::vector<Block> blocks;
  uint32_t bytes = 0;  // the metadata's size
  bool in_push_constants = true;
  // The binding of each input, then of each output.
  std::vector<uint32_t> bindings;
};

struct GeneratedKernel {
  std::string glsl;
  KernelInterface interface;
  // The source calls threadgroup_barrier or barrier(), or helpers that
  // exchange values between threads (kernel_simd.h's uses_thread_exchange):
  // every thread of a workgroup must reach them, so grids must be whole
  // workgroups.
  bool uses_barrier = false;
  // It calls threadgroup_* helpers, which take at most 1024 threads.
  bool uses_threadgroup_helpers = false;
  // It uses simdgroup matrices, whose operations take whole simdgroups of 32
  // threads: threadgroups of 32 n threads and grids of whole threadgroups.
  bool uses_simdgroup_matrices = false;
};

// Throws std::invalid_argument when the kernel's name is not an identifier
// (it is pasted into a comment of the generated code).
void check_kernel_name(const std::string& name);

// Throws std::invalid_argument when a name is not a GLSL identifier, is
// reserved (gl_..., mlx_..., "__", a GLSL built-in the generated code calls
// such as barrier), repeats, or collides with a name the library generates.
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
