#include "mlx_lite/allocator.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <map>
#include <mutex>
#include <stdexcept>
#include <utility>

#include "mlx_lite/memory.h"

namespace mlx_lite::allocator {

namespace {

// Each allocation starts with a header recording its capacity, so free() can
// account for it; data follows at a 64-byte boundary for vector loads.
constexpr size_t kHeader = 64;
// Capacities are rounded up to a page (to the header size when small), so
// nearby sizes share cached blocks and scalars stay small.
constexpr size_t kPage = 4096;
// A cached block serves a request at most this many times smaller than it.
constexpr size_t kMaxWaste = 2;

size_t physical_memory() {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<size_t>(pages) * static_cast<size_t>(page)
                               : size_t{1} << 32;
}

// malloc with a cache of freed blocks, as MLX's allocators keep: a steady
// state of same-sized arrays (a training step, a benchmark loop) reuses
// blocks instead of asking the system, whose fresh pages fault on first touch.
class CpuAllocator : public Allocator {
 public:
  Buffer malloc(size_t size) override {
    const size_t granule = size < kPage ? kHeader : kPage;
    const size_t capacity = std::max<size_t>((size + granule - 1) / granule * granule, granule);
    std::lock_guard lock(mutex_);
    void* raw = take_cached(capacity);
    if (raw == nullptr) {
      if (active_ + capacity > limit_) {
        throw std::runtime_error(fmt::format(
            "[malloc] Allocating {} bytes would exceed the memory limit of {} bytes ({} in use).",
            size, limit_, active_));
      }
      raw = std::aligned_alloc(kHeader, kHeader + capacity);
      if (raw == nullptr) {
        release_cache(0);
        raw = std::aligned_alloc(kHeader, kHeader + capacity);
      }
      if (raw == nullptr) {
        throw std::runtime_error(fmt::format("[malloc] Unable to allocate {} bytes.", size));
      }
      *static_cast<size_t*>(raw) = capacity;
    }
    active_ += *static_cast<size_t*>(raw);
    peak_ = std::max(peak_, active_);
    return Buffer(raw);
  }

  void free(Buffer buffer) override {
    if (buffer.ptr() == nullptr) return;
    std::lock_guard lock(mutex_);
    const size_t capacity = size(buffer);
    active_ -= capacity;
    if (capacity > cache_limit_) {
      std::free(buffer.ptr());
      return;
    }
    cache_.emplace(capacity, buffer.ptr());
    cached_ += capacity;
    release_cache(cache_limit_);
  }

  size_t size(Buffer buffer) const override {
    return buffer.ptr() ? *static_cast<const size_t*>(buffer.ptr()) : 0;
  }

  // The memory API reads and sets these under the lock.
  template <typename F>
  auto locked(F f) {
    std::lock_guard lock(mutex_);
    return f(*this);
  }

  void release_cache(size_t keep) {
    while (cached_ > keep && !cache_.empty()) {
      auto it = std::prev(cache_.end());  // largest first
      cached_ -= it->first;
      std::free(it->second);
      cache_.erase(it);
    }
  }

  size_t active_ = 0;
  size_t peak_ = 0;
  size_t cached_ = 0;
  size_t limit_ = std::numeric_limits<size_t>::max();
  size_t cache_limit_ = physical_memory() / 4;

 private:
  void* take_cached(size_t capacity) {
    auto it = cache_.lower_bound(capacity);
    if (it == cache_.end() || it->first > capacity * kMaxWaste) return nullptr;
    if (active_ + it->first > limit_) return nullptr;
    void* raw = it->second;
    cached_ -= it->first;
    cache_.erase(it);
    return raw;
  }

  std::mutex mutex_;
  std::multimap<size_t, void*> cache_;  // capacity -> block
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

using allocator::cpu_allocator;
using allocator::CpuAllocator;

size_t get_active_memory() {
  return cpu_allocator().locked([](CpuAllocator& a) { return a.active_; });
}
size_t get_peak_memory() {
  return cpu_allocator().locked([](CpuAllocator& a) { return a.peak_; });
}
void reset_peak_memory() {
  cpu_allocator().locked([](CpuAllocator& a) { return a.peak_ = a.active_; });
}
size_t get_cache_memory() {
  return cpu_allocator().locked([](CpuAllocator& a) { return a.cached_; });
}
size_t set_memory_limit(size_t limit) {
  return cpu_allocator().locked(
      [limit](CpuAllocator& a) { return std::exchange(a.limit_, limit); });
}
size_t get_memory_limit() {
  return cpu_allocator().locked([](CpuAllocator& a) { return a.limit_; });
}
size_t set_cache_limit(size_t limit) {
  return cpu_allocator().locked([limit](CpuAllocator& a) {
    size_t old = std::exchange(a.cache_limit_, limit);
    a.release_cache(limit);
    return old;
  });
}
void clear_cache() {
  cpu_allocator().locked([](CpuAllocator& a) {
    a.release_cache(0);
    return 0;
  });
}

}  // namespace mlx_lite
