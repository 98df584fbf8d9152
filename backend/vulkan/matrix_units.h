// Whether the built-in Matmul, and the simdgroup matrices of custom kernels
// (kernel_matrix.h), run on the device's matrix units
// (shaders/matmul_coop.comp), from what the driver reports: float16 A and B
// in 16 x 16 x 16 fragments with float32 accumulators
// (VK_NV_cooperative_matrix), shaderFloat16, the Vulkan memory model the
// shader's fragment loads are written in, and 32-wide subgroups (its tiles
// are split among subgroups of 32). MLX_LITE_MATRIX_UNITS=0 turns them off
// (to compare with the tiled kernel, which every device runs).
#pragma once

#include <string>

#include "backend/vulkan/device.h"
#include "mlx_lite/dtype.h"

namespace mlx_lite::vulkan {

// Whether Matmul of operands of dtype `t` runs on `d`'s matrix units.
bool matmul_on_matrix_units(const Device& d, Dtype t);

// Whether custom kernels' simdgroup matrices are the device's cooperative
// matrices (the same conditions as float16 Matmul); else the library's fallback.
bool kernel_matrix_units(const Device& d);

// For gpu::device_info()["simdgroup_matrix"]: "matrix units (...)" or "fallback (why)".
std::string describe_kernel_matrix_units(const Device& d);

// For gpu::device_info()["matmul_matrix_units"]: the dtypes Matmul runs on
// matrix units and through which extension, or "none (why)".
std::string describe_matmul_matrix_units(const Device& d);

}  // namespace mlx_lite::vulkan
