#include "mlx_lite/allocator.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <utility>

#include "backend/gpu_backend.h"
#include "mlx_lite/memory.h"

namespace mlx_lite::allocator {

namespace {

constexpr size_t kPage = 4096;
// Small requests round to this, so scalars stay small.
constexpr size_t kSmallGranule = 64;
// A cached block serves a request at most this many times smaller than it.
constexpr size_t kMaxWaste = 2;

size_t physical_memory() {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<size_t>(pages) * static_cast<size_t>(page)
                               : size_t{1} << 32;
}

size_t round_capacity(size_t size) {
  const size_t granule = size < kPage ? kSmallGranule : kPage;
  return std::max<size_t>((size + granule - 1) / granule * granule, granule);
}

// Host memory: each block starts with a 64-byte header holding its capacity;
// data follows at a 64-byte boundary for vector loads.
class CpuAllocator : public CachingAllocator {
 public:
  static constexpr size_t kHeader = 64;
  void* raw_ptr(Buffer buffer) override {
    return buffer.ptr() ? static_cast<char*>(buffer.ptr()) + kHeader : nullptr;
  }

 protected:
  void* allocate_block(size_t capacity) override {
    void* raw = std::aligned_alloc(kHeader, kHeader + capacity);
    if (raw != nullptr) *static_cast<size_t*>(raw) = capacity;
    return raw;
  }
  void release_block(void* block) override { std::free(block); }
  size_t block_capacity(const void* block) const override {
    return block ? *static_cast<const size_t*>(block) : 0;
  }
};

}  // namespace

CachingAllocator::CachingAllocator()
    : limit_(std::numeric_limits<size_t>::max()), cache_limit_(physical_memory() / 4) {}

Buffer CachingAllocator::malloc(size_t size) {
  const size_t capacity = round_capacity(size);
  std::lock_guard lock(mutex_);
  void* block = take_cached(capacity);
  if (block == nullptr) {
    if (active_ + capacity > limit_) {
      throw std::runtime_error(fmt::format(
          "[malloc] Allocating {} bytes would exceed the memory limit of {} bytes ({} in use).",
          size, limit_, active_));
    }
    block = allocate_block(capacity);
    if (block == nullptr) {
      release_cache(0);  // give the cache back and try once more
      block = allocate_block(capacity);
    }
    if (block == nullptr) {
      throw std::runtime_error(fmt::format(
          "[malloc] Unable to allocate {} bytes ({} in use, out of memory).", size, active_));
    }
    ++blocks_allocated_;
  }
  active_ += block_capacity(block);
  peak_ = std::max(peak_, active_);
  return Buffer(block);
}

void CachingAllocator::free(Buffer buffer) {
  if (buffer.ptr() == nullptr || defer(buffer)) return;
  release(buffer);
}

void CachingAllocator::release(Buffer buffer) {
  std::lock_guard lock(mutex_);
  const size_t capacity = block_capacity(buffer.ptr());
  active_ -= capacity;
  if (capacity > cache_limit_) {
    release_block(buffer.ptr());
    return;
  }
  cache_.emplace(capacity, buffer.ptr());
  cached_ += capacity;
  release_cache(cache_limit_);
}

void* CachingAllocator::take_cached(size_t capacity) {
  auto it = cache_.lower_bound(capacity);
  if (it == cache_.end() || it->first > capacity * kMaxWaste) return nullptr;
  if (active_ + it->first > limit_) return nullptr;
  void* block = it->second;
  cached_ -= it->first;
  cache_.erase(it);
  return block;
}

void CachingAllocator::release_cache(size_t keep) {
  while (cached_ > keep && !cache_.empty()) {
    auto it = std::prev(cache_.end());  // largest first
    cached_ -= it->first;
    release_block(it->second);
    cache_.erase(it);
  }
}

size_t CachingAllocator::active_memory() {
  std::lock_guard lock(mutex_);
  return active_;
}
size_t CachingAllocator::blocks_allocated() {
  std::lock_guard lock(mutex_);
  return blocks_allocated_;
}
size_t CachingAllocator::peak_memory() {
  std::lock_guard lock(mutex_);
  return peak_;
}
void CachingAllocator::reset_peak_memory() {
  std::lock_guard lock(mutex_);
  peak_ = active_;
}
size_t CachingAllocator::cache_memory() {
  std::lock_guard lock(mutex_);
  return cached_;
}
size_t CachingAllocator::set_memory_limit(size_t limit) {
  std::lock_guard lock(mutex_);
  return std::exchange(limit_, limit);
}
size_t CachingAllocator::memory_limit() {
  std::lock_guard lock(mutex_);
  return limit_;
}
size_t CachingAllocator::set_cache_limit(size_t limit) {
  std::lock_guard lock(mutex_);
  size_t old = std::exchange(cache_limit_, limit);
  release_cache(limit);
  return old;
}
void CachingAllocator::clear_cache() {
  std::lock_guard lock(mutex_);
  release_cache(0);
}

CachingAllocator& allocator() {
  // Never destroyed: arrays may outlive main.
  static CachingAllocator* a = [] {
    CachingAllocator* gpu = gpu_backend::make_allocator();
    return gpu ? gpu : static_cast<CachingAllocator*>(new CpuAllocator());
  }();
  return *a;
}

void* Buffer::raw_ptr() {
  return allocator().raw_ptr(*this);
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
  return allocator::allocator().active_memory();
}
size_t get_peak_memory() {
  return allocator::allocator().peak_memory();
}
void reset_peak_memory() {
  allocator::allocator().reset_peak_memory();
}
size_t get_cache_memory() {
  return allocator::allocator().cache_memory();
}
size_t set_memory_limit(size_t limit) {
  return allocator::allocator().set_memory_limit(limit);
}
size_t get_memory_limit() {
  return allocator::allocator().memory_limit();
}
size_t set_cache_limit(size_t limit) {
  return allocator::allocator().set_cache_limit(limit);
}
void clear_cache() {
  allocator::allocator().clear_cache();
  gpu_backend::clear_kernel_caches();
}

}  // namespace mlx_lite
