#!/usr/bin/env bash
# Installs the Debian 12 packages mlx_lite builds with, only those missing.
# Works as root (CI, containers) or through sudo.
set -euo pipefail

packages=(
  cmake ninja-build g++ pkg-config
  libfmt-dev libabsl-dev libeigen3-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libvulkan-dev glslang-tools glslang-dev libspirv-cross-c-shared-dev
  mesa-vulkan-drivers vulkan-validationlayers
  spirv-tools curl xz-utils  # scripts/fetch_spirv_val.sh
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "Installing: ${missing[*]}"
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
