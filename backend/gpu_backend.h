// The seam between the core and the GPU backend, so the core never includes
// Vulkan headers. GPU work is recorded per thread (backend/vulkan/encoder.h);
// these calls act on the calling thread's work unless they say otherwise.
#pragma once

namespace mlx_lite {
class array;
}

namespace mlx_lite::allocator {
class CachingAllocator;
}

namespace mlx_lite::gpu_backend {

// The allocator of Vulkan host-visible memory when this process can run GPU
// work (a Vulkan device exists and MLX_LITE_DEVICE is not "cpu"), else nullptr.
allocator::CachingAllocator* make_allocator();

// Whether GPU work runs on the GPU backend (true once make_allocator() gave one).
bool is_active();

// Waits until the GPU work that writes `a`'s data (on any thread) has
// completed, so the host or a CPU kernel may read it or write it.
void wait_for(const array& a);

// Submits the GPU work this thread recorded and waits for it.
void finish();

// Submits the GPU work this thread recorded without waiting for it.
void flush();

// Whether GPU work has been recorded and not yet waited for, on any thread.
bool has_pending_work();

// Empties the custom kernels' caches of compiled kernels and pipelines (for
// mlx_lite::clear_cache()).
void clear_kernel_caches();

}  // namespace mlx_lite::gpu_backend
