// Records GPU work. Each thread has its own encoder (encoder(stream)), as MLX
// keeps its command encoders thread-local: a thread's work goes into its own
// command buffers, so threads share no recording state and evaluate
// independent graphs at once. Work crossing threads is ordered by tickets
// (timeline.h): a dispatch that reads a buffer another thread's encoder is
// writing waits for that batch first.
//
// A kernel (backend/vulkan/<family>.cpp) records work with one call,
// dispatch(), giving the kernel, its specialization constants, its
// parameter struct, its shape block, the arrays it reads and writes in
// binding order, and the grid. The encoder alone decides where each part
// lives (the parameters in push constants, the shape block in a uniform
// buffer carved from the batch's arena) and when to submit: batches grow
// within an eval, the first after kFirstBatchDispatches dispatches, each
// next one twice as large, up to kMaxDispatches, so the GPU starts on an
// eval's first dispatches while the host records the rest, and a small eval
// is still one submit (MLX_LITE_FIRST_BATCH_DISPATCHES sets the first
// batch's size). A barrier goes in only before a dispatch that touches
// memory an earlier unbarriered dispatch wrote, or writes memory one read.
//
// While the thread times its GPU work (start_timing(), gpu::start_timing in
// mlx_lite/gpu.h), each batch is bracketed by timestamps (gpu_timer.h).
//
// A batch holds the data of the arrays its dispatches read until it
// completes (as MLX's command buffers do), so a buffer being read is never
// freed or written in place (donated) early; a buffer freed while a pending
// batch writes it reaches the allocator's cache once that batch completes.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <type_traits>
#include <vector>
#include <vulkan/vulkan_raii.hpp>

#include "backend/vulkan/kernel.h"
#include "backend/vulkan/pipelines.h"
#include "backend/vulkan/shape_block.h"
#include "mlx_lite/allocator.h"
#include "mlx_lite/array.h"
#include "mlx_lite/device.h"

namespace mlx_lite::vulkan {

class BatchTimer;
class Device;
class Timeline;
struct Block;

// An array a dispatch binds, read or written. Built-in kernels bind the
// array's whole buffer block (element offsets travel in their parameters);
// custom kernels bind from the view's first element, which their source
// indexes as 0.
struct Operand {
  const array& a;
  bool written;
  bool from_first_element = false;
};
inline Operand input(const array& a) {
  return {a, false};
}
inline Operand output(const array& a) {
  return {a, true};
}

// How many workgroups a dispatch runs.
class Grid {
 public:
  // n threads, in workgroups of the kernel's workgroup size; the workgroups
  // are folded into y past the device's x limit (common.glsl's thread_index
  // unfolds them).
  static Grid threads(uint64_t n) { return Grid(n, true); }
  // n workgroups, folded the same way (common.glsl's workgroup_index).
  static Grid workgroups(uint64_t n) { return Grid(n, false); }
  // Exactly these workgroups (the kernel unfolds what the caller folded).
  static Grid workgroups(std::array<uint32_t, 3> groups) {
    Grid g(0, false);
    g.exact_ = groups;
    return g;
  }

 private:
  friend class Encoder;
  Grid(uint64_t n, bool threads) : n_(n), threads_(threads) {}
  uint64_t n_;
  bool threads_;
  std::array<uint32_t, 3> exact_{0, 0, 0};
};

class Encoder {
 public:
  // 4, not 8: the GPU starts on an eval's first 4 dispatches while the
  // host records the rest (the tuned grid_sample VJP's 10 waited for 8 to be
  // recorded), and evals of up to 4 (sums, argmax) stay one submit. H200,
  // 2026-11-28: the VJP's wall time 1.04-1.07 ms against 1.10-1.15 ms with 8
  // (GPU time 0.99 ms both); a first batch of 1 split two-dispatch sums
  // (98 -> 113 us).
  static constexpr size_t kFirstBatchDispatches = 4;
  static constexpr size_t kMaxDispatches = 256;

  Encoder();
  ~Encoder();  // waits for the work it recorded
  Encoder(const Encoder&) = delete;
  Encoder& operator=(const Encoder&) = delete;

  // Records `kernel` over `grid`: specialization constant i is member i of
  // `spec`, the push constants hold `params`, binding 0 the shape block and
  // binding i + 1 operand i.
  template <class P, class S>
  void dispatch(const Kernel<P, S>& kernel, const S& spec, const P& params,
                const ShapeBlock& shapes, std::initializer_list<Operand> operands, Grid grid) {
    static_assert(sizeof(P) <= kPushConstantBytes && sizeof(P) % 4 == 0);
    static_assert(std::is_standard_layout_v<S> && sizeof(S) % 4 == 0 && sizeof(S) <= 64);
    std::array<uint32_t, sizeof(S) / 4> words;
    std::memcpy(words.data(), &spec, sizeof(S));
    dispatch(kernel.shader(), words, std::as_bytes(std::span(&params, 1)), shapes,
             std::span(operands.begin(), operands.size()), grid);
  }

  // The same, for a kernel whose interface is generated at run time (a
  // custom kernel): `params` are its push constants' bytes.
  void dispatch(const Shader& shader, std::span<const uint32_t> spec,
                std::span<const std::byte> params, const ShapeBlock& shapes,
                std::span<const Operand> operands, Grid grid);

  // Records a fill of out's first `bytes` bytes (a multiple of 4 within its
  // block) with the 32-bit `word` repeated (vkCmdFillBuffer), ordered like a
  // dispatch.
  void fill(const array& out, uint64_t bytes, uint32_t word);

  // Submits what was recorded and waits for all of it.
  void finish();
  // Submits what was recorded without waiting for it.
  void flush();
  // Waits until batch t of this encoder has completed (submitting it first
  // if it is still being recorded).
  void wait(uint64_t t);
  // Whether work was recorded or submitted that nobody has waited for.
  bool has_pending_work() const;

  // Times the batches recorded from now on: submits what was recorded
  // before, which is not timed. Throws std::logic_error when already timing.
  void start_timing();
  // Waits for all recorded work and returns the GPU nanoseconds the timed
  // batches took (gpu_timer.h). Throws std::logic_error when not timing.
  double stop_timing();

  const Timeline& timeline() const { return *timeline_; }
  // Takes `buffer`, which batch t of this encoder writes, to return it to
  // the allocator once t completes; false when t already has.
  bool defer(uint64_t t, allocator::Buffer buffer);

 private:
  struct Batch;
  struct Binding {
    vk::Buffer buffer;
    vk::DeviceSize offset, range;
    bool written;
  };

  Binding binding_of(const Operand& op) const;
  Binding shape_block_binding(const ShapeBlock& shapes);
  std::array<uint32_t, 3> workgroups(const Grid& grid, uint32_t group_size) const;
  void wait_for_other_writers(std::span<const Operand> operands);
  void track(std::span<const Operand> operands);
  void barrier_if_needed(std::span<const Binding> bindings);
  void open(Batch& batch);
  void begin_if_needed();
  void submit();
  void submit_if_full();
  void wait_batch(Batch& batch);
  void retire(Batch& batch);
  void abandon();

  Device& device_;
  std::shared_ptr<Timeline> timeline_;
  vk::raii::CommandPool pool_{nullptr};
  std::array<std::unique_ptr<Batch>, 2> batches_;
  size_t current_ = 0;
  bool recording_ = false;
  size_t recorded_ = 0;                // dispatches in the batch being recorded
  uint64_t submitted_ = 0;             // batches submitted so far (the last one's number)
  uint64_t waited_ = 0;                // the last batch known complete
  size_t first_batch_;                 // kFirstBatchDispatches, or MLX_LITE_FIRST_BATCH_DISPATCHES
  size_t batch_limit_;                 // first_batch_ again after each flush
  vk::Pipeline bound_;                 // the pipeline bound in the batch being recorded
  std::unique_ptr<BatchTimer> timer_;  // made by the first start_timing()
  bool timing_ = false;
  struct Region {
    vk::Buffer buffer;
    vk::DeviceSize begin, end;
  };
  std::vector<Region> written_, read_;  // since the last barrier
};

// The encoder that records the calling thread's work on the GPU stream `s`
// (one per thread, serving each of its GPU streams in recording order),
// created on first use and destroyed, once its work is done, with the thread.
Encoder& encoder(const Stream& s);

// The calling thread's encoder, or nullptr when it has recorded no GPU work.
Encoder* this_thread_encoder();

// The 32-bit word that Encoder::fill repeats to write copies of one element
// of `itemsize` bytes (1, 2, 4 or 8); none for an 8-byte element whose two
// halves differ.
std::optional<uint32_t> repeated_word(const void* element, size_t itemsize);

// Waits until the GPU work that last wrote `a`'s buffer has completed, on
// whichever thread's encoder it was recorded.
void wait_for_writer(const array& a);

// Whether GPU work recorded on any thread and not yet complete writes
// `buffer` (so what the host reads there may not be its value yet).
bool written_by_pending_work(const allocator::Buffer& buffer);

// For the allocator: takes `buffer` (being freed) to return it to the cache
// once the GPU work that writes it completes; false when none is pending.
bool defer_until_written(allocator::Buffer buffer);

}  // namespace mlx_lite::vulkan
