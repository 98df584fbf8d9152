# Built-in shaders: each GLSL family in backend/vulkan/shaders/ is compiled to
# SPIR-V once per dtype variant with glslangValidator, and the words are
# embedded in the library (builtin_shaders.h looks them up by name).
# Included from the top-level CMakeLists.txt; sets MLX_LITE_VULKAN_SHADER_SOURCES.

find_program(GLSLANG_VALIDATOR glslangValidator REQUIRED)

set(_shader_dir ${CMAKE_CURRENT_LIST_DIR}/shaders)
set(_out_dir ${CMAKE_BINARY_DIR}/shaders)
file(MAKE_DIRECTORY ${_out_dir})

# Per dtype: storage type, compute type, kind (0 bool, 1 unsigned, 2 signed, 3 float), bf16.
set(_dtypes bool uint8 uint32 int32 int64 float16 bfloat16 float32)
set(_bool     uint8_t   uint    0 0)
set(_uint8    uint8_t   uint    1 0)
set(_uint32   uint      uint    1 0)
set(_int32    int       int     2 0)
set(_int64    int64_t   int64_t 2 0)
set(_float16  float16_t float   3 0)
set(_bfloat16 uint16_t  float   3 1)
set(_float32  float     float   3 0)

function(_type_defines prefix dtype out)
  list(GET _${dtype} 0 storage)
  list(GET _${dtype} 1 compute)
  list(GET _${dtype} 2 kind)
  list(GET _${dtype} 3 bf16)
  set(${out} -D${prefix}_STORAGE=${storage} -D${prefix}_COMPUTE=${compute}
      -D${prefix}_KIND=${kind} -D${prefix}_BF16=${bf16} PARENT_SCOPE)
endfunction()

set(_headers "")
set(_names "")
function(_add_variant family name in out)
  _type_defines(IN ${in} in_defs)
  _type_defines(OUT ${out} out_defs)
  set(header ${_out_dir}/${name}.h)
  add_custom_command(
    OUTPUT ${header}
    COMMAND ${GLSLANG_VALIDATOR} -V --target-env vulkan1.2 --quiet ${in_defs} ${out_defs}
            --vn spirv_${name} -o ${header} ${_shader_dir}/${family}.comp
    DEPENDS ${_shader_dir}/${family}.comp ${_shader_dir}/common.glsl
    COMMENT "Compiling shader ${name}" VERBATIM)
  set(_headers ${_headers} ${header} PARENT_SCOPE)
  set(_names ${_names} ${name} PARENT_SCOPE)
endfunction()

foreach(in ${_dtypes})
  foreach(out ${_dtypes})
    _add_variant(copy copy_${in}_${out} ${in} ${out})
  endforeach()
  _add_variant(unary unary_${in} ${in} ${in})
  _add_variant(binary binary_${in} ${in} ${in})
  _add_variant(reduce reduce_${in}_${in} ${in} ${in})
  if(NOT in STREQUAL "bool")
    _add_variant(binary binary_${in}_bool ${in} bool)
    _add_variant(reduce reduce_${in}_bool ${in} bool)  # all, any
  endif()
endforeach()
# Sums and products of bool and uint8 widen, as MLX's.
_add_variant(reduce reduce_bool_int32 bool int32)
_add_variant(reduce reduce_uint8_uint32 uint8 uint32)

# One source that includes every compiled module and maps names to words.
set(_includes "")
set(_entries "")
foreach(name ${_names})
  string(APPEND _includes "#include \"${name}.h\"\n")
  string(APPEND _entries "    {\"${name}\", spirv_${name}},\n")
endforeach()
set(_table ${_out_dir}/builtin_shaders_table.inc)
string(REPLACE ",\n" ", \\\n" _entries_continued "${_entries}")
file(WRITE ${_table}.in "${_includes}\n#define MLX_LITE_SHADER_ENTRIES \\\n${_entries_continued}\n")
configure_file(${_table}.in ${_table} COPYONLY)
set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/builtin_shaders.cpp PROPERTIES
  OBJECT_DEPENDS "${_headers}" INCLUDE_DIRECTORIES ${_out_dir})
add_custom_target(mlx_lite_shaders DEPENDS ${_headers})
