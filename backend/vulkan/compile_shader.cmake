# Compiles one built-in shader variant through a cache shared by build
# directories (cmake -P, from shaders.cmake where MLX_LITE_SHADER_CACHE is set
# when the build is configured). CI builds one tree four times (release,
# ThreadSanitizer, AddressSanitizer, a consumer that builds the library from
# source); the shaders are the same in each, and compiling them took about
# 2 minutes of CPU a build.
#
# The key is a SHA-256 of everything the output depends on: glslang (its path,
# size and time stamp), its options (defines, the variable name), and the
# family's source and every shared include (their contents, and their paths
# relative to the shaders' directory). A hit copies the stored header; a miss
# compiles and stores it (renamed into place, so a reader never sees half a
# file).
#
# Variables: GLSLANG, ARGS (glslang's options but -o, joined by '|'), SHADER
# (the family's source), INCLUDES (the shared includes, joined by '|'),
# OUTPUT, CACHE (the directory).
string(REPLACE "|" ";" args "${ARGS}")
string(REPLACE "|" ";" includes "${INCLUDES}")

file(SIZE "${GLSLANG}" glslang_size)
file(TIMESTAMP "${GLSLANG}" glslang_time "%s" UTC)
set(key_text "${GLSLANG} ${glslang_size} ${glslang_time}\n${ARGS}\n")
# Paths relative to the shader's directory: a clone elsewhere (FetchContent)
# hits the same entries. The output names no path.
get_filename_component(shader_dir "${SHADER}" DIRECTORY)
foreach(source IN LISTS SHADER includes)
  file(RELATIVE_PATH relative "${shader_dir}" "${source}")
  file(SHA256 "${source}" source_hash)
  string(APPEND key_text "${relative} ${source_hash}\n")
endforeach()
string(SHA256 key "${key_text}")
set(stored "${CACHE}/${key}.h")

if(EXISTS "${stored}")
  file(COPY_FILE "${stored}" "${OUTPUT}")
  return()
endif()
execute_process(COMMAND "${GLSLANG}" ${args} -o "${OUTPUT}" "${SHADER}" RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  file(REMOVE "${OUTPUT}")
  message(FATAL_ERROR "glslangValidator failed (${result}) on ${OUTPUT}")
endif()
file(MAKE_DIRECTORY "${CACHE}")
string(RANDOM LENGTH 12 suffix)
file(COPY_FILE "${OUTPUT}" "${stored}.${suffix}")
file(RENAME "${stored}.${suffix}" "${stored}")
