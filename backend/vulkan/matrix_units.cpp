#include "backend/vulkan/matrix_units.h"

#include <algorithm>
#include <cstdlib>
#include <string_view>

namespace mlx_lite::vulkan {

namespace {

bool turned_off() {
  const char* env = std::getenv("MLX_LITE_MATRIX_UNITS");
  return env != nullptr && std::string_view(env) == "0";
}

bool has_float16_fragments(const DeviceFeatures& f) {
  return std::any_of(f.cooperative_matrix_shapes.begin(), f.cooperative_matrix_shapes.end(),
                     [](const CooperativeMatrixShape& s) {
                       return s.m == 16 && s.n == 16 && s.k == 16 && s.a == "float16" &&
                              s.b == "float16" && s.c == "float32" && s.result == "float32";
                     });
}

// Why the float16 kernel cannot run on `f`'s device, or "" where it can.
std::string_view missing(const DeviceFeatures& f) {
  if (!f.cooperative_matrix) return "no VK_NV_cooperative_matrix";
  if (!has_float16_fragments(f)) return "no 16x16x16 float16*float16+float32 fragments";
  if (!f.float16) return "no shaderFloat16";
  if (!f.vulkan_memory_model) return "no vulkanMemoryModel";
  if (f.subgroup_size != 32) return "subgroups are not 32 wide";
  return "";
}

// Why the float16 kernel does not run on `d`, or "" where it does: decided
// once, as the process has one device (Device::get) and reads the variable
// once; Matmul asks on every eval.
const std::string& why_not(const Device& d) {
  static const std::string why =
      turned_off() ? "MLX_LITE_MATRIX_UNITS=0" : std::string(missing(d.features()));
  return why;
}

}  // namespace

bool matmul_on_matrix_units(const Device& d, Dtype t) {
  return t == float16 && why_not(d).empty();
}

bool kernel_matrix_units(const Device& d) {
  return why_not(d).empty();
}

std::string describe_kernel_matrix_units(const Device& d) {
  if (!why_not(d).empty()) return "fallback (" + why_not(d) + ")";
  return "matrix units (VK_NV_cooperative_matrix, float16 16x16x16 fragments, float32 "
         "accumulators)";
}

std::string describe_matmul_matrix_units(const Device& d) {
  if (!why_not(d).empty()) return "none (" + why_not(d) + ")";
  return "float16 (VK_NV_cooperative_matrix, 16x16x16 fragments, float32 accumulation)";
}

}  // namespace mlx_lite::vulkan
