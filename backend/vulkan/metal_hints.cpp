#include "backend/vulkan/metal_hints.h"

#include <fmt/format.h>

#include <regex>
#include <utility>
#include <vector>

namespace mlx_lite::vulkan {

namespace {

constexpr std::string_view kGuide = " (docs/porting_metal_kernels.md)";

constexpr std::string_view kSimdgroupMatrix =
    "Metal's 8 x 8 simdgroup matrices are 16 x 16 tiles here: `simdgroup_half16x16` operands "
    "(float16) and `simdgroup_float16x16` accumulators (float32), `simdgroup_load(m, buf, "
    "element, stride, transpose)`, `simdgroup_multiply_accumulate(d, a, b, c)`, "
    "`simdgroup_store(m, buf, element, stride, transpose)` (docs/custom_kernels.md, \"Matrix "
    "units\")";
constexpr std::string_view kMatrixMemory =
    "a `simdgroup_half16x16` loads from and stores to float16 memory (a float16 buffer or a "
    "`shared float16_t` array), a `simdgroup_float16x16` float32 memory, as on the matrix units: "
    "convert values where you stage them in shared memory (docs/custom_kernels.md, \"Matrix "
    "units\")";

// Metal's words glslang does not know, and their GLSL form.
const std::vector<std::pair<std::string_view, std::string_view>>& word_hints() {
  static const std::vector<std::pair<std::string_view, std::string_view>> hints = {
      {"threadgroup",
       "Metal's `threadgroup float buf[32];` is `shared float buf[32];` in GLSL, declared in the "
       "header (GLSL has no shared arrays inside a function)"},
      {"metal",
       "GLSL's math has no namespace: `metal::exp(x)`, `metal::precise::exp(x)` and "
       "`metal::fast::exp(x)` are `exp(x)`; `metal::rsqrt(x)` is `inversesqrt(x)`"},
      {"half",
       "Metal's `half` is `float16_t` in GLSL (`f16vec4` for `half4`); load float16 values into "
       "`float` to compute in float32"},
      {"bfloat",
       "Metal's `bfloat` is a bfloat16 buffer's `bfloat16_t` struct: read it as a float with "
       "NAME_load(i) (or to_float(x)), write it with NAME_store(i, v)"},
      {"INFINITY",
       "GLSL has no INFINITY: write `uintBitsToFloat(0x7f800000u)` (negate it for -inf)"},
      {"select",
       "Metal's `select(a, b, c)` is `mix(a, b, c)` in GLSL with a bool (or bvec) `c`, or "
       "`c ? b : a`"},
      {"static_cast", "C++ casts are GLSL constructors: `static_cast<float>(x)` is `float(x)`"},
      {"device",
       "Metal's address spaces do not exist in GLSL: a buffer is used by its name (`x[i]`), and "
       "GLSL has no pointers (`device float* p`) or references"},
      {"constant",
       "Metal's `constant` is `const` for a constant (`const float k = 2.0;`); buffers are used "
       "by their names, GLSL has no pointers or references"},
      {"thread",
       "Metal's `thread` address space does not exist in GLSL: a local is a plain variable "
       "(`float v = x[i];`)"},
      {"as_type",
       "Metal's `as_type<uint>(f)` is `floatBitsToUint(f)` in GLSL (also uintBitsToFloat, "
       "floatBitsToInt, intBitsToFloat)"},
      {"mlx_matrix_check", kMatrixMemory},
      {"mlx_matrix_value", kMatrixMemory},
      {"simdgroup_matrix", kSimdgroupMatrix},
  };
  return hints;
}

// Metal's vector types (uint3, float4, half2...) and GLSL's name for them.
std::string vector_hint(std::string_view token) {
  static const std::regex vector(R"((u?int|float|half|bool|u?short|u?char|u?long)([234]))");
  std::match_results<std::string_view::const_iterator> m;
  if (!std::regex_match(token.begin(), token.end(), m, vector)) return "";
  static const std::vector<std::pair<std::string_view, std::string_view>> prefixes = {
      {"float", "vec"},   {"half", "f16vec"},  {"int", "ivec"},      {"uint", "uvec"},
      {"bool", "bvec"},   {"short", "i16vec"}, {"ushort", "u16vec"}, {"char", "i8vec"},
      {"uchar", "u8vec"}, {"long", "i64vec"},  {"ulong", "u64vec"}};
  for (const auto& [metal, glsl] : prefixes) {
    if (m[1].str() == metal) {
      return fmt::format("Metal's `{}` is `{}{}` in GLSL (uint3 is uvec3, float4 is vec4)", token,
                         glsl, m[2].str());
    }
  }
  return "";
}

// `(float)x`, `(T)(v)`: C casts, which GLSL writes as constructors.
bool has_c_cast(std::string_view line) {
  static const std::regex cast(
      R"(\(\s*(float|half|bfloat|int|uint|bool|short|char|T|U|float16_t|bfloat16_t|u?int(8|16|32|64)_t)\s*\)\s*[A-Za-z_0-9(])");
  return std::regex_search(line.begin(), line.end(), cast);
}

}  // namespace

std::string metal_hint(std::string_view token, std::string_view message, std::string_view line) {
  std::string hint;
  for (const auto& [word, text] : word_hints()) {
    if (token == word) hint = text;
  }
  // simdgroup_load/store calls: a tile and memory of different dtypes (the
  // fallback cannot convert, the matrix units' calls have no such overload),
  // or a transpose that is not a constant (an array sized by it).
  constexpr auto npos = std::string_view::npos;
  const bool matrix_call =
      line.find("simdgroup_load") != npos || line.find("simdgroup_store") != npos;
  const bool other_dtype =
      message.find("cannot convert") != npos || message.find("no matching overloaded") != npos;
  if (hint.empty() && matrix_call && other_dtype) hint = kMatrixMemory;
  if (hint.empty() && matrix_call && message.find("array size must be a constant") != npos) {
    hint =
        "the `transpose` argument of simdgroup_load and simdgroup_store must be a constant "
        "(`true` or `false`, or a template argument): the matrix units take a tile's layout "
        "when the kernel compiles";
  }
  // A Metal simdgroup type, or a simdgroup_ call of Metal's form (glslang
  // names the macro in its message, not as the token).
  if (hint.empty() &&
      (token.starts_with("simdgroup_") || message.find("simdgroup_") != std::string_view::npos)) {
    hint = kSimdgroupMatrix;
  }
  if (hint.empty() && token == "::") hint = word_hints()[1].second;
  if (hint.empty()) hint = vector_hint(token);
  const bool nested = message.find("not allowed in nested scope") != std::string_view::npos;
  if (hint.empty() && (token == "out" || token == "in") && nested) {
    hint = fmt::format(
        "`{0}` is a GLSL keyword; it names a buffer only when an input or output is named `{0}` "
        "(MLX's examples name their output so): use this kernel's own names",
        token);
  }
  const bool syntax = message.find("syntax error") != std::string_view::npos;
  if (hint.empty() && syntax && line.find("atomic_fetch_add_explicit") != std::string_view::npos) {
    hint =
        "`atomic_fetch_add_explicit(&out[i], v, memory_order_relaxed)` works on outputs of a "
        "kernel made with atomic_outputs=true";
  }
  // glslang names no token for some syntax errors ("'' : syntax error"): a
  // Metal word in the quoted line is then the likely cause.
  if (hint.empty() && syntax && token.empty()) {
    static const std::regex word("[A-Za-z_][A-Za-z_0-9]*");
    for (std::regex_iterator<std::string_view::const_iterator> it(line.begin(), line.end(), word),
         end;
         it != end && hint.empty(); ++it) {
      for (const auto& [metal, text] : word_hints()) {
        if (it->str() == metal) hint = text;
      }
    }
  }
  if (hint.empty() && syntax && has_c_cast(line)) {
    hint = "C casts are GLSL constructors: `(float)x` is `float(x)`, `(T)(v)` is `T(v)`";
  }
  return hint.empty() ? "" : "hint: " + hint + std::string(kGuide);
}

}  // namespace mlx_lite::vulkan
