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
// types carry (VK_KHR_shader_bfloat16), runs only there. Where the device
// also has VK_NV_cooperative_matrix2's workgroup-scope matrices (NVIDIA:
// Hopper's warpgroup instructions), whole tiles of float16 and bfloat16 run
// on them (shaders/matmul_workgroup.comp, through KHR's instructions).
//
// MLX_LITE_MATRIX_UNITS chooses: unset or 1, every extension the device has
// (float16 fragments through NV where it has them, the path verified
// longest, else KHR; bfloat16 and workgroup scope through KHR); nv,
// VK_NV_cooperative_matrix only (float16 fragments; the device is then not
// created with the KHR extensions); khr, VK_KHR_cooperative_matrix only
// (float16 and bfloat16, workgroup scope included); 0, none (the tiled
// kernel and the library's fallback, which every device runs). Any other
// value is refused with an exception.
#pragma once

#include <string>

#include "backend/vulkan/device.h"
#include "mlx_lite/dtype.h"

namespace mlx_lite::vulkan {

enum class MatrixExtension { none, nv, khr };

// Whether MLX_LITE_MATRIX_UNITS allows KHR cooperative matrices (the device
// enables VK_KHR_cooperative_matrix, VK_KHR_shader_bfloat16 and
// VK_NV_cooperative_matrix2 only then). Never throws: a malformed value is
// reported by the first matmul.
bool khr_matrices_requested();

// Which extension float16 matrices (Matmul's, custom kernels') go through on `d`.
MatrixExtension float16_matrix_extension(const Device& d);

// Whether Matmul of operands of dtype `t` runs on `d`'s matrix units, and
// through which extension (none where it does not).
MatrixExtension matmul_matrix_extension(const Device& d, Dtype t);

// The workgroup-scope shape (VK_NV_cooperative_matrix2, device_features.h)
// a Matmul of `t` on `d` can use for whole tiles with workgroups of
// `invocations` (shaders/matmul_workgroup.comp): float16 or bfloat16
// operands, float32 accumulation, through KHR matrices (so float16 needs
// KHR's fragments even where its subgroup kernel takes NV ones); nullptr
// where there is none, or where MLX_LITE_MATRIX_UNITS is nv or 0 (nv
// measures the subgroup kernel against it).
const CooperativeMatrixShape* matmul_workgroup_shape(const Device& d, Dtype t,
                                                     uint32_t invocations);

// Whether custom kernels' simdgroup matrices are the device's cooperative
// matrices (float16 fragments, as float16 Matmul); else the library's fallback.
bool kernel_matrix_units(const Device& d);

// For gpu::device_info()["simdgroup_matrix"]: "matrix units (...)" or "fallback (why)".
std::string describe_kernel_matrix_units(const Device& d);

// For gpu::device_info()["matmul_matrix_units"]: the dtypes Matmul runs on
// matrix units and through which extension, or "none (why)".
std::string describe_matmul_matrix_units(const Device& d);

}  // namespace mlx_lite::vulkan
