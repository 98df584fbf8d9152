// Simdgroup matrices in a custom kernel's GLSL, in the spirit of Metal's
// simdgroup_matrix: 16 x 16 tiles that a simdgroup loads, multiplies and
// stores together. On a device with matrix units they are the device's
// cooperative matrices (VK_NV_cooperative_matrix: float16 operands, float32
// accumulators, subgroup scope); elsewhere the library's fallback, in which
// every thread computes its own 2 x 4 block of a product with no exchange
// between threads, so it is right on any subgroup size. Pure text work:
// docs/custom_kernels.md ("Matrix units") states the contract.
#pragma once

#include <absl/container/flat_hash_set.h>

#include <string>
#include <string_view>
#include <vector>

#include "backend/vulkan/kernel_simd.h"

namespace mlx_lite::vulkan {

// The names this layer defines for the source (types and functions).
const std::vector<std::string_view>& simdgroup_matrix_names();

// Whether the source (its identifiers) uses simdgroup matrices.
bool uses_simdgroup_matrices(const absl::flat_hash_set<std::string_view>& used);

// The #extension lines the matrices need ("" for the fallback).
std::string simdgroup_matrix_extensions(bool matrix_units);

// The types, functions and macros: on the device's cooperative matrices
// where `matrix_units` (matrix_units.h decides), else the fallback, which
// takes from `simd` how a thread's lane is numbered (the subgroup's where
// simdgroups are 32-wide subgroups, else thread_index_in_threadgroup) and
// whether it may compute in float16 (then it stores float16 tiles and checks
// tile and memory dtypes, as the matrix units do).
std::string simdgroup_matrix_helpers(bool matrix_units, const SimdTarget& simd);

}  // namespace mlx_lite::vulkan
