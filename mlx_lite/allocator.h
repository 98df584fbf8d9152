// Memory for array data. The CPU allocator tracks active and peak bytes and
// enforces the memory limit; the Vulkan backend brings its own allocator.
#pragma once

#include <cstddef>

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
};

Allocator& allocator();

// Allocates `size` bytes; throws std::runtime_error naming the size when the
// memory limit or the system refuses it.
Buffer malloc(size_t size);
void free(Buffer buffer);

}  // namespace mlx_lite::allocator
