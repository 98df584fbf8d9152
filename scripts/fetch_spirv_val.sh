#!/usr/bin/env bash
# Fetches a spirv-val that knows SPV_KHR_cooperative_matrix and
# SPV_KHR_bfloat16, which Debian 12's (SPIRV-Tools 2023.1) predates: the
# tests validate the library's translation of NV cooperative matrices into
# KHR ones (backend/vulkan/khr_cooperative_matrix.h) with it. It is Debian
# testing's spirv-tools with that suite's C and C++ runtimes beside it,
# unpacked (not installed) under DIR and run through their own dynamic
# loader, so nothing on the system changes.
#
# Usage: scripts/fetch_spirv_val.sh [DIR]
#   DIR defaults to ${XDG_CACHE_HOME:-~/.cache}/mlx_lite/spirv-tools, where
#   the tests look (MLX_LITE_SPIRV_VAL names another spirv-val). Prints the
#   path of DIR/spirv-val, a wrapper that runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$(realpath -m "${1:-${XDG_CACHE_HOME:-$HOME/.cache}/mlx_lite/spirv-tools}")
if [[ -x "$dir/spirv-val" ]] && "$dir/spirv-val" --version >/dev/null 2>&1; then
  echo "$dir/spirv-val"
  exit 0
fi
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
suite=${SPIRV_VAL_SUITE:-forky}
packages=(spirv-tools libc6 libstdc++6 libgcc-s1)
rm -rf "$dir" && mkdir -p "$dir/debs" "$dir/root"
curl -fsS -m 300 "$mirror/dists/$suite/main/binary-amd64/Packages.xz" | xz -d >"$dir/Packages"
for p in "${packages[@]}"; do
  file=$(awk -v p="$p" '$1 == "Package:" { cur = $2 } cur == p && $1 == "Filename:" { print $2; exit }' \
    "$dir/Packages")
  if [[ -z "$file" ]]; then
    echo "fetch_spirv_val: no package $p in Debian $suite" >&2
    exit 1
  fi
  curl -fsS -m 300 -o "$dir/debs/$(basename "$file")" "$mirror/$file"
  dpkg-deb -x "$dir/debs/$(basename "$file")" "$dir/root"
done
rm -rf "$dir/debs" "$dir/Packages"
cat >"$dir/spirv-val" <<EOF
#!/bin/sh
# spirv-val of Debian $suite (scripts/fetch_spirv_val.sh), on its own runtime.
root="$dir/root"
exec "\$root/usr/lib64/ld-linux-x86-64.so.2" --library-path "\$root/usr/lib/x86_64-linux-gnu" \\
  "\$root/usr/bin/spirv-val" "\$@"
EOF
chmod +x "$dir/spirv-val"
"$dir/spirv-val" --version >/dev/null
echo "$dir/spirv-val"
