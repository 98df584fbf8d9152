// Mesa's llvmpipe (lavapipe) stops a shader invocation after 65,535 loop
// iterations in total (LP_MAX_TGSI_LOOP_ITERATIONS), without an error: a
// custom kernel whose loop runs longer computes a silently wrong result.
// What can be said cheaply about that: whether the device is llvmpipe, and
// the largest constant a kernel's loop exits compare against.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace mlx_lite::vulkan {

inline constexpr uint64_t kLlvmpipeLoopCap = 65535;

// The loop-iteration cap of this process's Vulkan device, 0 for none.
uint64_t device_loop_cap();

// Says once per process, on stderr, that the device caps loops (nothing
// where it does not): when `verbose` (a call with verbose=true, whose
// stdout stays the GLSL alone) or when MLX_LITE_LOG is info or debug.
void note_loop_cap(bool verbose);

// The largest integer constant that a loop's exit condition compares against
// in `spirv` (`for (int i = 0; i < 100000; ++i)`, N from a template argument
// included), 0 when none: a bound the cap may cut short. Loops bounded by
// run-time values (shapes, strides) are not seen.
uint64_t largest_constant_loop_bound(std::span<const uint32_t> spirv);

}  // namespace mlx_lite::vulkan
