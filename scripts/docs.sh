#!/usr/bin/env bash
# Builds the API reference from the public headers' doc comments with Doxygen
# (Debian's doxygen, installed when missing) into build/docs/html, or into
# the directory given as the first argument. Any warning (an undocumented
# declaration, a bad command) fails the run. DOXYGEN names the doxygen to run
# (CMake's docs target passes the one it found).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-build/docs}
if [ -z "${DOXYGEN:-}" ] && ! command -v doxygen > /dev/null; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends doxygen
fi
doxygen=${DOXYGEN:-doxygen}
mkdir -p "$out"
# docs/Doxyfile with the output directory replaced; WARN_AS_ERROR =
# FAIL_ON_WARNINGS makes doxygen exit non-zero after listing every warning.
{ cat docs/Doxyfile; echo "OUTPUT_DIRECTORY = \"$out\""; } | "$doxygen" -
echo "API reference: $out/html/index.html"
