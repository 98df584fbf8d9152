// Makes a parameter header (params/<family>.h) valid C++ and GLSL, so that
// the host and its shaders share one declaration of what a dispatch passes:
//
//   - a parameter struct: the dispatch's push constants. Members are scalars
//     (int32_t, uint32_t, int64_t, uint64_t, float), arrays of them and
//     structs of them, each at its natural alignment, where C++ and GLSL's
//     std430 layout (push constants) agree byte for byte.
//     MLX_PUSH_CONSTANTS(T) declares the shader's push constants as
//     `params`, of type T, and in C++ checks at compile time that T fits the
//     128 bytes every Vulkan device has.
//   - specialization constants: an X-macro list LIST(X, S) of
//     X(S, constant_id, glsl type, name, default) lines;
//     MLX_SPEC_CONSTANTS(S, LIST) declares them in GLSL (constant_id 0 is
//     local_size_x), and in C++ the struct S (uint32_t workgroup_size, then
//     one uint32_t per line) with a compile-time check that member i is
//     constant_id i.
//   - named constants (MLX_CONSTANT) and the values of C++ enums the shaders
//     switch on (MLX_ENUM_VALUE: a GLSL constant E_name, and in C++ a check
//     that E::name still has that value, so a reordered enum fails to compile).
//
// GLSL sources include common.glsl (which enables the explicit arithmetic
// types) before any parameter header.
#ifndef MLX_PARAMS_PRELUDE_H
#define MLX_PARAMS_PRELUDE_H

#ifdef __cplusplus

#include <cstddef>
#include <cstdint>
#include <type_traits>

#define MLX_PARAMS_BEGIN namespace mlx_lite::vulkan::params {
#define MLX_PARAMS_END }

#define MLX_CONSTANT(type, name, value) inline constexpr type name = value;

#define MLX_ENUM_VALUE(E, name, value)                                                \
  static_assert(static_cast<uint32_t>(::mlx_lite::E::name) == (value),                \
                #E "::" #name " changed value: update " __FILE__ " and its shaders"); \
  inline constexpr uint32_t E##_##name = (value);

#define MLX_PUSH_CONSTANTS(T)                                                    \
  static_assert(std::is_standard_layout_v<T> && std::is_trivially_copyable_v<T>, \
                #T ": push constants are plain data");                           \
  static_assert(sizeof(T) <= 128, #T                                             \
                " outgrows the 128 bytes of push constants every device has: "   \
                "move variable-length data to the shape block (shape_block.h)");

#define MLX_SPEC_MEMBER_(S, id, type, name, value) uint32_t name = static_cast<uint32_t>(value);
#define MLX_SPEC_CHECK_(S, id, type, name, value) \
  static_assert(offsetof(S, name) == 4 * (id), #S "::" #name " is not constant_id " #id);
#define MLX_SPEC_CONSTANTS(S, LIST) \
  struct S {                        \
    uint32_t workgroup_size = 0;    \
    LIST(MLX_SPEC_MEMBER_, S)       \
  };                                \
  LIST(MLX_SPEC_CHECK_, S)          \
  static_assert(std::is_standard_layout_v<S>, #S ": specialization constants are plain data");

#else  // GLSL

#define MLX_PARAMS_BEGIN
#define MLX_PARAMS_END
#define MLX_CONSTANT(type, name, value) const type name = value;
#define MLX_ENUM_VALUE(E, name, value) const uint E##_##name = value;
#define MLX_PUSH_CONSTANTS(T)               \
  layout(push_constant) uniform MlxParams { \
    T params;                               \
  };
#define MLX_SPEC_DECLARE_(S, id, type, name, value) \
  layout(constant_id = id) const type name = value;
#define MLX_SPEC_CONSTANTS(S, LIST) \
  layout(local_size_x_id = 0) in;   \
  LIST(MLX_SPEC_DECLARE_, S)

#endif

#endif  // MLX_PARAMS_PRELUDE_H
