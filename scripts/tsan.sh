#!/usr/bin/env bash
# Builds tests/test_threads.cpp (independent graphs evaluated from several
# threads at once) with ThreadSanitizer into build-tsan/ and runs it on the
# default Vulkan device (lavapipe without a GPU): any data race in mlx_lite
# fails it. Installs missing packages first.
#
# Without the validation layer: the layer's own threads race on its own
# data (reports in libVkLayer_khronos_validation.so, not in mlx_lite); the
# suite runs under it everywhere else. tests/sanitizers/tsan.supp says what
# else is left out, and why.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# -O1 -g1: built and run in 3 minutes on 2 cores (RelWithDebInfo took 8),
# and the reports keep file and line.
# Unity build (scripts/build.sh says why).
cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=None -DCMAKE_UNITY_BUILD=ON \
  -DCMAKE_CXX_FLAGS="-fsanitize=thread -O1 -g1" \
  -DMLX_LITE_BUILD_BENCHMARKS=OFF -DMLX_LITE_BUILD_EXAMPLES=OFF > /dev/null
cmake --build build-tsan --target test_threads
TSAN_OPTIONS="halt_on_error=1 suppressions=$PWD/tests/sanitizers/tsan.supp" \
  build-tsan/tests/test_threads
