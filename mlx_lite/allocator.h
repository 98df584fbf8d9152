/// \file
/// Memory for array data. One allocator serves the whole process: Vulkan
/// host-visible memory when GPU work is possible (so CPU and GPU kernels share
/// buffers, as on unified-memory machines), else plain host memory. Both cache
/// freed blocks and keep the accounting behind the memory API (memory.h).
#pragma once

#include <cstddef>
#include <map>
#include <mutex>

/// Memory for array data: the process's allocator and its buffers.
namespace mlx_lite::allocator {

/// An opaque handle to one allocation; raw_ptr() is its host address.
class Buffer {
 public:
  /// Wraps the allocator's handle `ptr` (null for no allocation).
  explicit Buffer(void* ptr) : ptr_(ptr) {}
  /// The host address of the allocation's first byte.
  void* raw_ptr();
  /// The allocator's handle, which need not be a host address.
  /// @{
  void* ptr() { return ptr_; }
  const void* ptr() const { return ptr_; }
  /// @}

 private:
  void* ptr_;
};

/// The interface of an allocator of buffers, as MLX's.
class Allocator {
 public:
  virtual ~Allocator() = default;
  /// A buffer of at least `size` bytes. Throws std::runtime_error when it
  /// cannot be had.
  virtual Buffer malloc(size_t size) = 0;
  /// Gives back a buffer malloc() returned; a null buffer is ignored.
  virtual void free(Buffer buffer) = 0;
  /// The bytes `buffer` can hold, at least what malloc() was asked for.
  virtual size_t size(Buffer buffer) const = 0;
  /// The host address of `buffer`'s first byte.
  virtual void* raw_ptr(Buffer buffer) = 0;
};

/// Caching and accounting over blocks that a backend provides. A block is an
/// opaque handle; freed blocks are kept (up to the cache limit) and handed out
/// again for requests up to 2x smaller, so a steady state of same-sized arrays
/// allocates nothing from the system or the driver.
class CachingAllocator : public Allocator {
 public:
  /// A cached block when one fits, else a new one (after emptying the cache
  /// once if the backend is out of memory). Throws std::runtime_error naming
  /// the size when the memory limit or the backend refuses it.
  Buffer malloc(size_t size) final;
  /// Returns the block to the cache, or hands it to the backend when work in
  /// flight may still use it (defer); the backend then calls release().
  void free(Buffer buffer) final;
  /// Returns the block to the cache at once (a block larger than the cache
  /// limit goes back to the backend).
  void release(Buffer buffer);
  /// The block's capacity in bytes.
  size_t size(Buffer buffer) const final { return block_capacity(buffer.ptr()); }

  /// Bytes in blocks handed out and not freed (get_active_memory()).
  size_t active_memory();
  /// The largest active_memory() since the start or reset_peak_memory().
  size_t peak_memory();
  /// Makes the peak the current active_memory().
  void reset_peak_memory();
  /// Bytes in cached blocks (get_cache_memory()).
  size_t cache_memory();
  /// Calls of allocate_block() since the start (requests the cache could not
  /// serve): constant in a steady loop, else the cache churns.
  size_t blocks_allocated();
  /// Sets the limit on active memory, returns the previous one (memory.h).
  size_t set_memory_limit(size_t limit);
  /// The limit on active memory.
  size_t memory_limit();
  /// Sets the most the cache may hold, returns the previous limit; the cache
  /// shrinks to it at once (memory.h).
  size_t set_cache_limit(size_t limit);
  /// Returns every cached block to the backend.
  void clear_cache();

 protected:
  /// A new block of exactly `capacity` bytes, or nullptr when out of memory.
  virtual void* allocate_block(size_t capacity) = 0;
  /// Gives a block back to the backend for good.
  virtual void release_block(void* block) = 0;
  /// The capacity `block` was allocated with (0 for a null block).
  virtual size_t block_capacity(const void* block) const = 0;
  /// Whether the backend took `buffer` to release() once its work completes.
  virtual bool defer(Buffer) { return false; }

 private:
  void* take_cached(size_t capacity);
  void release_cache(size_t keep);

  std::mutex mutex_;
  std::multimap<size_t, void*> cache_;  // capacity -> block
  size_t active_ = 0;
  size_t peak_ = 0;
  size_t cached_ = 0;
  size_t blocks_allocated_ = 0;
  size_t limit_;
  size_t cache_limit_;

 public:
  /// No memory limit; a cache limit of a quarter of physical memory.
  CachingAllocator();
};

/// The process's allocator (chosen on first use).
CachingAllocator& allocator();

/// Allocates `size` bytes; throws std::runtime_error naming the size when the
/// memory limit or the system refuses it.
Buffer malloc(size_t size);
/// Frees a buffer malloc() returned (the default Deleter of arrays).
void free(Buffer buffer);

}  // namespace mlx_lite::allocator
