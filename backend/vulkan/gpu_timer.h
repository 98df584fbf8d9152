// Timestamps around an encoder's batches, behind gpu::start_timing() and
// gpu::stop_timing() (mlx_lite/gpu.h). While a thread times its work, each
// batch its encoder records begins with a timestamp and ends with another
// (the batch's two queries, reset first); when the batch completes, the span
// between them is added up. Batches recorded while not timing carry no
// queries, so timing costs nothing until it is asked for.
//
// Both timestamps are written at the bottom of the pipe: each is latched once
// all the work submitted before it has completed. The begin timestamp thus
// waits for the previous batch (of any thread) to finish, so the spans of
// consecutive batches do not overlap, work submitted before timing started is
// not counted, and time the GPU sat idle waiting for the host's next batch
// falls between spans, not in them.
#pragma once

#include <cstdint>
#include <vulkan/vulkan_raii.hpp>

namespace mlx_lite::vulkan {

class Device;

class BatchTimer {
 public:
  // Queries for `slots` batches. Throws std::runtime_error when the device's
  // compute queue writes no timestamps (timestampValidBits 0).
  BatchTimer(const Device& device, uint32_t slots);

  // Resets slot's queries and records, first in a batch's commands, its begin
  // timestamp; and, last, its end timestamp. The batch that last used the
  // slot must have completed.
  void begin(const vk::raii::CommandBuffer& commands, uint32_t slot) const;
  void end(const vk::raii::CommandBuffer& commands, uint32_t slot) const;
  // Adds the span of slot's batch, which has completed.
  void add(uint32_t slot);
  // The spans added since the last take, in nanoseconds; starts again at 0.
  double take_nanoseconds();

 private:
  vk::raii::QueryPool pool_{nullptr};
  bool host_reset_;   // hostQueryReset: queries are reset by the host
  double period_ns_;  // nanoseconds per timestamp tick
  uint64_t mask_;     // the bits the queue's timestamps hold
  double total_ns_ = 0;
};

}  // namespace mlx_lite::vulkan
