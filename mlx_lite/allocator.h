// Memory for array data. One allocator serves the whole process: Vulkan
// host-visible memory when GPU work is possible (so CPU and GPU kernels share
// buffers, as on unified-memory machines), else plain host memory. Both cache
// freed blocks and keep the accounting behind the memory API (memory.h).
#pragma once

#include <cstddef>
#include <map>
#include <mutex>

namespace mlx_lite::allocator {

// An opaque handle to one allocation; raw_ptr() is its host address.
class Buffer {
 public:
  explicit Buffer(void* ptr) : ptr_(ptr) {}
  void* raw_ptr();
  void* ptr() { return ptr_; }
  const void* ptr() const { return ptr_; }

 private:
  void* ptr_;
};

class Allocator {
 public:
  virtual ~Allocator() = default;
  virtual Buffer malloc(size_t size) = 0;
  virtual void free(Buffer buffer) = 0;
  virtual size_t size(Buffer buffer) const = 0;
  virtual void* raw_ptr(Buffer buffer) = 0;
};

// Caching and accounting over blocks that a backend provides. A block is an
// opaque handle; freed blocks are kept (up to the cache limit) and handed out
// again for requests up to 2x smaller, so a steady state of same-sized arrays
// allocates nothing from the system or the driver.
class CachingAllocator : public Allocator {
 public:
  Buffer malloc(size_t size) final;
  // Returns the block to the cache, or hands it to the backend when work in
  // flight may still use it (defer); the backend then calls release().
  void free(Buffer buffer) final;
  void release(Buffer buffer);
  size_t size(Buffer buffer) const final { return block_capacity(buffer.ptr()); }

  size_t active_memory();
  size_t peak_memory();
  void reset_peak_memory();
  size_t cache_memory();
  // Calls of allocate_block() since the start (requests the cache could not
  // serve): constant in a steady loop, else the cache churns.
  size_t blocks_allocated();
  size_t set_memory_limit(size_t limit);
  size_t memory_limit();
  size_t set_cache_limit(size_t limit);
  void clear_cache();

 protected:
  // A new block of exactly `capacity` bytes, or nullptr when out of memory.
  virtual void* allocate_block(size_t capacity) = 0;
  virtual void release_block(void* block) = 0;
  virtual size_t block_capacity(const void* block) const = 0;
  // Whether the backend took `buffer` to release() once its work completes.
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
  CachingAllocator();
};

// The process's allocator (chosen on first use).
CachingAllocator& allocator();

// Allocates `size` bytes; throws std::runtime_error naming the size when the
// memory limit or the system refuses it.
Buffer malloc(size_t size);
void free(Buffer buffer);

}  // namespace mlx_lite::allocator
