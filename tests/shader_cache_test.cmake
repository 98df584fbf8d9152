# backend/vulkan/compile_shader.cmake, the shader cache CI's builds share:
# a miss compiles what glslangValidator compiles, a hit (from a copy of the
# sources elsewhere, as FetchContent's clone) gives the same bytes, a changed
# include misses, a failing glslang fails and leaves neither output nor entry.
# cmake -DGLSLANG=... -DSOURCE_DIR=<repository> -DWORK=<empty dir> -P this file
set(script ${SOURCE_DIR}/backend/vulkan/compile_shader.cmake)
set(cache ${WORK}/cache)
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
# Two copies of the shaders, as two checkouts would have them.
file(COPY ${SOURCE_DIR}/backend/vulkan/shaders DESTINATION ${WORK}/a)
file(COPY ${SOURCE_DIR}/backend/vulkan/shaders DESTINATION ${WORK}/b)

set(defines -DIN_STORAGE=float -DIN_COMPUTE=float -DIN_KIND=3 -DIN_BF16=0 -DIN_BITS=32
            -DOUT_STORAGE=float -DOUT_COMPUTE=float -DOUT_KIND=3 -DOUT_BF16=0 -DOUT_BITS=32)
set(options -V --target-env vulkan1.2 --quiet ${defines} --vn spirv_arange_float32)
string(REPLACE ";" "|" joined_options "${options}")

# expect(message condition...): fails with `message` unless the condition holds.
macro(expect message)
  if(NOT (${ARGN}))
    message(FATAL_ERROR "${message}")
  endif()
endmacro()

function(cache_entries out)
  file(GLOB entries ${cache}/*.h)
  list(LENGTH entries n)
  set(${out} ${n} PARENT_SCOPE)
endfunction()

# Runs compile_shader.cmake on checkout `tree`'s arange.comp into `output`;
# `result` gets its exit status.
function(compile tree glslang output result)
  file(GLOB includes ${WORK}/${tree}/shaders/*.glsl ${WORK}/${tree}/shaders/params/*.h)
  string(REPLACE ";" "|" joined_includes "${includes}")
  execute_process(
    COMMAND ${CMAKE_COMMAND} -DGLSLANG=${glslang} "-DARGS=${joined_options}"
            -DSHADER=${WORK}/${tree}/shaders/arange.comp "-DINCLUDES=${joined_includes}"
            -DOUTPUT=${output} -DCACHE=${cache} -P ${script}
    RESULT_VARIABLE status OUTPUT_QUIET ERROR_QUIET)
  set(${result} ${status} PARENT_SCOPE)
endfunction()

# glslang itself, for the reference bytes.
execute_process(COMMAND ${GLSLANG} ${options} -o ${WORK}/direct.h ${WORK}/a/shaders/arange.comp
                RESULT_VARIABLE status)
expect("glslangValidator failed on arange.comp" status EQUAL 0)

compile(a ${GLSLANG} ${WORK}/miss.h status)
expect("the first compile (a miss) failed" status EQUAL 0)
cache_entries(n)
expect("a miss stored ${n} entries, not 1" n EQUAL 1)
file(SHA256 ${WORK}/direct.h direct)
file(SHA256 ${WORK}/miss.h miss)
expect("a miss gave other bytes than glslangValidator" miss STREQUAL direct)

# The same sources elsewhere hit: no second entry, the same bytes.
compile(b ${GLSLANG} ${WORK}/hit.h status)
expect("the compile from the copy elsewhere failed" status EQUAL 0)
cache_entries(n)
expect("the copy elsewhere missed the cache (${n} entries)" n EQUAL 1)
file(SHA256 ${WORK}/hit.h hit)
expect("a hit gave other bytes than glslangValidator" hit STREQUAL direct)

# An include whose contents change is a miss.
file(APPEND ${WORK}/b/shaders/common.glsl "\n// changed\n")
compile(b ${GLSLANG} ${WORK}/changed.h status)
cache_entries(n)
expect("a changed include hit the cache (${n} entries)" n EQUAL 2)

# A glslang that writes part of its output and fails: the step fails,
# leaving no output and no entry.
file(WRITE ${WORK}/failing/glslangValidator [=[#!/bin/sh
while [ $# -gt 0 ]; do
  if [ "$1" = -o ]; then echo "// half a header" > "$2"; fi
  shift
done
exit 1
]=])
file(CHMOD ${WORK}/failing/glslangValidator PERMISSIONS OWNER_READ OWNER_EXECUTE)
compile(a ${WORK}/failing/glslangValidator ${WORK}/failed.h status)
expect("a failing glslang did not fail the step" NOT status EQUAL 0)
expect("a failed compile left an output" NOT EXISTS ${WORK}/failed.h)
cache_entries(n)
expect("a failed compile stored an entry (${n} entries)" n EQUAL 2)
message(STATUS "shader cache: a miss, a hit from elsewhere, a changed include, a failure")
