#!/usr/bin/env bash
# Consumes mlx_lite the four ways a user would, building
# tests/consumers/app.cpp (a graph, a custom kernel and a gradient, checked)
# and running it on the default device (all but 3, see there):
#   1. cmake --install to a prefix, then find_package(mlx_lite) out of tree
#      (with the testing component: tests/consumers/app_test.cpp);
#   2. the same prefix through pkg-config (--static);
#   3. add_subdirectory of this tree: configured, its build graph checked
#      and dry-run, not built, since 4 builds the same add_subdirectory path
#      in full (a second build of the library cost CI about 3 minutes);
#   4. FetchContent from a local clone of this repository's HEAD, with the
#      consumer's defaults: the one build in CI that compiles each of the
#      library's sources on its own (the others are unity builds,
#      scripts/build.sh), so a source that compiles only beside its batch's
#      neighbours fails here.
# Also checks the package's answers to bad requests: a version it is not,
# a dependency that cannot be found. Needs build/ from scripts/build.sh;
# works in build-consumers/. Installs missing packages first.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
root=$PWD
work=$root/build-consumers
rm -rf "$work" && mkdir -p "$work"
consumers=$root/tests/consumers
log=$work/configure.log
try_configure() { cmake -G Ninja -Wno-dev "$@" > "$log" 2>&1; }
configure() { try_configure "$@" || { cat "$log"; return 1; }; }

echo "== 1. install, find_package"
scripts/build.sh mlx_lite > /dev/null
cmake --install build --prefix "$work/prefix" > /dev/null
configure -S "$consumers/find_package" -B "$work/find_package" -DCMAKE_PREFIX_PATH="$work/prefix"
cmake --build "$work/find_package" > /dev/null
"$work/find_package/app"
"$work/find_package/app_test" --gtest_brief=1

echo "== 2. pkg-config"
PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig" \
  g++ "$consumers/app.cpp" -o "$work/app_pkg_config" \
  $(PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig" pkg-config --cflags --libs --static mlx_lite)
"$work/app_pkg_config"

echo "== bad requests: a version the package is not, a dependency missing"
expect_configure_failure() {  # WANTED_TEXT, then cmake's arguments
  local want=$1; shift
  if try_configure "$@"; then echo "configured, but should have failed: $*"; return 1; fi
  grep -q "$want" "$log" || { cat "$log"; echo "no '$want' above"; return 1; }
  echo "refused as expected: $want"
}
expect_configure_failure 'requested version "99.0"' -S "$consumers/find_package" \
  -B "$work/too_new" -DCMAKE_PREFIX_PATH="$work/prefix" -DMLX_LITE_VERSION_WANTED=99.0
expect_configure_failure 'CMAKE_DISABLE_FIND_PACKAGE_glslang' -S "$consumers/find_package" -B "$work/no_glslang" \
  -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_DISABLE_FIND_PACKAGE_glslang=TRUE

# The consumer's build graph, before anything is built: every input has a
# rule or exists (ninja's dry run), its ctest lists only its own test, and
# mlx_lite's generated files go to mlx_lite's own binary dir.
check_subproject_graph() {  # BUILD DIR
  local build=$1
  ninja -C "$build" -n > /dev/null
  local tests
  tests=$(ctest --test-dir "$build" -N | sed -n 's/^Total Tests: //p')
  [[ $tests == 1 ]] || { echo "the consumer's ctest lists $tests tests, not 1"; return 1; }
  local outputs  # listed first: grep -q's early exit would fail ninja's pipe
  outputs=$(ninja -C "$build" -t targets all | cut -d: -f1)
  if grep -q -e '^shaders/' -e "^$build/shaders/" <<< "$outputs"; then
    echo "mlx_lite would write shaders/ into the consumer's build dir"; return 1
  fi
}

subproject() {  # NAME, then the consumer's cmake arguments
  local build=$work/$1; shift
  configure -S "$consumers/subproject" -B "$build" "$@"
  check_subproject_graph "$build"
  cmake --build "$build" > /dev/null
  "$build/app"
  [[ ! -e $build/shaders ]] || { echo "mlx_lite wrote shaders/ into the consumer's build dir"; return 1; }
  # An install of the consumer holds the consumer alone.
  cmake --install "$build" --prefix "$build/installed" > /dev/null
  local installed
  installed=$(cd "$build/installed" && find . -type f | sort | tr '\n' ' ')
  [[ $installed == "./bin/app " ]] || { echo "the consumer's install holds: $installed"; return 1; }
}

echo "== 3. add_subdirectory (configured and dry-run; 4 builds the same path)"
configure -S "$consumers/subproject" -B "$work/add_subdirectory" -DMLX_LITE_SOURCE="$root"
check_subproject_graph "$work/add_subdirectory"

echo "== 4. FetchContent"
git clone -q "$root" "$work/clone"
subproject fetch_content -DMLX_LITE_GIT="$work/clone"

echo "consumers 1, 2 and 4 built and ran; 3 configured"
