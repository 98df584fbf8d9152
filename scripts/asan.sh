#!/usr/bin/env bash
# Builds every test with AddressSanitizer and UndefinedBehaviorSanitizer into
# build-asan/ and runs the suite (under the validation layer, as
# scripts/test.sh does). Any report fails the test that made it. Installs
# missing packages first. About 15 minutes on 2 cores; not part of CI yet.
#
# -fno-sanitize=vptr: glslang is built without RTTI, and the vptr check
# needs the type info of every class it sees.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS="-fsanitize=address,undefined -fno-sanitize=vptr -fno-omit-frame-pointer -fno-sanitize-recover=undefined" \
  -DMLX_LITE_BUILD_BENCHMARKS=OFF -DMLX_LITE_BUILD_EXAMPLES=OFF > /dev/null
cmake --build build-asan
export ASAN_OPTIONS="detect_leaks=1"
export LSAN_OPTIONS="suppressions=$PWD/tests/sanitizers/lsan.supp"
export UBSAN_OPTIONS="print_stacktrace=1"
ctest --test-dir build-asan --output-on-failure -j "$(nproc)" --timeout 1500
