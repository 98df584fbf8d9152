// How GPU work is waited for across threads. Each thread records its GPU work
// in its own encoder (encoder.h), whose batches are numbered 1, 2, ... on a
// Vulkan timeline semaphore: batch t signals value t when it completes. A
// buffer remembers the batch that last wrote it (Block::writer), so a reader
// on any thread (the host, a CPU kernel, another thread's encoder) waits for
// exactly that work, and a buffer freed before its writer completed reaches
// the allocator's cache only once it has.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>
#include <vulkan/vulkan_raii.hpp>

#include "mlx_lite/allocator.h"

namespace mlx_lite::vulkan {

struct Block;

// An encoder's batch counter, shared with the threads that wait on it.
class Timeline {
 public:
  Timeline();
  ~Timeline();
  Timeline(const Timeline&) = delete;
  Timeline& operator=(const Timeline&) = delete;

  // Unique in the process, never reused (a buffer's writer names it).
  uint64_t id() const { return id_; }
  vk::Semaphore semaphore() const { return *semaphore_; }

  // Whether batch t has completed; waits until it has (t may not be
  // submitted yet: a timeline semaphore can be waited on before its signal).
  bool reached(uint64_t t) const;
  void wait(uint64_t t) const;

  // `buffer` (freed by another thread) goes back to the allocator once
  // batch t completes; release_reached() returns those whose batch has.
  void defer(uint64_t t, allocator::Buffer buffer);
  void release_reached();
  // Leaves the semaphore to the process's end: work that outlived
  // MLX_LITE_GPU_TIMEOUT may still signal it.
  void abandon() { semaphore_.release(); }

  // Whether its encoder has work recorded or submitted that nobody waited
  // for (the owner sets it).
  std::atomic<bool> pending{false};

 private:
  bool spin_until(uint64_t t) const;

  uint64_t id_;
  vk::raii::Semaphore semaphore_{nullptr};
  std::mutex mutex_;
  std::vector<std::pair<uint64_t, allocator::Buffer>> deferred_;
};

// The timelines of the encoders that exist, by id.
std::shared_ptr<Timeline> new_timeline();
void remove_timeline(uint64_t id);
std::shared_ptr<Timeline> find_timeline(uint64_t id);
bool any_timeline_pending();

}  // namespace mlx_lite::vulkan
