#!/usr/bin/env bash
# Draws docs/*.dot into docs/*.png with Graphviz (Debian's graphviz,
# installed when missing), after writing docs/grid_sample_graph.dot with
# examples/graph_export. The PNGs are committed beside their sources.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v dot > /dev/null; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends graphviz
fi
# The composed grid_sample's graph, written by examples/graph_export.cpp.
scripts/build.sh graph_export > /dev/null
build/examples/graph_export docs/grid_sample_graph.dot > /dev/null
for source in docs/*.dot; do
  dpi=110
  [[ $source == docs/grid_sample_graph.dot ]] && dpi=50  # 500 nodes: keep the PNG small
  dot -Tpng -Gdpi=$dpi "$source" -o "${source%.dot}.png"
  echo "drew ${source%.dot}.png"
done
