// Records GPU work into command buffers and submits them in batches that
// grow within an eval: the first after kFirstBatchDispatches dispatches, each
// next one twice as large, up to kMaxDispatches (so the buffers held back for
// pending work stay bounded). The GPU starts on an eval's first dispatches
// while the host records the rest, instead of idling until all of it is
// recorded; a small eval is still one submit. MLX_LITE_FIRST_BATCH_DISPATCHES
// sets the first batch's size (256: batches of 256 from the start).
// Kernels (backend/vulkan/<family>.cpp) call dispatch() with their shader,
// specialization constants and buffers; the encoder inserts a barrier only
// before a dispatch that touches memory an earlier unbarriered dispatch wrote
// (or writes memory one read). A buffer freed while work is pending comes
// back here (release_after_work) and returns to the allocator's cache when
// that work completes, so kernels may drop their temporaries at once.
#pragma once

#include <absl/container/flat_hash_map.h>

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>
#include <vulkan/vulkan_raii.hpp>

#include "backend/vulkan/metadata_head.h"
#include "mlx_lite/allocator.h"
#include "mlx_lite/array.h"

namespace mlx_lite::vulkan {

class Device;

struct Binding {
  vk::Buffer buffer;
  vk::DeviceSize offset;
  vk::DeviceSize range;
  bool written;
  // Metadata (Encoder::metadata) only: which copy of its first words the
  // dispatch pushes as push constants; -1 for arrays.
  int32_t head = -1;
  uint64_t head_batch = 0;  // the batch (count of submits before it) that holds it
};

// The array's whole block, bound for reading (inputs) or writing (outputs).
// Element offsets of views travel in the kernel's metadata, not here.
Binding input_binding(const array& a);
Binding output_binding(const array& a);

class Encoder {
 public:
  static constexpr size_t kFirstBatchDispatches = 8;
  static constexpr size_t kMaxDispatches = 256;

  static Encoder& get();

  // Records `threads` invocations (1-D; the host folds widths past the
  // device's workgroup-count limit into y) of the built-in shader `shader`
  // with specialization constants spec[i] at constant_id i (spec[0] is the
  // workgroup size). Binding i of set 0 is bindings[i].
  void dispatch(const std::string& shader, const std::vector<uint32_t>& spec,
                const std::vector<Binding>& bindings, uint64_t threads);

  // Records `groups` workgroups of a kernel compiled at run time (a custom
  // kernel): `code` is its SPIR-V and `name` names its pipelines, one per
  // `spec` (specialization constant i at constant_id i).
  void dispatch_groups(const std::string& name, std::span<const uint32_t> code,
                       const std::vector<uint32_t>& spec, const std::vector<Binding>& bindings,
                       const std::array<uint32_t, 3>& groups);

  // Records a fill of `target` (offset and range multiples of 4) with the
  // 32-bit `word` repeated (vkCmdFillBuffer), ordered like a dispatch.
  void fill(const Binding& target, uint32_t word);

  // A small readonly buffer holding `words`, alive until the work completes;
  // its first kMetadataHeadWords words are also the push constants of the
  // dispatches it is bound to (shaders read them from there: common.glsl's
  // meta_at, custom kernels' metadata block). Call it before dispatch(): a
  // full batch is submitted here, never between it and the dispatches.
  Binding metadata(const std::vector<int64_t>& words);

  // Returns `buffer` to the allocator's cache once the recorded work completes.
  void release_after_work(allocator::Buffer buffer);
  bool has_pending_work() const {
    return recording_ || batches_[0].submitted || batches_[1].submitted;
  }
  // Submits what was recorded and waits for it; then releases what was freed.
  void finish();
  // Submits what was recorded without waiting for it.
  void flush();

 private:
  Encoder();
  struct Pipeline;
  // A command buffer and the buffers freed while it was pending. Two
  // alternate: the GPU runs one batch while the host records the next.
  struct Batch {
    vk::raii::CommandBuffer commands{nullptr};
    vk::raii::Fence fence{nullptr};
    bool submitted = false;
    std::vector<allocator::Buffer> released;  // freed while the batch was pending
    // Metadata of the batch, bump-allocated from one buffer.
    std::shared_ptr<allocator::Buffer> arena;
    size_t arena_used = 0;
    std::vector<MetadataHead> heads;  // Binding::head indexes these
  };
  // The pipeline of `shader` (built-in, or `code` where given) with `spec`.
  Pipeline& pipeline(const std::string& shader, const std::vector<uint32_t>& spec,
                     size_t num_bindings, std::span<const uint32_t> code = {});
  void record(Pipeline& p, const std::vector<Binding>& bindings,
              const std::array<uint32_t, 3>& groups);
  void barrier_if_needed(const std::vector<Binding>& bindings);
  void begin_if_needed();
  // Submits the batch being recorded without waiting, and makes the other
  // batch current (waiting for it if it is still running).
  void submit();
  // Submits the batch being recorded once it holds batch_limit_ dispatches,
  // and doubles the limit for the next.
  void submit_if_full();
  void wait(Batch& batch);
  // Returns the buffers freed while a completed (or never submitted) batch
  // was pending, and its metadata arena, to the allocator.
  void retire(Batch& batch);

  Device& device_;
  vk::raii::CommandPool pool_{nullptr};
  std::array<Batch, 2> batches_;
  size_t current_ = 0;
  bool recording_ = false;
  size_t recorded_ = 0;   // dispatches in the batch being recorded
  uint64_t submits_ = 0;  // batches submitted so far
  size_t first_batch_;    // kFirstBatchDispatches, or MLX_LITE_FIRST_BATCH_DISPATCHES
  size_t batch_limit_;    // first_batch_ again after each eval
  vk::Pipeline bound_;    // the pipeline bound in the batch being recorded
  struct Region {
    vk::Buffer buffer;
    vk::DeviceSize begin, end;
  };
  std::vector<Region> written_, read_;  // since the last barrier
  absl::flat_hash_map<std::string, std::unique_ptr<Pipeline>> pipelines_;
  std::string key_;  // pipeline()'s lookup key
};

}  // namespace mlx_lite::vulkan
