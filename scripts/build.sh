#!/usr/bin/env bash
# Configures and builds mlx_lite into build/ (Release), installing missing
# packages first. Extra arguments are ninja targets.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# test_khr_cooperative_matrix's validator; without it that test fails, saying so.
scripts/fetch_spirv_val.sh >/dev/null || echo "warning: no spirv-val for KHR matrices" >&2
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build build -- "$@"
