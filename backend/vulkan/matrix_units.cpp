#include "backend/vulkan/matrix_units.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string_view>
#include <vector>

namespace mlx_lite::vulkan {

namespace {

// MLX_LITE_MATRIX_UNITS, read once (the process has one device, Device::get):
// the one extension matrices may go through, or none.
MatrixExtension choice() {
  static const MatrixExtension c = [] {
    const char* env = std::getenv("MLX_LITE_MATRIX_UNITS");
    const std::string_view v = env == nullptr ? "" : env;
    if (v.empty() || v == "1" || v == "nv") return MatrixExtension::nv;
    if (v == "0") return MatrixExtension::none;
    if (v == "khr") return MatrixExtension::khr;
    throw std::invalid_argument(fmt::format(
        "[gpu] MLX_LITE_MATRIX_UNITS='{}': expected 0 (no matrix units), 1 or nv (the default: "
        "VK_NV_cooperative_matrix), or khr (VK_KHR_cooperative_matrix only).",
        v));
  }();
  return c;
}

bool has_shape(const std::vector<CooperativeMatrixShape>& shapes, std::string_view operands) {
  return std::any_of(shapes.begin(), shapes.end(), [&](const CooperativeMatrixShape& s) {
    return s.m == 16 && s.n == 16 && s.k == 16 && s.a == operands && s.b == operands &&
           s.c == "float32" && s.result == "float32";
  });
}

// What every matrix-unit kernel needs beside the extension: "" where the
// device has it, else what it lacks.
std::string_view missing_common(const DeviceFeatures& f) {
  if (!f.float16) return "no shaderFloat16";
  if (!f.vulkan_memory_model) return "no vulkanMemoryModel";
  if (f.subgroup_size != 32) return "subgroups are not 32 wide";
  return "";
}

// Why float16 fragments cannot run through `ext` (nv or khr), or "".
std::string why_not_float16(const DeviceFeatures& f, MatrixExtension ext) {
  const bool nv = ext == MatrixExtension::nv;
  if (!(nv ? f.cooperative_matrix : f.khr_cooperative_matrix)) {
    return nv ? "no VK_NV_cooperative_matrix" : "no VK_KHR_cooperative_matrix";
  }
  if (!has_shape(nv ? f.cooperative_matrix_shapes : f.khr_cooperative_matrix_shapes, "float16")) {
    return fmt::format("no {} 16x16x16 float16*float16+float32 fragments", nv ? "NV" : "KHR");
  }
  return std::string(missing_common(f));
}

std::string why_not_bfloat16(const DeviceFeatures& f) {
  if (choice() == MatrixExtension::nv) {
    return "its fragments are KHR ones, opt-in: MLX_LITE_MATRIX_UNITS=khr";
  }
  if (choice() == MatrixExtension::none) return "MLX_LITE_MATRIX_UNITS=0";
  if (!f.khr_cooperative_matrix) return "no VK_KHR_cooperative_matrix";
  if (!f.bfloat16_cooperative_matrix) return "no VK_KHR_shader_bfloat16 matrices";
  if (!has_shape(f.khr_cooperative_matrix_shapes, "bfloat16")) {
    return "no KHR 16x16x16 bfloat16*bfloat16+float32 fragments";
  }
  return std::string(missing_common(f));
}

// float16's extension and, where none, why.
struct Float16Decision {
  MatrixExtension ext = MatrixExtension::none;
  std::string why_not;
};

const Float16Decision& float16_decision(const Device& d) {
  static const Float16Decision decision = [&d] {
    const MatrixExtension ext = choice();
    if (ext == MatrixExtension::none) {
      return Float16Decision{MatrixExtension::none, "MLX_LITE_MATRIX_UNITS=0"};
    }
    std::string why = why_not_float16(d.features(), ext);
    return Float16Decision{why.empty() ? ext : MatrixExtension::none, std::move(why)};
  }();
  return decision;
}

const std::string& bfloat16_why_not(const Device& d) {
  static const std::string why = why_not_bfloat16(d.features());
  return why;
}

std::string_view name(MatrixExtension ext) {
  return ext == MatrixExtension::nv ? "VK_NV_cooperative_matrix" : "VK_KHR_cooperative_matrix";
}

}  // namespace

bool khr_matrices_requested() {
  try {
    return choice() == MatrixExtension::khr;
  } catch (const std::invalid_argument&) {
    return false;  // the device is still created; the first matmul reports the value
  }
}

MatrixExtension float16_matrix_extension(const Device& d) {
  return float16_decision(d).ext;
}

MatrixExtension matmul_matrix_extension(const Device& d, Dtype t) {
  if (t == float16) return float16_matrix_extension(d);
  if (t == bfloat16 && bfloat16_why_not(d).empty()) return MatrixExtension::khr;
  return MatrixExtension::none;
}

bool kernel_matrix_units(const Device& d) {
  return float16_matrix_extension(d) != MatrixExtension::none;
}

std::string describe_kernel_matrix_units(const Device& d) {
  const Float16Decision& f16 = float16_decision(d);
  if (f16.ext == MatrixExtension::none) return "fallback (" + f16.why_not + ")";
  return fmt::format(
      "matrix units ({}, float16 16x16x16 fragments, float32 accumulators{})", name(f16.ext),
      f16.ext == MatrixExtension::khr ? "; a kernel whose tile is two operands runs the fallback"
                                      : "");
}

std::string describe_matmul_matrix_units(const Device& d) {
  const Float16Decision& f16 = float16_decision(d);
  const std::string& bf16 = bfloat16_why_not(d);
  std::string s;
  if (f16.ext != MatrixExtension::none) {
    s = fmt::format("float16 ({}, 16x16x16 fragments, float32 accumulation)", name(f16.ext));
  }
  if (bf16.empty()) {
    s += fmt::format("{}bfloat16 ({}, 16x16x16 fragments, float32 accumulation)",
                     s.empty() ? "" : "; ", name(MatrixExtension::khr));
  }
  if (s.empty()) return "none (" + f16.why_not + ")";
  if (f16.ext == MatrixExtension::none) s += "; not float16 (" + f16.why_not + ")";
  if (!bf16.empty()) s += "; not bfloat16 (" + bf16 + ")";
  return s;
}

}  // namespace mlx_lite::vulkan
