/// \file
/// MLX's memory API (mlx/memory.h).
#pragma once

#include <cstddef>

namespace mlx_lite {

/// Bytes held by live arrays.
size_t get_active_memory();
/// The largest get_active_memory() since start or since reset_peak_memory().
size_t get_peak_memory();
/// Starts the peak over from the current get_active_memory().
void reset_peak_memory();
/// Bytes held in the allocator's cache of freed buffers, kept for reuse.
size_t get_cache_memory();
/// Sets the limit on active memory, returns the previous one. An allocation that
/// would pass it throws std::runtime_error instead of allocating.
size_t set_memory_limit(size_t limit);
/// The limit on active memory (by default none: the largest size_t).
size_t get_memory_limit();
/// Sets the most the cache may hold (default: a quarter of physical memory),
/// returns the previous limit; 0 disables caching.
size_t set_cache_limit(size_t limit);
/// Returns every cached buffer to the system, and empties the custom kernels'
/// caches of compiled kernels and pipelines (fast::set_kernel_cache_limit).
void clear_cache();

}  // namespace mlx_lite
