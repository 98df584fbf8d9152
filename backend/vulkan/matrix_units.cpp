#include "backend/vulkan/matrix_units.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "backend/vulkan/shaders/params/matmul_workgroup.h"

namespace mlx_lite::vulkan {

namespace {

// MLX_LITE_MATRIX_UNITS, read once (the process has one device, Device::get).
enum class Choice { automatic, nv, khr, none };

Choice choice() {
  static const Choice c = [] {
    const char* env = std::getenv("MLX_LITE_MATRIX_UNITS");
    const std::string_view v = env == nullptr ? "" : env;
    if (v.empty() || v == "1") return Choice::automatic;
    if (v == "nv") return Choice::nv;
    if (v == "khr") return Choice::khr;
    if (v == "0") return Choice::none;
    throw std::invalid_argument(fmt::format(
        "[gpu] MLX_LITE_MATRIX_UNITS='{}': expected 1 (the default: every extension the device "
        "has), nv (VK_NV_cooperative_matrix only), khr (VK_KHR_cooperative_matrix only) or 0 "
        "(no matrix units).",
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
  if (choice() == Choice::nv) return "its fragments are KHR ones: MLX_LITE_MATRIX_UNITS=nv";
  if (choice() == Choice::none) return "MLX_LITE_MATRIX_UNITS=0";
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

// float16 takes NV fragments where the choice allows them and the device
// has them (the path verified longest), else KHR ones.
const Float16Decision& float16_decision(const Device& d) {
  static const Float16Decision decision = [&d] {
    const Choice c = choice();
    if (c == Choice::none) return Float16Decision{MatrixExtension::none, "MLX_LITE_MATRIX_UNITS=0"};
    std::string why;
    for (const MatrixExtension ext : {MatrixExtension::nv, MatrixExtension::khr}) {
      if ((ext == MatrixExtension::nv && c == Choice::khr) ||
          (ext == MatrixExtension::khr && c == Choice::nv)) {
        continue;
      }
      std::string why_not = why_not_float16(d.features(), ext);
      if (why_not.empty()) return Float16Decision{ext, ""};
      why += (why.empty() ? "" : "; ") + why_not;
    }
    return Float16Decision{MatrixExtension::none, why};
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
    return choice() == Choice::automatic || choice() == Choice::khr;
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

const CooperativeMatrixShape* matmul_workgroup_shape(const Device& d, Dtype t,
                                                     uint32_t invocations) {
  const DeviceFeatures& f = d.features();
  if ((t != float16 && t != bfloat16) || choice() == Choice::nv || choice() == Choice::none ||
      !f.workgroup_cooperative_matrix) {
    return nullptr;
  }
  // The panels are staged as the subgroup kernel's are, the product taken
  // through KHR matrices: float16 needs KHR's fragments, bfloat16 its own.
  const bool operands_ok =
      t == float16 ? why_not_float16(f, MatrixExtension::khr).empty() : bfloat16_why_not(d).empty();
  if (!operands_ok) return nullptr;
  const std::string_view operands = t == float16 ? "float16" : "bfloat16";
  for (const CooperativeMatrixShape& s : f.workgroup_cooperative_matrix_shapes) {
    if (s.a == operands && s.b == operands && s.c == "float32" && s.result == "float32" &&
        s.invocations == invocations) {
      return &s;
    }
  }
  return nullptr;
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
  for (const Dtype t : {float16, bfloat16}) {
    if (const CooperativeMatrixShape* w =
            matmul_workgroup_shape(d, t, params::kMatmulWorkgroupThreads)) {
      s += fmt::format(
          "; {} whole tiles on workgroup-scope matrices (VK_NV_cooperative_matrix2, "
          "granules of {}x{}x{}, {} threads)",
          dtype_name(t), w->m, w->n, w->k, w->invocations);
    }
  }
  if (f16.ext == MatrixExtension::none) s += "; not float16 (" + f16.why_not + ")";
  if (!bf16.empty()) s += "; not bfloat16 (" + bf16 + ")";
  return s;
}

}  // namespace mlx_lite::vulkan
