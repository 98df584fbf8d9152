#!/usr/bin/env bash
# Configures and builds mlx_lite into build/ (Release), installing missing
# packages first. Extra arguments are ninja targets.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/fetch_spirv_val.sh >/dev/null  # for test_khr_cooperative_matrix
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build build -- "$@"
