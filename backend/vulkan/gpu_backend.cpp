// The Vulkan backend behind backend/gpu_backend.h.
#include "backend/gpu_backend.h"

#include "backend/vulkan/allocator.h"
#include "backend/vulkan/device.h"
#include "backend/vulkan/encoder.h"
#include "backend/vulkan/kernel_compiler.h"
#include "backend/vulkan/timeline.h"
#include "mlx_lite/device.h"

namespace mlx_lite::gpu_backend {

namespace {
bool& active() {
  static bool a = false;
  return a;
}
}  // namespace

allocator::CachingAllocator* make_allocator() {
  if (detail::device_setting() == "cpu") return nullptr;
  if (!vulkan::Device::available()) return nullptr;
  active() = true;
  return vulkan::make_vulkan_allocator();
}

bool is_active() {
  allocator::allocator();  // the choice is made with the allocator
  return active();
}

void wait_for(const array& a) {
  if (is_active()) vulkan::wait_for_writer(a);
}

void finish() {
  if (auto* e = vulkan::this_thread_encoder()) e->finish();
}

void flush() {
  if (auto* e = vulkan::this_thread_encoder()) e->flush();
}

bool has_pending_work() {
  return is_active() && vulkan::any_timeline_pending();
}

void clear_kernel_caches() {
  if (is_active()) vulkan::clear_kernel_caches();
}

}  // namespace mlx_lite::gpu_backend
