// Metal's 32-wide simdgroups in a custom kernel's GLSL, on any subgroup
// size: the simd_* helpers, the simdgroup thread attributes and the
// threadgroup_* helpers (reductions and scans over a whole threadgroup, on
// top of the simd layer). Pure text work: the device's facts come in
// SimdTarget. docs/custom_kernels.md ("Simdgroups") states the guarantees.
#pragma once

#include <absl/container/flat_hash_set.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mlx_lite::vulkan {

enum class SimdWidth : uint8_t {
  // Metal's: simdgroups of 32 threads on every device (the default).
  metal32,
  // The device's own subgroups (the kernel passed native_simdgroups): simd_*
  // are the subgroup operations, over gl_SubgroupSize threads.
  device,
};

struct SimdTarget {
  SimdWidth width = SimdWidth::metal32;
  // The pipeline's subgroups are 32 wide: the device's own size, or one the
  // pipeline requires (VK_EXT_subgroup_size_control). Else 32-wide
  // simdgroups are emulated with shared memory and barriers (lavapipe's
  // subgroups are 8): simdgroup s is then threads 32 s .. 32 s + 31 of
  // gl_LocalInvocationIndex, whatever the device's subgroups are.
  bool subgroups32 = true;
  bool float16 = false;  // float16_t arithmetic (its overloads compute in float)
};

// Every name this layer defines for the source (simd_*, threadgroup_*,
// simdgroup_barrier), for the checks on buffer and template names.
const std::vector<std::string_view>& simd_helper_names();

// The definition inside main() of simdgroup attribute `name`
// (thread_index_in_simdgroup, ...), or none for other names.
std::optional<std::string> simd_attribute(std::string_view name, const SimdTarget& target);

// The helpers the source (`used`: its identifiers) calls, with what they need.
std::string simd_helpers(const SimdTarget& target,
                         const absl::flat_hash_set<std::string_view>& used);

// Whether the source calls helpers whose calls synchronize the threadgroup
// (threadgroup_*, which contain barriers on every device): such a kernel
// runs whole threadgroups (its grid a multiple of its threadgroup).
bool uses_thread_exchange(const absl::flat_hash_set<std::string_view>& used);

// Whether the helpers it calls are emulated (then main() sets
// mlx_group_origin and mlx_whole_group before the source runs).
bool emulates_simdgroups(const SimdTarget& target,
                         const absl::flat_hash_set<std::string_view>& used);

// Whether it calls threadgroup_* (at most 1024 threads a threadgroup: 32 simdgroups).
bool uses_threadgroup_helpers(const absl::flat_hash_set<std::string_view>& used);

}  // namespace mlx_lite::vulkan
