#!/usr/bin/env bash
# AddressSanitizer and UndefinedBehaviorSanitizer over the tests, on the
# default Vulkan device (lavapipe without a GPU) under the validation layer,
# as scripts/test.sh runs them. Any report stops the program that made it
# (halt_on_error) and fails it. Installs missing packages first.
#
#   scripts/asan.sh        every test, RelWithDebInfo, in build-asan/
#                          (65 minutes on 2 cores, 49 to build, with
#                          other builds beside it, 2026-11-29; 55 and 40
#                          before the unity build and per-suite ctest)
#   scripts/asan.sh --ci   the CI subset, -O0 -g1, in build-asan-ci/: the fuzz
#                          test (every op family on both backends, custom
#                          kernels, creation, random, indexing, conv), the
#                          custom-kernel and kernel-cache tests (compiler,
#                          disk cache, pipelines), GPU timing (gpu_timer.cpp),
#                          the loop-cap tests (split kernels), the
#                          watchdog, the simdgroup layer and device features
#                          (test_simdgroups) and the kernel builder's names,
#                          hints and shared-memory reading
#                          (test_kernel_builder), and the simdgroup
#                          matrices' text and launch checks
#                          (test_simdgroup_matrix), and the translation of
#                          cooperative matrices into KHR ones
#                          (test_khr_cooperative_matrix). Together they call into
#                          every file in backend/. test_large_arrays (2 GiB arrays) is left
#                          out: 143 s under ASan.
#
# -fno-sanitize=vptr: glslang is built without RTTI, and the vptr check
# needs the type info of every class it sees.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
flags="-fsanitize=address,undefined -fno-sanitize=vptr -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$PWD/tests/sanitizers/lsan.supp"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

if [[ ${1:-} != --ci ]]; then
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_UNITY_BUILD=ON \
    -DCMAKE_CXX_FLAGS="$flags" \
    -DMLX_LITE_BUILD_BENCHMARKS=OFF -DMLX_LITE_BUILD_EXAMPLES=OFF > /dev/null
  cmake --build build-asan
  ctest --test-dir build-asan --output-on-failure -j "$(nproc)" --timeout 1500
  exit
fi

programs=(test_fuzz test_custom_kernel test_kernel_cache test_gpu_timing test_loop_cap
          test_gpu_watchdog test_simdgroups test_kernel_builder test_simdgroup_matrix
          test_khr_cooperative_matrix)
build=build-asan-ci
# -O0 -g1: the sanitizers check every access the source makes (optimizing can
# only remove checks), and reports keep file and line. -O1 took four times as
# long to build: backend/cpu/reduction.cpp 104 s against 26 s, and the CI
# subset's build 8.5 of CI's 33 minutes on 2 cores (2026-11-28).
# Unity build (scripts/build.sh says why): the library in 2 of 5 minutes
# at -O0 without the sanitizers, on 2 cores (2026-11-29).
cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=None -DCMAKE_UNITY_BUILD=ON \
  -DCMAKE_CXX_FLAGS="$flags -O0 -g1" \
  -DMLX_LITE_BUILD_BENCHMARKS=OFF -DMLX_LITE_BUILD_EXAMPLES=OFF > /dev/null
cmake --build $build --target "${programs[@]}"
# Their ctest entries (each program labels its own), with the environment
# ctest gives them: the validation layer, the GPU timeout, the watchdog's limits.
labels=$(IFS='|'; echo "${programs[*]}")
ctest --test-dir $build --output-on-failure -j "$(nproc)" --timeout 900 -L "^($labels)\$"
