// The on-disk half of the custom-kernel cache: one file per kernel, named by
// its key, holding the generated GLSL and its SPIR-V with a checksum over
// both. What is read is verified (size, checksum, the GLSL it was compiled
// from, then SPIRV-Tools' validator) before anything parses it as SPIR-V: a
// damaged entry is reported once, deleted, and the kernel compiled again.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace mlx_lite::vulkan {

// The key of the kernel whose generated GLSL is `glsl` (32 hex digits: two
// 64-bit FNV-1a hashes of it and the compiler's version). A collision finds
// no wrong code: an entry holds its GLSL, which must match.
std::string kernel_cache_key(const std::string& glsl);

// The cache's directory (MLX_LITE_KERNEL_CACHE, else $XDG_CACHE_HOME or
// ~/.cache under mlx_lite/kernels), or empty when it is off.
std::filesystem::path kernel_cache_dir();

enum class EntryRead {
  hit,      // `spirv` holds the entry's code, verified
  missing,  // no entry, an entry of an older format, or another GLSL's (a key collision)
  damaged,  // a damaged entry: reported (once per file and process) and deleted
};

// Reads the entry at `path` for `glsl`.
EntryRead read_kernel_entry(const std::filesystem::path& path, const std::string& glsl,
                            std::vector<uint32_t>& spirv);

// Writes the entry (to a file of its own, renamed into place: processes
// sharing the directory see whole entries or none). An unwritable cache only
// costs a compile next time. SPIR-V the validator rejects is not written.
void write_kernel_entry(const std::filesystem::path& path, const std::string& glsl,
                        const std::vector<uint32_t>& spirv);

// Writes `bytes` to a file of its own beside `path`, renamed into place
// (processes sharing the directory see the whole file or none); creates the
// directory. A failure leaves no file behind and is not reported: the
// caches only lose an entry.
void write_file_atomically(const std::filesystem::path& path, std::string_view bytes);

// Empty when SPIRV-Tools' validator accepts `spirv` for Vulkan 1.2, else
// its first message.
std::string spirv_validation_error(const std::vector<uint32_t>& spirv);

}  // namespace mlx_lite::vulkan
