/// \file
/// The library's version. CMakeLists.txt reads the MAJOR, MINOR and PATCH
/// lines for the project's version, the CMake package's and the pkg-config
/// file's.
#pragma once

#define MLX_LITE_VERSION_MAJOR 0  ///< The major version of these headers.
#define MLX_LITE_VERSION_MINOR 1  ///< The minor version of these headers.
#define MLX_LITE_VERSION_PATCH 0  ///< The patch version of these headers.
/// One number that orders versions: 10000 * major + 100 * minor + patch.
#define MLX_LITE_VERSION_NUMERIC \
  (10000 * MLX_LITE_VERSION_MAJOR + 100 * MLX_LITE_VERSION_MINOR + MLX_LITE_VERSION_PATCH)

namespace mlx_lite {

/// "major.minor.patch" of the library that was linked, which may differ from
/// the macros above if a program was compiled against other headers.
const char* version();

}  // namespace mlx_lite
