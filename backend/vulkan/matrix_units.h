// Whether the built-in Matmul, and the simdgroup matrices of custom kernels
// (kernel_matrix.h), run on the device's matrix units
// (shaders/matmul_coop.comp), and through which extension, from what the
// driver reports: 16 x 16 x 16 fragments with float32 accumulators (float16
// A and B; bfloat16 for a bfloat16 Matmul), shaderFloat16, the Vulkan
// memory model the shader's fragment loads are written in, and 32-wide
// subgroups (its tiles are split among subgroups of 32).
//
// The shaders are written with VK_NV_cooperative_matrix (all Debian 12's
// glslang compiles); for devices with VK_KHR_cooperative_matrix their SPIR-V
// is translated (khr_cooperative_matrix.h), and bfloat16, which only KHR
// types carry (VK_KHR_shader_bfloat16), runs only there.
//
// MLX_LITE_MATRIX_UNITS chooses: unset, 1 or nv, VK_NV_cooperative_matrix
// (the default); khr, VK_KHR_cooperative_matrix only (float16 and
// bfloat16); 0, neither (the tiled kernel and the library's fallback, which
// every device runs). Any other value is refused with an exception. KHR is
// opt-in until its whole test runs on a device: on an H200 every matmul test
// through it matched the CPU but the one with 8M-element outputs, which did
// not finish in the 20 to 30 s those runs allowed (the GPU watchdog, at 6 s,
// did not fire: most likely the CPU side, whose reads of arrays in
// device-local memory are uncached, took 2.3 s for a 512 x 384 product;
// docs/performance.md, issue 17's sixth part). The default is the
// configuration verified before, and the device is then not created with
// the KHR extensions either.
#pragma once

#include <string>

#include "backend/vulkan/device.h"
#include "mlx_lite/dtype.h"

namespace mlx_lite::vulkan {

enum class MatrixExtension { none, nv, khr };

// Whether MLX_LITE_MATRIX_UNITS asks for KHR cooperative matrices (the
// device enables VK_KHR_cooperative_matrix and VK_KHR_shader_bfloat16 only
// then). Throws std::invalid_argument for a malformed value.
bool khr_matrices_requested();

// Which extension float16 matrices (Matmul's, custom kernels') go through on `d`.
MatrixExtension float16_matrix_extension(const Device& d);

// Whether Matmul of operands of dtype `t` runs on `d`'s matrix units, and
// through which extension (none where it does not).
MatrixExtension matmul_matrix_extension(const Device& d, Dtype t);

// Whether custom kernels' simdgroup matrices are the device's cooperative
// matrices (float16 fragments, as float16 Matmul); else the library's fallback.
bool kernel_matrix_units(const Device& d);

// For gpu::device_info()["simdgroup_matrix"]: "matrix units (...)" or "fallback (why)".
std::string describe_kernel_matrix_units(const Device& d);

// For gpu::device_info()["matmul_matrix_units"]: the dtypes Matmul runs on
// matrix units and through which extension, or "none (why)".
std::string describe_matmul_matrix_units(const Device& d);

}  // namespace mlx_lite::vulkan
