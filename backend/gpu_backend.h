// The seam between the core and the GPU backend, so the core never includes
// Vulkan headers.
#pragma once

namespace mlx_lite::allocator {
class CachingAllocator;
}

namespace mlx_lite::gpu_backend {

// The allocator of Vulkan host-visible memory when this process can run GPU
// work (a Vulkan device exists and MLX_LITE_DEVICE is not "cpu"), else nullptr.
allocator::CachingAllocator* make_allocator();

// Whether GPU work runs on the GPU backend (true once make_allocator() gave one).
bool is_active();

// Submits the GPU work recorded so far and waits for it.
void finish();

// Submits the GPU work recorded so far without waiting for it.
void flush();

// Whether GPU work has been recorded and not yet finished.
bool has_pending_work();

}  // namespace mlx_lite::gpu_backend
