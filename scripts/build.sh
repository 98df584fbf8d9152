#!/usr/bin/env bash
# Configures and builds mlx_lite into build/ (Release), installing missing
# packages first. Extra arguments are ninja targets.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# test_khr_cooperative_matrix's validator; without it that test fails, saying so.
scripts/fetch_spirv_val.sh >/dev/null || echo "warning: no spirv-val for KHR matrices" >&2
# The library compiles in batches of sources (CMake's unity build): 4 of 7
# minutes on 2 cores, the whole build and CI faster by as much. A change to
# one source recompiles its batch, so MLX_LITE_UNITY_BUILD=OFF suits working
# on the library; scripts/consumers.sh builds it without batches too.
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_UNITY_BUILD="${MLX_LITE_UNITY_BUILD:-ON}" > /dev/null
cmake --build build -- "$@"
