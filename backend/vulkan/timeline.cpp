#include "backend/vulkan/timeline.h"

#include <absl/container/flat_hash_map.h>
#include <fmt/format.h>

#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

#include "backend/vulkan/device.h"
#include "backend/vulkan/gpu_timeout.h"

namespace mlx_lite::vulkan {

namespace {

struct Registry {
  std::mutex mutex;
  absl::flat_hash_map<uint64_t, std::shared_ptr<Timeline>> timelines;
};

Registry& registry() {
  static Registry* r = new Registry();  // lives until exit, as the device
  return *r;
}

uint64_t next_id() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace

Timeline::Timeline() : id_(next_id()) {
  vk::SemaphoreTypeCreateInfo type(vk::SemaphoreType::eTimeline, 0);
  semaphore_ = vk::raii::Semaphore(Device::get().device(), vk::SemaphoreCreateInfo({}, &type));
}

Timeline::~Timeline() {
  release_reached();
}

bool Timeline::reached(uint64_t t) const {
  return semaphore_.getCounterValue() >= t;
}

// Polls for up to gpu_spin_ns() (gpu_timeout.h says why) before the caller
// sleeps in the driver; whether batch t completed meanwhile.
bool Timeline::spin_until(uint64_t t) const {
  static const uint64_t spin = gpu_spin_ns(Device::get().on_cpu());
  if (spin == 0) return false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::nanoseconds(spin);
  do {
    if (reached(t)) return true;
    std::this_thread::yield();  // a thread that is ready to run gets the core
  } while (std::chrono::steady_clock::now() < deadline);
  return false;
}

void Timeline::wait(uint64_t t) const {
  auto& device = Device::get();
  if (reached(t)) return;
  device.throw_if_hung();  // that work may sit behind the work that hung
  if (spin_until(t)) return;
  const std::optional<uint64_t> timeout = gpu_timeout_ns();
  vk::Semaphore s = *semaphore_;
  vk::Result result;
  try {
    result = device.device().waitSemaphores(vk::SemaphoreWaitInfo({}, s, t),
                                            timeout.value_or(UINT64_MAX));
  } catch (const vk::DeviceLostError& e) {
    throw std::runtime_error(fmt::format(
        "[gpu] The Vulkan device was lost while running GPU work ({}). Arrays computed by that "
        "work hold undefined data, and later GPU work fails; the CPU device keeps working.",
        e.what()));
  }
  if (result == vk::Result::eTimeout) {
    const std::string why = fmt::format(
        "it ran past MLX_LITE_GPU_TIMEOUT={} s and may still be running: Vulkan cannot stop a "
        "dispatch",
        *timeout / 1e9);
    device.mark_hung(why);
    throw std::runtime_error(fmt::format(
        "[gpu] GPU work did not finish: {}. Arrays computed by it hold undefined data and the GPU "
        "is unusable for the rest of this process; the CPU device keeps working. Raise or unset "
        "MLX_LITE_GPU_TIMEOUT for work that legitimately takes longer.",
        why));
  }
  if (result != vk::Result::eSuccess) {
    throw std::runtime_error("[gpu] Waiting for the GPU failed: " + vk::to_string(result));
  }
}

void Timeline::defer(uint64_t t, allocator::Buffer buffer) {
  std::lock_guard lock(mutex_);
  deferred_.emplace_back(t, buffer);
}

void Timeline::release_reached() {
  std::vector<allocator::Buffer> done;
  {
    std::lock_guard lock(mutex_);
    if (deferred_.empty()) return;
    const uint64_t value = semaphore_.getCounterValue();
    std::erase_if(deferred_, [&](const auto& d) {
      if (d.first > value) return false;
      done.push_back(d.second);
      return true;
    });
  }
  for (auto buffer : done) allocator::allocator().release(buffer);
}

std::shared_ptr<Timeline> new_timeline() {
  auto t = std::make_shared<Timeline>();
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  r.timelines.emplace(t->id(), t);
  return t;
}

void remove_timeline(uint64_t id) {
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  r.timelines.erase(id);
}

std::shared_ptr<Timeline> find_timeline(uint64_t id) {
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  auto it = r.timelines.find(id);
  return it == r.timelines.end() ? nullptr : it->second;
}

bool any_timeline_pending() {
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  for (const auto& [id, t] : r.timelines) {
    if (t->pending.load()) return true;
  }
  return false;
}

}  // namespace mlx_lite::vulkan
