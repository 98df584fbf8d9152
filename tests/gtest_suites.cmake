# One ctest entry per GoogleTest suite of a test program: the entry runs
# `program --gtest_filter=Suite.*`, so a suite's tests share one process.
#
# Why not gtest_discover_tests (one process per test): on lavapipe under the
# validation layer every process loads the layer and the driver and
# compiles its pipelines again. On 2 cores, ctest -j2 took 408 s as 1,009
# per-test entries and 256 s as 134 per-suite ones (2026-11-29). A suite is
# the unit the tests were written in (a fixture, one area), and the whole
# program is how users and scripts/gpu_tests.sh run them anyway. The cost:
# ctest reports a suite, not each test, as passed or failed, and a skipped
# test counts as passed; the program's own output (--output-on-failure,
# Testing/Temporary/LastTest.log) names each test and each skip.
#
# mlx_lite_gtest_suites(<target> [PROPERTIES <name> <value> ...]) lists the
# program's suites after each build (the program's --gtest_list_tests, into
# <target>.suites) and has ctest read that list when it runs; PROPERTIES
# apply to every suite's entry (one value per property). A suite's name
# must be unique across programs: the listing fails the build otherwise.
#
# Run as a script (cmake -P) by the build: lists PROGRAM's suites in OUTPUT.

if(CMAKE_SCRIPT_MODE_FILE)
  cmake_policy(VERSION 3.20)  # IN_LIST below
  execute_process(COMMAND "${PROGRAM}" --gtest_list_tests
                  OUTPUT_VARIABLE listing RESULT_VARIABLE result TIMEOUT 60)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "${PROGRAM} --gtest_list_tests failed (${result}):\n${listing}")
  endif()
  # A suite's line starts in column 0 and ends with '.', then maybe a
  # comment (typed suites: "Suite/0.  # TypeParam = float").
  string(REGEX MATCHALL "(^|\n)[^ \n][^\n]*" lines "${listing}")
  set(suites "")
  foreach(line IN LISTS lines)
    string(STRIP "${line}" line)
    if(line MATCHES "^([^ #]+)\\.( .*)?$")
      list(APPEND suites "${CMAKE_MATCH_1}")
    endif()
  endforeach()
  get_filename_component(dir "${OUTPUT}" DIRECTORY)
  file(GLOB others "${dir}/*.suites")
  list(REMOVE_ITEM others "${OUTPUT}")
  foreach(other IN LISTS others)
    file(STRINGS "${other}" their_suites)
    foreach(suite IN LISTS suites)
      if(suite IN_LIST their_suites)
        message(FATAL_ERROR "suite ${suite} of ${PROGRAM} is also in ${other}: "
                            "ctest names each entry after its suite, so rename one")
      endif()
    endforeach()
  endforeach()
  list(JOIN suites "\n" text)
  file(WRITE "${OUTPUT}" "${text}\n")
  return()
endif()

set(_mlx_lite_gtest_suites_script ${CMAKE_CURRENT_LIST_FILE})

function(mlx_lite_gtest_suites target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "PROPERTIES")
  set(list_file ${CMAKE_CURRENT_BINARY_DIR}/${target}.suites)
  add_custom_command(TARGET ${target} POST_BUILD BYPRODUCTS ${list_file}
                     COMMAND ${CMAKE_COMMAND} -DPROGRAM=$<TARGET_FILE:${target}>
                             -DOUTPUT=${list_file} -P ${_mlx_lite_gtest_suites_script}
                     VERBATIM)
  # The properties as `NAME [==[value]==] ...`, for ctest to read back.
  set(properties "")
  list(LENGTH arg_PROPERTIES count)
  if(count GREATER 0)
    math(EXPR last "${count} - 1")
    foreach(i RANGE 0 ${last} 2)
      math(EXPR j "${i} + 1")
      list(GET arg_PROPERTIES ${i} name)
      list(GET arg_PROPERTIES ${j} value)
      string(APPEND properties " ${name} [==[${value}]==]")
    endforeach()
  endif()
  set(include_file ${CMAKE_CURRENT_BINARY_DIR}/${target}_suites.cmake)
  file(GENERATE OUTPUT ${include_file} CONTENT
"if(EXISTS [==[${list_file}]==])
  file(STRINGS [==[${list_file}]==] suites)
  foreach(suite IN LISTS suites)
    add_test(\"\${suite}\" [==[$<TARGET_FILE:${target}>]==] \"--gtest_filter=\${suite}.*\")
    set_tests_properties(\"\${suite}\" PROPERTIES WORKING_DIRECTORY [==[${CMAKE_CURRENT_BINARY_DIR}]==]${properties})
  endforeach()
else()
  add_test(${target}_NOT_BUILT ${target}_NOT_BUILT)
  set_tests_properties(${target}_NOT_BUILT PROPERTIES${properties})
endif()
")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${include_file})
endfunction()
