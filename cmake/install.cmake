# `cmake --install`: the library, its headers under include/mlx_lite/, the
# CMake package (lib/cmake/mlx_lite/) and the pkg-config file
# (lib/pkgconfig/mlx_lite.pc). Included from the top-level CMakeLists.txt.
include(CMakePackageConfigHelpers)

set(_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/mlx_lite)

install(TARGETS mlx_lite EXPORT mlx_liteTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(EXPORT mlx_liteTargets NAMESPACE mlx_lite:: DESTINATION ${_cmake_dir})
# The helper targets go in export sets of their own: the package loads each
# only where its framework is found.
foreach(_helper testing benchmark)
  if(TARGET mlx_lite_${_helper})
    install(TARGETS mlx_lite_${_helper} EXPORT mlx_lite_${_helper}Targets)
    install(EXPORT mlx_lite_${_helper}Targets NAMESPACE mlx_lite:: DESTINATION ${_cmake_dir})
  endif()
endforeach()

install(DIRECTORY ${PROJECT_SOURCE_DIR}/mlx_lite DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h"
        PATTERN "transforms/rules" EXCLUDE)

configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/mlx_liteConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/mlx_liteConfig.cmake
                              INSTALL_DESTINATION ${_cmake_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/mlx_liteConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/mlx_liteConfig.cmake
              ${PROJECT_BINARY_DIR}/mlx_liteConfigVersion.cmake
        DESTINATION ${_cmake_dir})

# pkg-config: a static library's own dependencies go to Libs.private and
# Requires.private, which `pkg-config --static` adds. glslang and
# spirv-cross-core ship no .pc file on Debian, so their archives are named
# in Libs.private, in the order their CMake targets link them (the
# pkg-config consumer of scripts/consumers.sh checks it).
if(BUILD_SHARED_LIBS)
  set(MLX_LITE_PC_REQUIRES_PRIVATE "")
  set(MLX_LITE_PC_LIBS_PRIVATE "")
else()
  set(MLX_LITE_PC_REQUIRES_PRIVATE "vulkan absl_flat_hash_map absl_flat_hash_set")
  set(MLX_LITE_PC_LIBS_PRIVATE
      "-lSPIRV -lglslang -lMachineIndependent -lOGLCompiler -lOSDependent -lGenericCodeGen -lSPIRV-Tools-opt -lSPIRV-Tools -lglslang-default-resource-limits -lspirv-cross-core -pthread")
endif()
# The prefix is found from the .pc file's own place, so an install moved or
# made with `cmake --install --prefix DIR` still points at itself.
file(RELATIVE_PATH MLX_LITE_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
configure_file(${CMAKE_CURRENT_LIST_DIR}/mlx_lite.pc.in ${PROJECT_BINARY_DIR}/mlx_lite.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/mlx_lite.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
