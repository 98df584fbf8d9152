#include "backend/vulkan/kernel_matrix.h"

#include <fmt/format.h>

#include <algorithm>

namespace mlx_lite::vulkan {

namespace {

constexpr std::string_view kMatrixUnitExtensions =
    "#extension GL_NV_cooperative_matrix : require\n"
    "#extension GL_KHR_memory_scope_semantics : require\n";

// On the matrix units the tiles are the device's own: the loads, stores and
// the multiply-add are single instructions of the subgroup. Their layout
// (transpose) must be a constant in SPIR-V, which glslang does not check: an
// array sized by it makes a run-time value a compile error, on both paths.
constexpr std::string_view kMatrixUnits = R"(
// Simdgroup matrices on the device's matrix units (VK_NV_cooperative_matrix;
// docs/custom_kernels.md, "Matrix units").
#define simdgroup_half16x16 fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>
#define simdgroup_float16x16 fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>
#define simdgroup_load(mlx_m, mlx_buf, mlx_at, mlx_stride, mlx_transpose) do { \
  bool mlx_same_dtype_ = mlx_matrix_check(mlx_m, mlx_buf[0]); \
  bool mlx_transpose_is_constant_[(mlx_transpose) ? 1 : 1]; \
  coopMatLoadNV(mlx_m, mlx_buf, uint(mlx_at), uint(mlx_stride), mlx_transpose); \
} while (false)
#define simdgroup_store(mlx_m, mlx_buf, mlx_at, mlx_stride, mlx_transpose) do { \
  bool mlx_same_dtype_ = mlx_matrix_check(mlx_m, mlx_buf[0]); \
  bool mlx_transpose_is_constant_[(mlx_transpose) ? 1 : 1]; \
  coopMatStoreNV(mlx_m, mlx_buf, uint(mlx_at), uint(mlx_stride), mlx_transpose); \
} while (false)
void simdgroup_multiply_accumulate(out simdgroup_float16x16 mlx_d, simdgroup_half16x16 mlx_a,
                                   simdgroup_half16x16 mlx_b, simdgroup_float16x16 mlx_c) {
  mlx_d = coopMatMulAddNV(mlx_a, mlx_b, mlx_c);
}
void simdgroup_multiply(out simdgroup_float16x16 mlx_d, simdgroup_half16x16 mlx_a,
                        simdgroup_half16x16 mlx_b) {
  mlx_d = coopMatMulAddNV(mlx_a, mlx_b, simdgroup_float16x16(0.0));
}
void simdgroup_fill(out simdgroup_float16x16 mlx_m, float mlx_v) {
  mlx_m = simdgroup_float16x16(mlx_v);
}
void simdgroup_fill(out simdgroup_half16x16 mlx_m, float mlx_v) {
  mlx_m = simdgroup_half16x16(float16_t(mlx_v));
}
)";

// mlx_matrix_check(tile, memory[0]): true where the memory's element type is
// the tile's (float16_t for simdgroup_half16x16, float for
// simdgroup_float16x16), else a struct whose name says what is wrong, which
// the macros' `bool` cannot take: a compile error. Every scalar type has an
// exact overload, so no implicit conversion picks a wrong one. On the
// matrix units this is not pedantry: their loads and stores reinterpret the
// bits of memory of another type without a word.
std::string dtype_checks() {
  std::string s = "struct mlx_tile_and_memory_dtypes_differ { bool mlx_unused; };\n";
  constexpr std::string_view kMemoryTypes[] = {"float",   "float16_t", "int",    "uint",
                                               "int16_t", "uint16_t",  "int8_t", "uint8_t",
                                               "int64_t", "uint64_t",  "double"};
  for (std::string_view tile : {"simdgroup_half16x16", "simdgroup_float16x16"}) {
    const std::string_view own = tile == "simdgroup_half16x16" ? "float16_t" : "float";
    for (std::string_view memory : kMemoryTypes) {
      const bool same = memory == own;
      s += fmt::format("{} mlx_matrix_check({} mlx_m, {} mlx_v) {{ return {}; }}\n",
                       same ? "bool" : "mlx_tile_and_memory_dtypes_differ", tile, memory,
                       same ? "true" : "mlx_tile_and_memory_dtypes_differ(false)");
    }
  }
  return s;
}

// The fallback's layout and index arithmetic. Thread l of a simdgroup owns
// the 2 x 4 block at rows 2 (l / 4) and columns 4 (l % 4) of every tile: an
// accumulator holds that block, an operand the block's two rows (what the
// thread needs of a left factor) and four columns (of a right factor), so a
// product reads no other thread's values: no shuffles and no barriers, right
// on any subgroup size, emulated simdgroups included.
constexpr std::string_view kFallbackBase = R"(
// Simdgroup matrices without matrix units (docs/custom_kernels.md, "Matrix units").
struct simdgroup_half16x16 { float mlx_rows[32]; float mlx_cols[64]; };
struct simdgroup_float16x16 { float mlx_block[8]; };
uint mlx_matrix_row() { return (MLX_MATRIX_LANE >> 2u) * 2u; }
uint mlx_matrix_col() { return (MLX_MATRIX_LANE & 3u) * 4u; }
// Where element (i, j) of a tile at `at` with rows `stride` apart lies (its
// columns `stride` apart where transposed).
uint mlx_matrix_at(uint mlx_at, uint mlx_stride, bool mlx_transpose, uint mlx_i, uint mlx_j) {
  return mlx_transpose ? mlx_at + mlx_j * mlx_stride + mlx_i : mlx_at + mlx_i * mlx_stride + mlx_j;
}
void mlx_matrix_take(out simdgroup_half16x16 mlx_m, simdgroup_half16x16 mlx_t) { mlx_m = mlx_t; }
)";

// Element e of the thread's block (row e / 4, column e % 4 of it), from an
// operand's rows.
std::string block_from_rows(std::string_view m, int e) {
  return fmt::format("{}.mlx_rows[{}u + mlx_matrix_col()]", m, (e / 4) * 16 + e % 4);
}

// Functions over the block, straight-line: lavapipe counts loop iterations
// against its cap, and a matmul calls these once per fragment per step of K.
std::string fallback_functions(bool float16) {
  std::string s;
  s += "void mlx_matrix_take(out simdgroup_float16x16 mlx_m, simdgroup_half16x16 mlx_t) {\n";
  for (int e = 0; e < 8; ++e) {
    s += fmt::format("  mlx_m.mlx_block[{}] = {};\n", e, block_from_rows("mlx_t", e));
  }
  s += "}\nfloat mlx_matrix_value(simdgroup_float16x16 mlx_m, uint mlx_e) "
       "{ return mlx_m.mlx_block[mlx_e]; }\n";
  if (float16) {
    // As on the matrix units: float16 tiles hold float16 values, and load
    // from and store to float16 memory only.
    s += "float16_t mlx_matrix_value(simdgroup_half16x16 mlx_m, uint mlx_e) {\n"
         "  return float16_t(mlx_m.mlx_rows[(mlx_e >> 2u) * 16u + mlx_matrix_col() + (mlx_e & "
         "3u)]);\n}\n";
  }
  for (const bool accumulate : {true, false}) {
    s += accumulate ? "void simdgroup_multiply_accumulate(out simdgroup_float16x16 mlx_d, "
                      "simdgroup_half16x16 mlx_a,\n    simdgroup_half16x16 mlx_b, "
                      "simdgroup_float16x16 mlx_c) {\n"
                    : "void simdgroup_multiply(out simdgroup_float16x16 mlx_d, "
                      "simdgroup_half16x16 mlx_a,\n    simdgroup_half16x16 mlx_b) {\n";
    s += "  float mlx_s;\n";
    for (int e = 0; e < 8; ++e) {
      s += accumulate ? fmt::format("  mlx_s = mlx_c.mlx_block[{}];\n", e) : "  mlx_s = 0.0;\n";
      for (int k = 0; k < 16; ++k) {
        s += fmt::format("  mlx_s += mlx_a.mlx_rows[{}] * mlx_b.mlx_cols[{}];\n", (e / 4) * 16 + k,
                         k * 4 + e % 4);
      }
      s += fmt::format("  mlx_d.mlx_block[{}] = mlx_s;\n", e);
    }
    s += "}\n";
  }
  const std::string v = float16 ? "float(float16_t(mlx_v))" : "mlx_v";
  std::string rows, cols;
  for (int i = 0; i < 32; ++i) rows += (i ? ", " : "") + v;
  for (int i = 0; i < 64; ++i) cols += (i ? ", " : "") + v;
  s += fmt::format(
      "void simdgroup_fill(out simdgroup_float16x16 mlx_m, float mlx_v) {{\n"
      "  mlx_m.mlx_block = float[8](mlx_v, mlx_v, mlx_v, mlx_v, mlx_v, mlx_v, mlx_v, mlx_v);\n}}\n"
      "void simdgroup_fill(out simdgroup_half16x16 mlx_m, float mlx_v) {{\n"
      "  mlx_m.mlx_rows = float[32]({});\n  mlx_m.mlx_cols = float[64]({});\n}}\n",
      rows, cols);
  return s;
}

// The loads and stores name a buffer or a shared array, which GLSL cannot
// pass to a function: they are macros. A load reads the block's rows and
// columns (16 iterations of a loop); a store writes the block's 8 elements.
std::string fallback_macros(bool float16) {
  const std::string_view prologue =
      "  uint mlx_a_ = uint(mlx_at), mlx_s_ = uint(mlx_stride); bool mlx_t_ = (mlx_transpose); \\\n"
      "  uint mlx_r_ = mlx_matrix_row(), mlx_c_ = mlx_matrix_col(); \\\n"
      "  bool mlx_transpose_is_constant_[(mlx_transpose) ? 1 : 1]; \\\n";
  auto read = [](std::string_view i, std::string_view j) {
    return fmt::format("float(mlx_buf[mlx_matrix_at(mlx_a_, mlx_s_, mlx_t_, {}, {})])", i, j);
  };
  std::string s =
      "#define simdgroup_load(mlx_m, mlx_buf, mlx_at, mlx_stride, mlx_transpose) do { \\\n";
  s += prologue;
  if (float16) s += "  bool mlx_same_dtype_ = mlx_matrix_check(mlx_m, mlx_buf[0]); \\\n";
  s += "  simdgroup_half16x16 mlx_v_; \\\n"
       "  for (uint mlx_k_ = 0u; mlx_k_ < 16u; ++mlx_k_) { \\\n";
  s += fmt::format("    mlx_v_.mlx_rows[mlx_k_] = {}; \\\n", read("mlx_r_", "mlx_k_"));
  s += fmt::format("    mlx_v_.mlx_rows[16u + mlx_k_] = {}; \\\n", read("mlx_r_ + 1u", "mlx_k_"));
  for (int j = 0; j < 4; ++j) {
    s += fmt::format("    mlx_v_.mlx_cols[4u * mlx_k_ + {0}u] = {1}; \\\n", j,
                     read("mlx_k_", fmt::format("mlx_c_ + {}u", j)));
  }
  s += "  } \\\n  mlx_matrix_take(mlx_m, mlx_v_); \\\n} while (false)\n";
  s += "#define simdgroup_store(mlx_m, mlx_buf, mlx_at, mlx_stride, mlx_transpose) do { \\\n";
  s += prologue;
  if (float16) s += "  bool mlx_same_dtype_ = mlx_matrix_check(mlx_m, mlx_buf[0]); \\\n";
  for (int e = 0; e < 8; ++e) {
    s += fmt::format(
        "  mlx_buf[mlx_matrix_at(mlx_a_, mlx_s_, mlx_t_, mlx_r_ + {}u, mlx_c_ + {}u)] = "
        "mlx_matrix_value(mlx_m, {}u); \\\n",
        e / 4, e % 4, e);
  }
  return s + "} while (false)\n";
}

}  // namespace

const std::vector<std::string_view>& simdgroup_matrix_names() {
  static const std::vector<std::string_view> names = {
      "simdgroup_half16x16", "simdgroup_float16x16",          "simdgroup_load", "simdgroup_store",
      "simdgroup_multiply",  "simdgroup_multiply_accumulate", "simdgroup_fill"};
  return names;
}

bool uses_simdgroup_matrices(const absl::flat_hash_set<std::string_view>& used) {
  return std::ranges::any_of(simdgroup_matrix_names(),
                             [&](std::string_view n) { return used.contains(n); });
}

std::string simdgroup_matrix_extensions(bool matrix_units) {
  return matrix_units ? std::string(kMatrixUnitExtensions) : "";
}

std::string simdgroup_matrix_helpers(bool matrix_units, const SimdTarget& simd) {
  if (matrix_units) return std::string(kMatrixUnits) + dtype_checks();
  // The lane as the simd layer numbers it (kernel_simd.cpp), so that the
  // 32 threads of a simdgroup own the 32 blocks of a tile.
  const std::string lane =
      fmt::format("#define MLX_MATRIX_LANE {}\n",
                  simd.subgroups32 ? "gl_SubgroupInvocationID" : "(gl_LocalInvocationIndex & 31u)");
  return lane + std::string(kFallbackBase) + (simd.float16 ? dtype_checks() : "") +
         fallback_functions(simd.float16) + fallback_macros(simd.float16);
}

}  // namespace mlx_lite::vulkan
