#!/usr/bin/env bash
# Draws docs/*.dot into docs/*.png with Graphviz (Debian's graphviz,
# installed when missing). The PNGs are committed beside their sources.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v dot > /dev/null; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends graphviz
fi
for source in docs/*.dot; do
  dot -Tpng -Gdpi=110 "$source" -o "${source%.dot}.png"
  echo "drew ${source%.dot}.png"
done
