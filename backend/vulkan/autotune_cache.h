// Where fast::autotune_threadgroup keeps its choices: in memory for the
// process, and on disk beside the compiled kernels (kernel_cache_dir() /
// "autotune", so MLX_LITE_KERNEL_CACHE moves or disables both). One small
// text file per (device, kernel, key), written to a temporary file and
// renamed into place; what is read is checked (format, checksum, the device,
// kernel and key it was written for) and a damaged file is ignored with a
// warning, then replaced by the next choice made.
#pragma once

#include <array>
#include <filesystem>
#include <optional>
#include <string>

namespace mlx_lite::vulkan {

// What a choice is remembered by: the device (its name and driver), the
// kernel's name and the caller's key (shapes, dtypes...). Neither name nor
// key may hold a newline (the caller checks).
struct TuningKey {
  std::string device;
  std::string kernel;
  std::string key;
};

// The remembered threadgroup for `k`: from memory, else from its file (then
// kept in memory); nullopt when there is none or the file is damaged.
std::optional<std::array<int, 3>> find_tuning(const TuningKey& k);

// Remembers `threadgroup` for `k` in memory and, where the disk cache is on,
// in its file (an unwritable directory only costs a new tuning next time).
void remember_tuning(const TuningKey& k, const std::array<int, 3>& threadgroup);

// Forgets the choices held in memory; their files stay.
void forget_tunings_in_memory();

// The file that holds `k`'s choice; empty when the disk cache is off.
std::filesystem::path tuning_file(const TuningKey& k);

}  // namespace mlx_lite::vulkan
