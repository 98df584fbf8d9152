#!/usr/bin/env bash
# Quick start 1: builds and runs the grid_sample demo on the default device.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh grid_sample
build/examples/grid_sample
