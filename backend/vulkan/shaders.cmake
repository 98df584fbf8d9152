# Built-in shaders: each GLSL family in backend/vulkan/shaders/ is compiled to
# SPIR-V once per dtype variant with glslangValidator, and the words are
# embedded in the library (builtin_shaders.h looks them up by name).
# Each family lists its variants in shaders/<family>.cmake, with
# _add_variant(family name in_dtype out_dtype [extra glslang defines...]).
# Included from the top-level CMakeLists.txt.

find_program(GLSLANG_VALIDATOR glslangValidator REQUIRED)

set(_shader_dir ${CMAKE_CURRENT_LIST_DIR}/shaders)
set(_out_dir ${PROJECT_BINARY_DIR}/shaders)
file(MAKE_DIRECTORY ${_out_dir})

# Per dtype: storage type, compute type, kind (0 bool, 1 unsigned, 2 signed,
# 3 float), bf16, bits. float64 has no GPU variants (it is CPU only, as in MLX).
set(_dtypes bool uint8 uint16 uint32 uint64 int8 int16 int32 int64 float16 bfloat16 float32)
set(_bool     uint8_t   uint     0 0 8)
set(_uint8    uint8_t   uint     1 0 8)
set(_uint16   uint16_t  uint     1 0 16)
set(_uint32   uint      uint     1 0 32)
set(_uint64   uint64_t  uint64_t 1 0 64)
set(_int8     int8_t    int      2 0 8)
set(_int16    int16_t   int      2 0 16)
set(_int32    int       int      2 0 32)
set(_int64    int64_t   int64_t  2 0 64)
set(_float16  float16_t float    3 0 16)
set(_bfloat16 uint16_t  float    3 1 16)
set(_float32  float     float    3 0 32)

function(_type_defines prefix dtype out)
  list(GET _${dtype} 0 storage)
  list(GET _${dtype} 1 compute)
  list(GET _${dtype} 2 kind)
  list(GET _${dtype} 3 bf16)
  list(GET _${dtype} 4 bits)
  set(${out} -D${prefix}_STORAGE=${storage} -D${prefix}_COMPUTE=${compute}
      -D${prefix}_KIND=${kind} -D${prefix}_BF16=${bf16} -D${prefix}_BITS=${bits} PARENT_SCOPE)
endfunction()

file(GLOB _shader_includes CONFIGURE_DEPENDS ${_shader_dir}/*.glsl ${_shader_dir}/params/*.h)

# With the environment variable MLX_LITE_SHADER_CACHE naming a directory when
# the build is configured, every variant goes through compile_shader.cmake,
# which compiles it once for all the build directories that share the cache
# (CI sets it); without it, glslangValidator runs directly.
set(_shader_cache "$ENV{MLX_LITE_SHADER_CACHE}")
# compile_shader.cmake takes lists joined with '|' (a ';' would split its -D).
string(REPLACE ";" "|" _joined_includes "${_shader_includes}")

set(_headers "")
set(_names "")
function(_add_variant family name in out)
  _type_defines(IN ${in} in_defs)
  _type_defines(OUT ${out} out_defs)
  set(header ${_out_dir}/${name}.h)
  set(source ${_shader_dir}/${family}.comp)
  set(options -V --target-env vulkan1.2 --quiet ${in_defs} ${out_defs} ${ARGN} --vn spirv_${name})
  if(_shader_cache)
    set(script ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/compile_shader.cmake)
    string(REPLACE ";" "|" joined_options "${options}")
    set(command ${CMAKE_COMMAND} -DGLSLANG=${GLSLANG_VALIDATOR} "-DARGS=${joined_options}"
        -DSHADER=${source} "-DINCLUDES=${_joined_includes}" -DOUTPUT=${header}
        -DCACHE=${_shader_cache} -P ${script})
  else()
    set(script "")  # the variant does not depend on compile_shader.cmake
    set(command ${GLSLANG_VALIDATOR} ${options} -o ${header} ${source})
  endif()
  add_custom_command(
    OUTPUT ${header}
    COMMAND ${command}
    DEPENDS ${source} ${_shader_includes} ${script}
    COMMENT "Compiling shader ${name}" VERBATIM)
  set(_headers ${_headers} ${header} PARENT_SCOPE)
  set(_names ${_names} ${name} PARENT_SCOPE)
endfunction()

file(GLOB _families CONFIGURE_DEPENDS ${_shader_dir}/*.cmake)
foreach(family_file ${_families})
  include(${family_file})
endforeach()

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
