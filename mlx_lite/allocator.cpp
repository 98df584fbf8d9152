#include "mlx_lite/allocator.h"

#include <fmt/format.h>

#include <atomic>
#include <cstdlib>
#include <limits>
#include <stdexcept>

#include "mlx_lite/memory.h"

namespace mlx_lite::allocator {

namespace {

// Each allocation starts with a header recording its size, so free() can
// account for it; data follows at a 64-byte boundary for vector loads.
constexpr size_t kHeader = 64;

class CpuAllocator : public Allocator {
 public:
  Buffer malloc(size_t size) override {
    size_t active = active_.fetch_add(size) + size;
    if (active > limit_.load()) {
      active_.fetch_sub(size);
      throw std::runtime_error(fmt::format(
          "[malloc] Allocating {} bytes would exceed the memory limit of {} bytes ({} in use).",
          size, limit_.load(), active - size));
    }
    void* raw = std::aligned_alloc(kHeader, kHeader + ((size + kHeader - 1) / kHeader) * kHeader);
    if (raw == nullptr) {
      active_.fetch_sub(size);
      throw std::runtime_error(fmt::format("[malloc] Unable to allocate {} bytes.", size));
    }
    *static_cast<size_t*>(raw) = size;
    size_t peak = peak_.load();
    while (active > peak && !peak_.compare_exchange_weak(peak, active)) {
    }
    return Buffer(raw);
  }

  void free(Buffer buffer) override {
    if (buffer.ptr() == nullptr) return;
    active_.fetch_sub(size(buffer));
    std::free(buffer.ptr());
  }

  size_t size(Buffer buffer) const override {
    return buffer.ptr() ? *static_cast<const size_t*>(buffer.ptr()) : 0;
  }

  std::atomic<size_t> active_{0};
  std::atomic<size_t> peak_{0};
  std::atomic<size_t> limit_{std::numeric_limits<size_t>::max()};
};

CpuAllocator& cpu_allocator() {
  static CpuAllocator* a = new CpuAllocator();  // never destroyed: arrays may outlive main
  return *a;
}

}  // namespace

void* Buffer::raw_ptr() {
  return ptr_ ? static_cast<char*>(ptr_) + kHeader : nullptr;
}

Allocator& allocator() {
  return cpu_allocator();
}
Buffer malloc(size_t size) {
  return allocator().malloc(size);
}
void free(Buffer buffer) {
  allocator().free(buffer);
}

}  // namespace mlx_lite::allocator

namespace mlx_lite {

size_t get_active_memory() {
  return allocator::cpu_allocator().active_.load();
}
size_t get_peak_memory() {
  return allocator::cpu_allocator().peak_.load();
}
void reset_peak_memory() {
  allocator::cpu_allocator().peak_.store(get_active_memory());
}
size_t get_cache_memory() {
  return 0;
}
size_t set_memory_limit(size_t limit) {
  return allocator::cpu_allocator().limit_.exchange(limit);
}
size_t get_memory_limit() {
  return allocator::cpu_allocator().limit_.load();
}
size_t set_cache_limit(size_t) {
  return 0;
}
void clear_cache() {}

}  // namespace mlx_lite
