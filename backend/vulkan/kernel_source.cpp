#include "backend/vulkan/kernel_source.h"

#include <absl/container/flat_hash_set.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <regex>
#include <set>
#include <stdexcept>
#include <string_view>

#include "backend/vulkan/glsl_keywords.h"
#include "backend/vulkan/kernel_simd.h"
#include "backend/vulkan/pipelines.h"
#include "backend/vulkan/shaders/params/custom_kernel.h"

namespace mlx_lite::vulkan {

namespace {

// MLX's thread attributes (Metal Shading Language, table 5.8) and the GLSL
// each becomes inside main().
const std::vector<std::pair<std::string_view, std::string_view>>& thread_attributes() {
  static const std::vector<std::pair<std::string_view, std::string_view>> attributes = {
      {"thread_position_in_grid", "uvec3 thread_position_in_grid = mlx_thread;"},
      {"thread_position_in_threadgroup",
       "uvec3 thread_position_in_threadgroup = gl_LocalInvocationID;"},
      {"threadgroup_position_in_grid", "uvec3 threadgroup_position_in_grid = mlx_group;"},
      {"threads_per_threadgroup", "uvec3 threads_per_threadgroup = gl_WorkGroupSize;"},
      {"threadgroups_per_grid",
       "uvec3 threadgroups_per_grid = uvec3(mlx_groups[0], mlx_groups[1], mlx_groups[2]);"},
      {"threads_per_grid",
       "uvec3 threads_per_grid = uvec3(mlx_grid[0], mlx_grid[1], mlx_grid[2]);"},
      {"thread_index_in_threadgroup",
       "uint thread_index_in_threadgroup = gl_LocalInvocationIndex;"},
      // The simdgroup ones depend on the simd width (kernel_simd.cpp's simd_attribute).
      {"thread_index_in_simdgroup", ""},
      {"simdgroup_index_in_threadgroup", ""},
      {"threads_per_simdgroup", ""},
      {"simdgroups_per_threadgroup", ""},
      {"thread_execution_width", ""},
  };
  return attributes;
}

// MLX's barrier helper and constants (the simd_ helpers are kernel_simd.cpp's).
constexpr std::string_view kHelpers =
    R"(#define threadgroup_barrier(flags) memoryBarrier(); barrier()
const int memory_order_relaxed = 0;
int ceildiv(int mlx_a, int mlx_b) { return (mlx_a + mlx_b - 1) / mlx_b; }
uint ceildiv(uint mlx_a, uint mlx_b) { return (mlx_a + mlx_b - 1u) / mlx_b; }
)";

// The workgroup's place in the grid (unfolded where the host folded it), and
// the thread's; false for threads past the grid, which do not run, as in
// Metal. Before the template #defines, as every generated function, so that
// a template argument named x cannot rewrite its swizzles.
constexpr std::string_view kLocate = R"(
bool mlx_locate(out uvec3 mlx_group, out uvec3 mlx_thread) {
  mlx_group = gl_WorkGroupID;
  if (MLX_FOLDED) {
    uint mlx_linear = gl_WorkGroupID.x + gl_NumWorkGroups.x * (gl_WorkGroupID.y + gl_NumWorkGroups.y * gl_WorkGroupID.z);
    if (mlx_linear >= mlx_groups[0] * mlx_groups[1] * mlx_groups[2]) return false;
    mlx_group = uvec3(mlx_linear % mlx_groups[0], mlx_linear / mlx_groups[0] % mlx_groups[1],
                      mlx_linear / (mlx_groups[0] * mlx_groups[1]));
  }
  mlx_thread = mlx_group * gl_WorkGroupSize + gl_LocalInvocationID;
  return all(lessThan(mlx_thread, uvec3(mlx_grid[0], mlx_grid[1], mlx_grid[2])));
}
)";

// Names the generated code defines for the body, besides per-buffer ones.
bool is_generated_name(std::string_view name) {
  static const absl::flat_hash_set<std::string_view> names = {"main",
                                                              "elem_to_loc",
                                                              "ceildiv",
                                                              "memory_order_relaxed",
                                                              "threadgroup_barrier",
                                                              "simdgroup_barrier",
                                                              "bfloat16_t",
                                                              "to_float",
                                                              "to_bfloat16"};
  if (names.contains(name)) return true;
  if (std::ranges::find(simd_helper_names(), name) != simd_helper_names().end()) return true;
  if (std::ranges::find(simdgroup_matrix_names(), name) != simdgroup_matrix_names().end()) {
    return true;
  }
  return std::ranges::any_of(thread_attributes(),
                             [&](const auto& attribute) { return attribute.first == name; });
}

// GLSL built-ins the generated code calls (the barrier and simd helpers,
// the atomic and bfloat16 helpers): a buffer or template argument named so
// would hide them, and the source's own barrier() call could not be told
// from a buffer named `barrier`.
bool is_builtin_the_generated_code_calls(std::string_view name) {
  static const absl::flat_hash_set<std::string_view> names = {"barrier",
                                                              "memoryBarrier",
                                                              "subgroupMemoryBarrier",
                                                              "subgroupBarrier",
                                                              "subgroupAdd",
                                                              "subgroupMul",
                                                              "subgroupMax",
                                                              "subgroupMin",
                                                              "subgroupAnd",
                                                              "subgroupOr",
                                                              "subgroupXor",
                                                              "subgroupAll",
                                                              "subgroupAny",
                                                              "subgroupExclusiveAdd",
                                                              "subgroupInclusiveAdd",
                                                              "subgroupExclusiveMul",
                                                              "subgroupInclusiveMul",
                                                              "subgroupShuffle",
                                                              "subgroupBroadcastFirst",
                                                              "subgroupShuffleDown",
                                                              "subgroupShuffleUp",
                                                              "subgroupShuffleXor",
                                                              "atomicAdd",
                                                              "atomicCompSwap",
                                                              "floatBitsToUint",
                                                              "uintBitsToFloat",
                                                              "isnan"};
  return names.contains(name);
}

bool is_identifier(std::string_view s) {
  static const std::regex re("[A-Za-z_][A-Za-z0-9_]*");
  return std::regex_match(s.begin(), s.end(), re);
}

void check_identifier(std::string_view what, const std::string& name) {
  if (!is_identifier(name)) {
    throw std::invalid_argument(fmt::format(
        "[vulkan_kernel] The {} '{}' is not an identifier (letters, digits and '_', not "
        "starting with a digit).",
        what, name));
  }
  if (name.starts_with("gl_") || name.starts_with("GL_") || name.starts_with("mlx_") ||
      name.find("__") != std::string::npos) {
    throw std::invalid_argument(fmt::format(
        "[vulkan_kernel] The {} '{}' is reserved: names starting with 'gl_', 'GL_' or 'mlx_', "
        "or containing '__', belong to GLSL, its macros and the generated code.",
        what, name));
  }
  if (is_generated_name(name)) {
    throw std::invalid_argument(
        fmt::format("[vulkan_kernel] The {} '{}' collides with a name the generated code "
                    "defines (thread attributes and helpers such as elem_to_loc, simd_sum).",
                    what, name));
  }
  if (is_builtin_the_generated_code_calls(name)) {
    throw std::invalid_argument(fmt::format(
        "[vulkan_kernel] The {} '{}' is reserved: it names the GLSL built-in {}(), which the "
        "generated code calls (threadgroup_barrier, the simd_ and atomic helpers); choose "
        "another name.",
        what, name, name));
  }
}

// The identifier tokens of GLSL text, outside comments and number literals.
struct Token {
  size_t pos;
  std::string_view text;
};

std::vector<Token> identifiers(std::string_view s) {
  std::vector<Token> tokens;
  auto ident_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t i = 0; i < s.size();) {
    if (s.compare(i, 2, "//") == 0) {
      i = s.find('\n', i);
      if (i == std::string_view::npos) break;
    } else if (s.compare(i, 2, "/*") == 0) {
      i = s.find("*/", i + 2);
      if (i == std::string_view::npos) break;
      i += 2;
    } else if (std::isdigit(static_cast<unsigned char>(s[i])) ||
               (s[i] == '.' && i + 1 < s.size() &&
                std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
      while (i < s.size() && (ident_char(s[i]) || s[i] == '.')) ++i;  // 1.5e3f, 0x1Fu
    } else if (ident_char(s[i])) {
      size_t j = i;
      while (j < s.size() && ident_char(s[j])) ++j;
      tokens.push_back({i, s.substr(i, j - i)});
      i = j;
    } else {
      ++i;
    }
  }
  return tokens;
}

size_t skip_space(std::string_view s, size_t i) {
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return i;
}

// The index of the ']' closing the '[' at `open`, or npos.
size_t matching_bracket(std::string_view s, size_t open) {
  int depth = 0;
  for (size_t i = open; i < s.size(); ++i) {
    if (s[i] == '[' || s[i] == '(') ++depth;
    if (s[i] == ']' || s[i] == ')') {
      if (--depth == 0) return s[i] == ']' ? i : std::string_view::npos;
    }
  }
  return std::string_view::npos;
}

std::string buffer_variable(const std::string& name) {
  return is_glsl_keyword(name) ? "mlx_kw_" + name : name;
}

// The body or header with keyword buffer names renamed where they name the
// buffer, and atomic adds into outputs,
// `atomicAdd(NAME[i], v)` or MLX's `atomic_fetch_add_explicit(&NAME[i], v,
// memory_order_relaxed)`, turned into calls of the generated NAME_atomic_add(i,
// v[, order]), which adds natively or by compare-and-swap. Lines are kept.
std::string rewrite_body(std::string_view source, const std::vector<std::string>& buffers,
                         const std::vector<std::string>& atomic_outputs) {
  struct Edit {
    size_t pos, len;
    std::string text;
  };
  std::vector<Edit> edits;
  size_t skip_until = 0;
  for (const auto& token : identifiers(source)) {
    if (token.pos < skip_until) continue;
    const bool fetch_add = token.text == "atomic_fetch_add_explicit";
    if (token.text == "atomicAdd" || fetch_add) {
      size_t i = skip_space(source, token.pos + token.text.size());
      if (i < source.size() && source[i] == '(') {
        i = skip_space(source, i + 1);
        if (fetch_add && i < source.size() && source[i] == '&') i = skip_space(source, i + 1);
        for (const auto& name : atomic_outputs) {
          if (source.compare(i, name.size(), name) != 0) continue;
          const size_t open = skip_space(source, i + name.size());
          if (open >= source.size() || source[open] != '[') continue;
          const size_t close = matching_bracket(source, open);
          if (close == std::string_view::npos) continue;
          edits.push_back({token.pos, open + 1 - token.pos, name + "_atomic_add("});
          edits.push_back({close, 1, ""});
          skip_until = open + 1;
          break;
        }
      }
      if (token.pos < skip_until) continue;
    }
    // A buffer is indexed (`out[i]`), asked its length (`out.length()`) or
    // passed whole, as an argument of its own (`simdgroup_store(m, out, ...)`);
    // the same word as GLSL's (`void f(out float x)` in a header) is left alone.
    const size_t next = skip_space(source, token.pos + token.text.size());
    size_t before = token.pos;
    while (before > 0 && std::isspace(static_cast<unsigned char>(source[before - 1]))) --before;
    const bool argument = before > 0 && (source[before - 1] == ',' || source[before - 1] == '(') &&
                          next < source.size() && (source[next] == ',' || source[next] == ')');
    const bool buffer_use =
        argument || (next < source.size() && (source[next] == '[' || source[next] == '.'));
    if (buffer_use && is_glsl_keyword(token.text) &&
        std::ranges::find(buffers, token.text) != buffers.end()) {
      edits.push_back({token.pos, token.text.size(), "mlx_kw_" + std::string(token.text)});
    }
  }
  std::string out(source);
  std::ranges::sort(edits, [](const Edit& a, const Edit& b) { return a.pos > b.pos; });
  for (const auto& e : edits) out.replace(e.pos, e.len, e.text);
  return out;
}

// The GLSL element type of a buffer of `dtype`.
std::string_view storage_type(Dtype dtype) {
  switch (dtype.val) {
    case Dtype::Val::bool_:
    case Dtype::Val::uint8:
      return "uint8_t";
    case Dtype::Val::uint16:
      return "uint16_t";
    case Dtype::Val::uint32:
      return "uint";
    case Dtype::Val::uint64:
      return "uint64_t";
    case Dtype::Val::int8:
      return "int8_t";
    case Dtype::Val::int16:
      return "int16_t";
    case Dtype::Val::int32:
      return "int";
    case Dtype::Val::int64:
      return "int64_t";
    case Dtype::Val::float16:
      return "float16_t";
    case Dtype::Val::bfloat16:
      return "bfloat16_t";
    case Dtype::Val::float32:
      return "float";
    case Dtype::Val::float64:
      break;  // never on the GPU: its arrays are refused when the op is built
  }
  return "";
}

// The GLSL type a dtype template argument names: values of that dtype are
// computed in it (bfloat16 in float, which its bits convert to exactly).
std::string_view template_type(Dtype dtype) {
  switch (dtype.val) {
    case Dtype::Val::bool_:
      return "bool";
    case Dtype::Val::bfloat16:
      return "float";
    default:
      return storage_type(dtype);
  }
}

// The GLSL vector of `n` elements of `dtype`, for the NAME_vec2 and NAME_vec4
// views; empty for bfloat16 (a struct) and bool.
std::string vector_type(Dtype dtype, int n) {
  const char* prefix = "";
  switch (dtype.val) {
    case Dtype::Val::uint8:
      prefix = "u8";
      break;
    case Dtype::Val::uint16:
      prefix = "u16";
      break;
    case Dtype::Val::uint32:
      prefix = "u";
      break;
    case Dtype::Val::uint64:
      prefix = "u64";
      break;
    case Dtype::Val::int8:
      prefix = "i8";
      break;
    case Dtype::Val::int16:
      prefix = "i16";
      break;
    case Dtype::Val::int32:
      prefix = "i";
      break;
    case Dtype::Val::int64:
      prefix = "i64";
      break;
    case Dtype::Val::float16:
      prefix = "f16";
      break;
    case Dtype::Val::float32:
      break;
    default:
      return "";
  }
  return fmt::format("{}vec{}", prefix, n);
}

size_t count_lines(const std::string& s) {
  return static_cast<size_t>(std::ranges::count(s, '\n'));
}

}  // namespace

void check_kernel_name(const std::string& name) {
  if (!is_identifier(name)) {
    throw std::invalid_argument(fmt::format(
        "[vulkan_kernel] The kernel name {:?} is not an identifier (letters, digits and '_', not "
        "starting with a digit); it names the kernel in the generated code, messages and logs.",
        name));
  }
}

void check_kernel_names(const std::vector<std::string>& input_names,
                        const std::vector<std::string>& output_names) {
  std::set<std::string> seen;
  auto check = [&](std::string_view what, const std::string& name) {
    check_identifier(what, name);
    if (!seen.insert(name).second) {
      throw std::invalid_argument(fmt::format(
          "[vulkan_kernel] The name '{}' is given twice; input and output names must differ.",
          name));
    }
  };
  for (const auto& name : input_names) check("input name", name);
  for (const auto& name : output_names) check("output name", name);
  // The generated per-buffer names must not shadow a buffer.
  auto check_generated = [&](const std::string& name, std::initializer_list<const char*> suffixes) {
    for (const char* suffix : suffixes) {
      if (seen.contains(name + suffix)) {
        throw std::invalid_argument(fmt::format(
            "[vulkan_kernel] The buffer name '{}{}' collides with the {} generated for '{}'.", name,
            suffix, suffix + 1, name));
      }
    }
  };
  for (const auto& name : input_names) {
    check_generated(name, {"_shape", "_strides", "_ndim", "_vec2", "_vec4", "_load"});
  }
  for (const auto& name : output_names) {
    check_generated(name, {"_vec2", "_vec4", "_load", "_store"});
  }
  for (const auto& name : output_names) {
    if (seen.contains(name + "_atomic_add")) {
      throw std::invalid_argument(
          fmt::format("[vulkan_kernel] The buffer name '{}_atomic_add' collides with the atomic "
                      "helper generated for output '{}'.",
                      name, name));
    }
  }
}

namespace {

absl::flat_hash_set<std::string_view> used_identifiers(const KernelSourceRequest& r) {
  absl::flat_hash_set<std::string_view> used;
  for (const auto& t : identifiers(r.source)) used.insert(t.text);
  for (const auto& t : identifiers(r.header)) used.insert(t.text);
  return used;
}

std::vector<std::string> buffer_names(const KernelSourceRequest& r) {
  std::vector<std::string> buffers = r.input_names;
  buffers.insert(buffers.end(), r.output_names.begin(), r.output_names.end());
  return buffers;
}

// The outputs whose atomicAdd calls become NAME_atomic_add.
std::vector<std::string> atomic_names(const KernelSourceRequest& r) {
  return r.atomic_outputs ? r.output_names : std::vector<std::string>{};
}

void check_template_names(const KernelSourceRequest& r) {
  const auto buffers = buffer_names(r);
  for (const auto& [name, value] : r.template_args) {
    check_identifier("template argument name", name);
    if (std::ranges::find(buffers, name) != buffers.end()) {
      throw std::invalid_argument(fmt::format(
          "[vulkan_kernel] The template argument '{}' has the name of an input or output.", name));
    }
    // A #define of a keyword would rewrite the generated main() and GLSL's own types.
    if (is_glsl_keyword(name)) {
      throw std::invalid_argument(fmt::format(
          "[vulkan_kernel] The template argument '{}' is a GLSL keyword or type name; a "
          "#define of it would change what the word means in the whole shader.",
          name));
    }
  }
}

bool float_atomics(const KernelSourceRequest& r) {
  return r.atomic_outputs && r.float32_atomic_add &&
         std::ranges::count(r.output_dtypes, float32) > 0;
}

// #version, the extensions, and the workgroup size and folding as
// specialization constants (params::CustomKernelSpec).
std::string prologue(const KernelSourceRequest& r,
                     const absl::flat_hash_set<std::string_view>& used) {
  std::string s = fmt::format(
      "#version 450\n// mlx_lite custom kernel '{}', generated by fast::vulkan_kernel\n"
      "// simdgroups: {}\n",
      r.name, r.simd.width == SimdWidth::device ? "the device's subgroups" : "32 wide");
  s += "#extension GL_EXT_shader_explicit_arithmetic_types : require\n"
       "#extension GL_EXT_shader_8bit_storage : require\n"
       "#extension GL_EXT_shader_16bit_storage : require\n"
       "#extension GL_KHR_shader_subgroup_basic : require\n"
       "#extension GL_KHR_shader_subgroup_vote : require\n"
       "#extension GL_KHR_shader_subgroup_arithmetic : require\n"
       "#extension GL_KHR_shader_subgroup_ballot : require\n"
       "#extension GL_KHR_shader_subgroup_shuffle : require\n"
       "#extension GL_KHR_shader_subgroup_shuffle_relative : require\n";
  if (float_atomics(r)) s += "#extension GL_EXT_shader_atomic_float : require\n";
  if (uses_simdgroup_matrices(used)) s += simdgroup_matrix_extensions(r.matrix_units);
  s += fmt::format(
      "\n// The workgroup size (threadgroup) and whether the host folded the grid.\n"
      "layout(local_size_x_id = {}, local_size_y_id = {}, local_size_z_id = {}) in;\n"
      "layout(constant_id = {}) const bool MLX_FOLDED = false;\n"
      "const uint mlx_threads = gl_WorkGroupSize.x * gl_WorkGroupSize.y * gl_WorkGroupSize.z;\n",
      offsetof(params::CustomKernelSpec, threadgroup) / 4,
      offsetof(params::CustomKernelSpec, threadgroup) / 4 + 1,
      offsetof(params::CustomKernelSpec, threadgroup) / 4 + 2,
      offsetof(params::CustomKernelSpec, folded) / 4);
  return s;
}

std::string bfloat16_helpers(const KernelSourceRequest& r) {
  const bool bf16 =
      std::ranges::count(r.input_dtypes, bfloat16) + std::ranges::count(r.output_dtypes, bfloat16) >
      0;
  if (!bf16) return "";
  return "\n// bfloat16 is stored as its 16 bits; to_float and to_bfloat16 convert (round to "
         "nearest even).\n"
         "struct bfloat16_t { uint16_t bits; };\n"
         "float to_float(bfloat16_t x) { return uintBitsToFloat(uint(x.bits) << 16); }\n"
         "bfloat16_t to_bfloat16(float x) {\n"
         "  uint u = floatBitsToUint(x);\n"
         "  if (isnan(x)) return bfloat16_t(uint16_t((u >> 16) | 0x40u));\n"
         "  return bfloat16_t(uint16_t((u + 0x7fffu + ((u >> 16) & 1u)) >> 16));\n"
         "}\n";
}

std::string template_defines(const KernelSourceRequest& r) {
  if (r.template_args.empty()) return "";
  std::string s = "\n// Template arguments.\n";
  for (const auto& [name, value] : r.template_args) {
    std::string text;
    if (auto* d = std::get_if<Dtype>(&value)) text = std::string(template_type(*d));
    if (auto* i = std::get_if<int>(&value)) text = std::to_string(*i);
    if (auto* b = std::get_if<bool>(&value)) text = *b ? "true" : "false";
    s += fmt::format("#define {} {}\n", name, text);
  }
  return s;
}

// Where params::CustomKernelParams and the NAME_strides and NAME_shape
// arrays the source uses go (std430, the int64 strides first so that every
// array stays aligned).
KernelInterface place_blocks(const KernelSourceRequest& r,
                             const absl::flat_hash_set<std::string_view>& used) {
  KernelInterface in;
  uint32_t offset = sizeof(params::CustomKernelParams);
  for (bool strides : {true, false}) {
    for (size_t i = 0; i < r.input_names.size(); ++i) {
      if (!used.contains(r.input_names[i] + (strides ? "_strides" : "_shape"))) continue;
      in.blocks.push_back({i, strides, offset});
      offset += (strides ? 8 : 4) * static_cast<uint32_t>(std::max(r.input_ndims[i], 1));
    }
  }
  in.bytes = (offset + 15) / 16 * 16;
  in.in_push_constants = in.bytes <= kPushConstantBytes;
  return in;
}

// The block holding the interface's arguments, and NAME_ndim.
std::string interface_declarations(const KernelSourceRequest& r,
                                   const absl::flat_hash_set<std::string_view>& used,
                                   const KernelInterface& interface) {
  std::string s = "\n// The grid, workgroup counts, shapes and strides of this call.\n";
  s += interface.in_push_constants
           ? "layout(push_constant, std430) uniform mlx_metadata {\n"
           : "layout(set = 0, binding = 0, std430) readonly buffer mlx_metadata {\n";
  s += fmt::format(
      "  layout(offset = {}) uint mlx_grid[3];\n  layout(offset = {}) uint mlx_groups[3];\n",
      offsetof(params::CustomKernelParams, grid), offsetof(params::CustomKernelParams, groups));
  for (const auto& b : interface.blocks) {
    s += fmt::format("  layout(offset = {}) {} {}{}[{}];\n", b.offset,
                     b.strides ? "int64_t" : "int", r.input_names[b.input],
                     b.strides ? "_strides" : "_shape", std::max(r.input_ndims[b.input], 1));
  }
  s += "};\n";
  for (size_t i = 0; i < r.input_names.size(); ++i) {
    if (used.contains(r.input_names[i] + "_ndim")) {
      s += fmt::format("const int {}_ndim = {};\n", r.input_names[i], r.input_ndims[i]);
    }
  }
  return s;
}

// The NAME_vec2 and NAME_vec4 views of binding `binding` the source uses.
std::string vector_views(const absl::flat_hash_set<std::string_view>& used, const std::string& name,
                         Dtype dtype, uint32_t binding, const char* access,
                         const std::string& block) {
  std::string s;
  for (int n : {2, 4}) {
    const std::string view = fmt::format("{}_vec{}", name, n);
    const std::string type = vector_type(dtype, n);
    if (!used.contains(view) || type.empty()) continue;
    s += fmt::format("layout(set = 0, binding = {}, std430) {}buffer {}_vec{} {{ {} {}[]; }};\n",
                     binding, access, block, n, type, view);
  }
  return s;
}

// NAME_atomic_add(i, v) for output `i` at binding `binding` (atomicAdd, or
// compare-and-swap on the bits where the device lacks float atomics, which
// declares the binding's uint view).
std::string atomic_helper(const KernelSourceRequest& r, size_t i, uint32_t binding,
                          std::string& declarations) {
  const auto& name = r.output_names[i];
  const Dtype dtype = r.output_dtypes[i];
  std::string add;
  if (dtype == float32 && !r.float32_atomic_add) {
    declarations += fmt::format(
        "layout(set = 0, binding = {}, std430) buffer mlx_output_{}_bits {{ uint "
        "mlx_bits_{}[]; }};\n",
        binding, i, name);
    add = fmt::format(
        "  uint mlx_old = mlx_bits_{0}[mlx_i];\n"
        "  for (;;) {{\n"
        "    uint mlx_seen = atomicCompSwap(mlx_bits_{0}[mlx_i], mlx_old, "
        "floatBitsToUint(uintBitsToFloat(mlx_old) + mlx_v));\n"
        "    if (mlx_seen == mlx_old) return uintBitsToFloat(mlx_old);\n"
        "    mlx_old = mlx_seen;\n"
        "  }}\n",
        name);
  } else if (dtype == float32 || dtype == int32 || dtype == uint32) {
    add = fmt::format("  return atomicAdd({}[mlx_i], mlx_v);\n", buffer_variable(name));
  } else {
    throw std::invalid_argument(fmt::format(
        "[vulkan_kernel] atomic_outputs needs float32, int32 or uint32 outputs; output '{}' "
        "is {}. Accumulate in float32 and convert afterwards.",
        name, dtype_name(dtype)));
  }
  // Parameters and locals are mlx_ names: an output named `i` or `v` stays visible.
  return fmt::format(
      "{0} {1}_atomic_add(uint mlx_i, {0} mlx_v) {{\n{2}}}\n"
      "{0} {1}_atomic_add(uint mlx_i, {0} mlx_v, int mlx_order) {{ return {1}_atomic_add(mlx_i, "
      "mlx_v); }}\n",
      storage_type(dtype), name, add);
}

// The inputs (readonly) and outputs at their bindings, with their vector
// views and atomic helpers.
std::string buffer_declarations(const KernelSourceRequest& r,
                                const absl::flat_hash_set<std::string_view>& used,
                                KernelInterface& interface) {
  std::string s =
      "\n// Inputs (readonly) and outputs; NAME_vec2 and NAME_vec4 view the same memory\n"
      "// as vectors where the source uses them (element i is NAME[n * i .. n * i + n - 1]).\n";
  uint32_t binding = 1;
  for (size_t i = 0; i < r.input_names.size(); ++i, ++binding) {
    interface.bindings.push_back(binding);
    s += fmt::format(
        "layout(set = 0, binding = {}, std430) readonly buffer mlx_input_{} {{ {} {}[]; }};\n",
        binding, i, storage_type(r.input_dtypes[i]), buffer_variable(r.input_names[i]));
    s += vector_views(used, r.input_names[i], r.input_dtypes[i], binding, "readonly ",
                      fmt::format("mlx_input_{}", i));
  }
  std::string atomic_helpers;
  for (size_t i = 0; i < r.output_names.size(); ++i, ++binding) {
    interface.bindings.push_back(binding);
    s += fmt::format("layout(set = 0, binding = {}, std430) buffer mlx_output_{} {{ {} {}[]; }};\n",
                     binding, i, storage_type(r.output_dtypes[i]),
                     buffer_variable(r.output_names[i]));
    s += vector_views(used, r.output_names[i], r.output_dtypes[i], binding, "",
                      fmt::format("mlx_output_{}", i));
    if (r.atomic_outputs) atomic_helpers += atomic_helper(r, i, binding, s);
  }
  if (!atomic_helpers.empty()) {
    s += "\n// atomicAdd(NAME[i], v) in the source calls NAME_atomic_add(i, v).\n" + atomic_helpers;
  }
  return s;
}

// The type NAME_load returns and NAME_store takes: float for every floating
// dtype (so that one body serves float32, float16 and bfloat16), bool for
// bool_, the stored integer otherwise.
std::string_view compute_type(Dtype dtype) {
  if (dtype == float16 || dtype == bfloat16) return "float";
  return template_type(dtype);
}

// NAME_load(i) and, for outputs, NAME_store(i, v) where the source uses them.
std::string accessors(const KernelSourceRequest& r,
                      const absl::flat_hash_set<std::string_view>& used) {
  std::string s;
  auto add = [&](const std::string& name, Dtype dtype, bool output) {
    const std::string var = buffer_variable(name);
    const std::string_view type = compute_type(dtype);
    if (used.contains(name + "_load")) {
      std::string value = var + "[mlx_i]";
      if (dtype == float16) value = "float(" + value + ")";
      if (dtype == bfloat16) value = "to_float(" + value + ")";
      if (dtype == bool_) value = value + " != uint8_t(0)";
      s += fmt::format("{} {}_load(uint mlx_i) {{ return {}; }}\n", type, name, value);
    }
    if (output && used.contains(name + "_store")) {
      std::string value = "mlx_v";
      if (dtype == float16) value = "float16_t(mlx_v)";
      if (dtype == bfloat16) value = "to_bfloat16(mlx_v)";
      if (dtype == bool_) value = "uint8_t(mlx_v ? 1 : 0)";
      s += fmt::format("void {}_store(uint mlx_i, {} mlx_v) {{ {}[mlx_i] = {}; }}\n", name, type,
                       var, value);
    }
  };
  for (size_t i = 0; i < r.input_names.size(); ++i) add(r.input_names[i], r.input_dtypes[i], false);
  for (size_t i = 0; i < r.output_names.size(); ++i) {
    add(r.output_names[i], r.output_dtypes[i], true);
  }
  if (s.empty()) return s;
  return "\n// NAME_load(i) and NAME_store(i, v) convert between the stored dtype and float\n"
         "// (bool, or the integer type), the same in a body for every floating dtype.\n" +
         s;
}

// MLX's helpers, and elem_to_loc for each rank of a shape block.
std::string helpers(const KernelSourceRequest& r, const absl::flat_hash_set<std::string_view>& used,
                    const KernelInterface& interface) {
  std::string s = std::string(kLocate) + "\n// Helpers with MLX's names.\n";
  s += kHelpers;
  s += simd_helpers(r.simd, used);
  if (uses_simdgroup_matrices(used)) s += simdgroup_matrix_helpers(r.matrix_units, r.simd);
  std::set<int> ranks;
  for (const auto& b : interface.blocks) ranks.insert(std::max(r.input_ndims[b.input], 1));
  for (int n : ranks) {
    for (std::string_view st : {"int64_t", "int"}) {
      s += fmt::format(
          "uint elem_to_loc(uint elem, int shape[{0}], {1} strides[{0}], int ndim) {{\n"
          "  int64_t loc = 0;\n"
          "  for (int i = ndim - 1; i >= 0; --i) {{ loc += int64_t(elem % uint(shape[i])) * "
          "int64_t(strides[i]); elem /= uint(shape[i]); }}\n"
          "  return uint(loc);\n}}\n"
          "int64_t elem_to_loc(int64_t elem, int shape[{0}], {1} strides[{0}], int ndim) {{\n"
          "  int64_t loc = 0;\n"
          "  for (int i = ndim - 1; i >= 0; --i) {{ loc += (elem % shape[i]) * "
          "int64_t(strides[i]); "
          "elem /= shape[i]; }}\n"
          "  return loc;\n}}\n",
          n, st);
    }
  }
  return s;
}

// The user's header under its own line numbers; `lines` counts the lines
// generated before it.
std::string user_header(const KernelSourceRequest& r, size_t lines) {
  if (r.header.empty()) return "";
  std::string s = fmt::format("\n// The user's header.\n#line 1 {}\n", kHeaderString);
  s += rewrite_body(r.header, buffer_names(r), atomic_names(r));
  if (r.header.back() != '\n') s += '\n';
  return s + fmt::format("#line {} 0\n", lines + count_lines(s) + 2);
}

// main(): the workgroup's place in the grid (unfolded where the host folded
// it), the thread attributes the source uses, then the source.
std::string main_function(const KernelSourceRequest& r,
                          const absl::flat_hash_set<std::string_view>& used) {
  std::string s =
      "\nvoid main() {\n"
      "  uvec3 mlx_group, mlx_thread;\n"
      "  if (!mlx_locate(mlx_group, mlx_thread)) return;\n";
  if (emulates_simdgroups(r.simd, used)) {
    s += "  mlx_group_origin = mlx_group * gl_WorkGroupSize;\n"
         "  mlx_whole_group = all(lessThanEqual(mlx_group_origin + gl_WorkGroupSize, "
         "uvec3(mlx_grid[0], mlx_grid[1], mlx_grid[2])));\n";
  }
  for (const auto& [attribute, definition] : thread_attributes()) {
    if (!used.contains(attribute)) continue;
    const auto simd = simd_attribute(attribute, r.simd);
    s += fmt::format("  {}\n", simd ? *simd : definition);
  }
  s += fmt::format("  // The user's source.\n#line 1 {}\n", kSourceString);
  s += rewrite_body(r.source, buffer_names(r), atomic_names(r));
  if (r.source.empty() || r.source.back() != '\n') s += '\n';
  return s + "}\n";
}

}  // namespace

GeneratedKernel generate_kernel_source(const KernelSourceRequest& r) {
  check_template_names(r);
  const auto used = used_identifiers(r);
  GeneratedKernel g;
  g.uses_barrier = used.contains("threadgroup_barrier") || used.contains("barrier") ||
                   uses_thread_exchange(used);
  g.uses_threadgroup_helpers = uses_threadgroup_helpers(used);
  g.uses_simdgroup_matrices = uses_simdgroup_matrices(used);
  if (g.uses_simdgroup_matrices && !r.simd.subgroups32 && r.simd.width == SimdWidth::device) {
    throw std::invalid_argument(fmt::format(
        "[vulkan_kernel] Kernel '{}' uses simdgroup matrices, which belong to simdgroups of 32 "
        "threads, with native_simdgroups=true on a device whose subgroups are not 32 wide: drop "
        "native_simdgroups (Metal's 32-wide simdgroups work on every device).",
        r.name));
  }
  g.interface = place_blocks(r, used);
  std::string& s = g.glsl;
  s = prologue(r, used) + bfloat16_helpers(r);
  s += interface_declarations(r, used, g.interface);
  s += buffer_declarations(r, used, g.interface);
  s += helpers(r, used, g.interface);
  s += accessors(r, used);
  // After every generated declaration, so that a template argument named as
  // one of their parameters (`a` in ceildiv(int a, int b)) cannot rewrite it.
  s += template_defines(r);
  s += user_header(r, count_lines(s));
  s += main_function(r, used);
  return g;
}

std::string unmangle_names(std::string message) {
  static const std::regex mangled("mlx_kw_([A-Za-z_0-9]+)");
  return std::regex_replace(message, mangled, "$1");
}

}  // namespace mlx_lite::vulkan
