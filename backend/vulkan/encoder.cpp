#include "backend/vulkan/encoder.h"

#include <absl/container/inlined_vector.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

#include "backend/vulkan/allocator.h"
#include "backend/vulkan/device.h"
#include "backend/vulkan/gpu_timeout.h"
#include "backend/vulkan/gpu_timer.h"
#include "backend/vulkan/timeline.h"
#include "mlx_lite/utils.h"

namespace mlx_lite::vulkan {

// A command buffer and what must outlive the work recorded in it. Two
// alternate: the GPU runs one batch while the host records the next.
struct Encoder::Batch {
  vk::raii::CommandBuffer commands{nullptr};
  uint32_t slot = 0;    // its index in batches_, and its queries' in the timer
  uint64_t number = 0;  // its value on the timeline
  bool submitted = false;
  bool open = false;                         // begun, its lead barrier recorded (open())
  bool timed = false;                        // bracketed by timestamps
  std::vector<std::shared_ptr<void>> holds;  // the data its dispatches read, their pipelines
  std::vector<allocator::Buffer> deferred;   // freed while it wrote them
  std::vector<allocator::Buffer> arenas;     // its shape blocks, bump-allocated
  size_t arena_used = 0;
};

namespace {

// Work is compute dispatches and transfer fills (fill()): barriers order both.
constexpr auto kWorkStages =
    vk::PipelineStageFlagBits::eComputeShader | vk::PipelineStageFlagBits::eTransfer;
constexpr auto kWorkWrites = vk::AccessFlagBits::eShaderWrite | vk::AccessFlagBits::eTransferWrite;
constexpr auto kWorkAccess = kWorkWrites | vk::AccessFlagBits::eShaderRead;

constexpr size_t kArenaBytes = size_t{64} << 10;

// MLX_LITE_FIRST_BATCH_DISPATCHES overrides kFirstBatchDispatches (1 to
// kMaxDispatches; kMaxDispatches submits an eval in batches of that size
// only), so benchmarks can compare the schedules in one session, as MLX's
// MLX_MAX_OPS_PER_BUFFER does.
size_t first_batch_dispatches() {
  const char* env = std::getenv("MLX_LITE_FIRST_BATCH_DISPATCHES");
  if (env == nullptr || *env == '\0') return Encoder::kFirstBatchDispatches;
  char* end = nullptr;
  const long n = std::strtol(env, &end, 10);
  if (*end != '\0' || n < 1 || n > static_cast<long>(Encoder::kMaxDispatches)) {
    throw std::invalid_argument(
        fmt::format("[gpu] MLX_LITE_FIRST_BATCH_DISPATCHES is '{}'; expected a count from 1 to {}.",
                    env, Encoder::kMaxDispatches));
  }
  return static_cast<size_t>(n);
}

// Waits for batch t of another thread's encoder, then returns the buffers
// freed meanwhile that only waited for it: their owner may be idle.
void wait_on(Timeline& other, uint64_t t) {
  other.wait(t);
  other.release_reached();
}

// The batch that last wrote a block, and the id of its timeline; batch 0
// where no work has written it.
struct Writer {
  uint64_t timeline = 0;
  uint64_t batch = 0;
};

Writer last_writer(const allocator::Buffer& buffer) {
  const Block& b = block_of(buffer);
  return {b.writer_timeline.load(std::memory_order_relaxed),
          b.writer_batch.load(std::memory_order_relaxed)};
}

// The calling thread's encoder, and the same as a plain pointer that stays
// readable while the encoder is destroyed with the thread.
thread_local std::unique_ptr<Encoder> thread_encoder;
thread_local Encoder* this_thread = nullptr;

}  // namespace

Encoder::Encoder()
    : device_(Device::get()), timeline_(new_timeline()), first_batch_(first_batch_dispatches()) {
  batch_limit_ = first_batch_;
  const auto& d = device_.device();
  pool_ = vk::raii::CommandPool(
      d, vk::CommandPoolCreateInfo(vk::CommandPoolCreateFlagBits::eResetCommandBuffer,
                                   device_.queue_family()));
  vk::raii::CommandBuffers buffers(
      d, vk::CommandBufferAllocateInfo(*pool_, vk::CommandBufferLevel::ePrimary, 2));
  for (size_t i = 0; i < batches_.size(); ++i) {
    batches_[i] = std::make_unique<Batch>();
    batches_[i]->commands = std::move(buffers[i]);
    batches_[i]->slot = static_cast<uint32_t>(i);
  }
}

Encoder::~Encoder() {
  try {
    finish();
  } catch (const std::exception&) {
    // A lost device: the work is gone, and nothing waits for it any more.
  }
  if (device_.hung()) abandon();
  remove_timeline(timeline_->id());
  if (this_thread == this) this_thread = nullptr;
}

Encoder& encoder(const Stream& s) {
  if (s.device.type != mlx_lite::Device::gpu) {
    throw std::logic_error("[gpu] A CPU stream's work was recorded for the GPU.");
  }
  Device::get().throw_if_hung();
  // Malformed wait settings throw here, before any work is submitted.
  gpu_timeout_ns();
  gpu_spin_ns(Device::get().on_cpu());
  if (!thread_encoder) {
    thread_encoder = std::make_unique<Encoder>();
    this_thread = thread_encoder.get();
  }
  return *thread_encoder;
}

Encoder* this_thread_encoder() {
  return this_thread;
}

Encoder::Binding Encoder::binding_of(const Operand& op) const {
  const array& a = op.a;
  const Block& b = block_of(a.buffer());
  // Shaders index a binding, which reaches maxStorageBufferRange bytes: the
  // array's elements (its view's farthest one) must lie within them.
  const uint64_t range = device_.limits().max_storage_buffer_range;
  int64_t last = a.offset();
  for (int i = 0; i < a.ndim(); ++i) {
    if (a.strides()[i] > 0) last += (a.shape(i) - 1) * a.strides()[i];
  }
  const uint64_t end = static_cast<uint64_t>(last + 1) * a.itemsize();
  if (a.size() > 0 && end > range) {
    throw std::runtime_error(fmt::format(
        "[gpu] An array of shape {} and dtype {} spans {} bytes, more than this device's "
        "maxStorageBufferRange ({} bytes) lets one kernel address. Use smaller arrays or the "
        "CPU device.",
        shape_string(a.shape()), dtype_name(a.dtype()), end, range));
  }
  Binding binding{b.buffer, b.offset, std::min<uint64_t>(b.capacity, range), op.written};
  if (op.from_first_element) {
    const uint64_t start = a.offset() * a.itemsize();
    binding.offset += start;
    binding.range -= start;
  }
  return binding;
}

Encoder::Binding Encoder::shape_block_binding(const ShapeBlock& shapes) {
  auto& batch = *batches_[current_];
  const auto table = shapes.table();
  const auto words = shapes.words();
  // Bound even when empty (every pipeline has binding 0): 16 bytes nobody reads.
  const size_t used = table.size() + words.size_bytes();
  const size_t bytes = std::max<size_t>(16, (used + 15) / 16 * 16);
  const auto& limits = device_.limits();
  const size_t align = std::max<size_t>(
      {16, limits.min_uniform_buffer_offset_alignment, limits.min_storage_buffer_offset_alignment});
  size_t start = (batch.arena_used + align - 1) / align * align;
  if (batch.arenas.empty() || start + bytes > allocator::allocator().size(batch.arenas.back())) {
    batch.arenas.push_back(allocator::malloc(std::max(kArenaBytes, bytes)));
    start = 0;
  }
  const Block& arena = block_of(batch.arenas.back());
  // Copies, not memcpy: an empty table or word list has a null data().
  auto* at = static_cast<std::byte*>(arena.mapped) + start;
  std::ranges::copy(table, at);
  std::ranges::copy(std::as_bytes(words), at + table.size());
  batch.arena_used = start + bytes;
  return {arena.buffer, arena.offset + start, bytes, false};
}

std::array<uint32_t, 3> Encoder::workgroups(const Grid& grid, uint32_t group_size) const {
  if (grid.n_ == 0) return grid.exact_;
  const uint64_t groups = grid.threads_ ? (grid.n_ + group_size - 1) / group_size : grid.n_;
  const auto& max = device_.limits().max_workgroup_count;
  const uint64_t x = std::min<uint64_t>(groups, max[0]);
  const uint64_t y = (groups + x - 1) / x;
  if (y > max[1]) {
    throw std::runtime_error(
        fmt::format("[gpu] {} workgroups of {} threads are more than this device can launch.",
                    groups, group_size));
  }
  return {static_cast<uint32_t>(x), static_cast<uint32_t>(y), 1};
}

void Encoder::dispatch(const Shader& shader, std::span<const uint32_t> spec,
                       std::span<const std::byte> params, const ShapeBlock& shapes,
                       std::span<const Operand> operands, Grid grid) {
  const auto groups = workgroups(grid, spec.empty() ? 1 : spec[0]);
  if (groups[0] == 0 || groups[1] == 0 || groups[2] == 0) return;
  wait_for_other_writers(operands);
  submit_if_full();
  begin_if_needed();
  absl::InlinedVector<Binding, 12> bindings = {shape_block_binding(shapes)};
  for (const auto& op : operands) bindings.push_back(binding_of(op));
  barrier_if_needed(std::span(bindings).subspan(1));  // the shape block is the host's
  const auto held = pipeline(shader, spec, static_cast<uint32_t>(bindings.size()));
  const Pipeline& p = *held;

  absl::InlinedVector<vk::DescriptorBufferInfo, 12> infos;
  absl::InlinedVector<vk::WriteDescriptorSet, 12> writes;
  for (const auto& b : bindings) infos.emplace_back(b.buffer, b.offset, b.range);
  for (uint32_t i = 0; i < infos.size(); ++i) {
    const auto type = i == 0 ? shape_block_type(shader) : vk::DescriptorType::eStorageBuffer;
    writes.emplace_back(nullptr, i, 0, 1, type, nullptr, &infos[i]);
  }
  auto& cb = batches_[current_]->commands;
  if (bound_ != *p.pipeline) {  // chains of one op rebind nothing
    cb.bindPipeline(vk::PipelineBindPoint::eCompute, *p.pipeline);
    bound_ = *p.pipeline;
    // An evicted pipeline lives until the batch completes.
    batches_[current_]->holds.push_back(std::const_pointer_cast<Pipeline>(held));
  }
  cb.pushDescriptorSetKHR(vk::PipelineBindPoint::eCompute, *p.layout, 0,
                          vk::ArrayProxy<const vk::WriteDescriptorSet>(
                              static_cast<uint32_t>(writes.size()), writes.data()));
  if (!params.empty()) {
    cb.pushConstants<std::byte>(
        *p.layout, vk::ShaderStageFlagBits::eCompute, 0,
        vk::ArrayProxy<const std::byte>(static_cast<uint32_t>(params.size()), params.data()));
  }
  cb.dispatch(groups[0], groups[1], groups[2]);
  track(operands);
  ++recorded_;
}

void Encoder::fill(const array& out, uint64_t bytes, uint32_t word) {
  if (bytes == 0) return;
  const Operand op = output(out);
  wait_for_other_writers({&op, 1});
  submit_if_full();
  begin_if_needed();
  Binding b = binding_of(op);
  b.range = bytes;
  barrier_if_needed({&b, 1});
  batches_[current_]->commands.fillBuffer(b.buffer, b.offset, bytes, word);
  track({&op, 1});
  ++recorded_;
}

// A buffer written by another thread's batch that has not completed is
// waited for here, on the host: this encoder's command buffers cannot wait
// for another's. (This thread's own batches are ordered by barriers.)
void Encoder::wait_for_other_writers(std::span<const Operand> operands) {
  for (const auto& op : operands) {
    const auto [id, t] = last_writer(op.a.buffer());
    if (t == 0 || id == timeline_->id()) continue;
    if (auto other = find_timeline(id); other && !other->reached(t)) wait_on(*other, t);
  }
}

// Outputs record this batch as their writer; the batch holds the data of
// its inputs (but an input written in place is an output too).
void Encoder::track(std::span<const Operand> operands) {
  auto& batch = *batches_[current_];
  for (const auto& op : operands) {
    if (!op.written) continue;
    Block& b = block_of(op.a.buffer());
    b.writer_timeline.store(timeline_->id(), std::memory_order_relaxed);
    b.writer_batch.store(batch.number, std::memory_order_relaxed);
  }
  for (const auto& op : operands) {
    if (op.written) continue;
    const bool in_place = std::ranges::any_of(operands, [&](const Operand& o) {
      return o.written && o.a.buffer().ptr() == op.a.buffer().ptr();
    });
    if (!in_place) batch.holds.push_back(op.a.data_shared_ptr());
  }
}

void Encoder::barrier_if_needed(std::span<const Binding> bindings) {
  auto overlaps = [](const std::vector<Region>& regions, const Binding& b) {
    return std::any_of(regions.begin(), regions.end(), [&](const Region& r) {
      return r.buffer == b.buffer && r.begin < b.offset + b.range && b.offset < r.end;
    });
  };
  bool needed = false;
  for (const auto& b : bindings) {
    // Read after write, write after write, write after read.
    needed |= overlaps(written_, b) || (b.written && overlaps(read_, b));
  }
  if (needed) {
    vk::MemoryBarrier barrier(kWorkAccess, kWorkAccess);
    batches_[current_]->commands.pipelineBarrier(kWorkStages, kWorkStages, {}, barrier, {}, {});
    written_.clear();
    read_.clear();
  }
  for (const auto& b : bindings) {
    (b.written ? written_ : read_).push_back({b.buffer, b.offset, b.offset + b.range});
  }
}

// Begins the batch's command buffer (which resets it) and records the
// barrier that orders it after the writes of batches submitted before it.
void Encoder::open(Batch& batch) {
  if (batch.open) return;
  batch.commands.begin(vk::CommandBufferBeginInfo(vk::CommandBufferUsageFlagBits::eOneTimeSubmit));
  vk::MemoryBarrier barrier(kWorkWrites, kWorkAccess);
  batch.commands.pipelineBarrier(kWorkStages, kWorkStages, {}, barrier, {}, {});
  batch.open = true;
}

void Encoder::begin_if_needed() {
  if (recording_) return;
  auto& batch = *batches_[current_];
  batch.number = submitted_ + 1;
  open(batch);
  batch.timed = timing_;
  if (batch.timed) timer_->begin(batch.commands, batch.slot);
  recording_ = true;
  bound_ = nullptr;
  timeline_->pending.store(true);
}

// Submits the batch being recorded without waiting, and makes the other
// batch current (waiting for it if it is still running).
void Encoder::submit() {
  if (!recording_) return;
  auto& batch = *batches_[current_];
  // Make the shaders' writes visible to the host that may read them next.
  vk::MemoryBarrier to_host(kWorkWrites, vk::AccessFlagBits::eHostRead);
  batch.commands.pipelineBarrier(kWorkStages, vk::PipelineStageFlagBits::eHost, {}, to_host, {},
                                 {});
  if (batch.timed) timer_->end(batch.commands, batch.slot);
  batch.commands.end();
  device_.submit(*batch.commands, timeline_->semaphore(), batch.number);
  batch.open = false;
  batch.submitted = true;
  submitted_ = batch.number;
  recording_ = false;
  recorded_ = 0;
  written_.clear();
  read_.clear();
  current_ = 1 - current_;
  wait_batch(*batches_[current_]);
  // Begun now, while the GPU runs the batch just submitted, rather than on
  // the next eval's path to its submit (about 1.5 us on an H200).
  open(*batches_[current_]);
}

// Submits the batch being recorded once it holds batch_limit_ dispatches,
// and doubles the limit for the next.
void Encoder::submit_if_full() {
  if (recorded_ < batch_limit_) return;
  submit();
  batch_limit_ = std::min(2 * batch_limit_, kMaxDispatches);
}

void Encoder::wait_batch(Batch& batch) {
  if (!batch.submitted) return;
  batch.submitted = false;  // a lost device leaves it retired, not pending
  timeline_->wait(batch.number);
  waited_ = std::max(waited_, batch.number);
  retire(batch);  // its command buffer is reset when open() begins it again
}

// Returns what a completed batch held: its arenas go straight back to the
// allocator's cache, and the data it read is released, which may free
// buffers (and come back here through defer()): hence the swaps first.
void Encoder::retire(Batch& batch) {
  if (batch.timed) timer_->add(batch.slot);
  batch.timed = false;
  for (auto arena : batch.arenas) allocator::allocator().release(arena);
  batch.arenas.clear();
  batch.arena_used = 0;
  std::vector<allocator::Buffer> deferred;
  deferred.swap(batch.deferred);
  for (auto buffer : deferred) allocator::allocator().release(buffer);
  std::vector<std::shared_ptr<void>> holds;
  holds.swap(batch.holds);
  holds.clear();
  timeline_->release_reached();
}

// Work that outlived MLX_LITE_GPU_TIMEOUT may still be running and using
// the command buffers and the semaphore: they are left
// to the process's end rather than destroyed under it.
void Encoder::abandon() {
  for (auto& batch : batches_) batch->commands.release();
  pool_.release();
  timeline_->abandon();
}

void Encoder::flush() {
  submit();
  batch_limit_ = first_batch_;
}

void Encoder::finish() {
  flush();
  for (auto& batch : batches_) wait_batch(*batch);
  timeline_->pending.store(false);
}

void Encoder::wait(uint64_t t) {
  if (recording_ && batches_[current_]->number <= t) submit();
  for (auto& batch : batches_) {
    if (batch->submitted && batch->number <= t) wait_batch(*batch);
  }
  if (!has_pending_work()) timeline_->pending.store(false);
}

bool Encoder::has_pending_work() const {
  return recording_ || batches_[0]->submitted || batches_[1]->submitted;
}

void Encoder::start_timing() {
  if (timing_) {
    throw std::logic_error("[gpu] start_timing() again on a thread that is already timing.");
  }
  if (!timer_) timer_ = std::make_unique<BatchTimer>(device_, batches_.size());
  flush();
  timing_ = true;
}

double Encoder::stop_timing() {
  if (!timing_)
    throw std::logic_error("[gpu] stop_timing() without start_timing() on this thread.");
  timing_ = false;  // batches begun from now on carry no queries
  finish();         // the timed ones complete and add their spans
  return timer_->take_nanoseconds();
}

bool Encoder::defer(uint64_t t, allocator::Buffer buffer) {
  for (auto& batch : batches_) {
    const bool pending =
        batch->submitted || (recording_ && batch.get() == batches_[current_].get());
    if (pending && batch->number == t) {
      batch->deferred.push_back(buffer);
      return true;
    }
  }
  return false;  // that batch completed and was retired
}

std::optional<uint32_t> repeated_word(const void* element, size_t itemsize) {
  uint32_t lo = 0, hi = 0;
  std::memcpy(&lo, element, std::min<size_t>(itemsize, 4));
  switch (itemsize) {
    case 1:
      return (lo & 0xffu) * 0x01010101u;
    case 2:
      return (lo & 0xffffu) * 0x00010001u;
    case 4:
      return lo;
    default:
      std::memcpy(&hi, static_cast<const std::byte*>(element) + 4, 4);
      return lo == hi ? std::optional(lo) : std::nullopt;
  }
}

void wait_for_writer(const array& a) {
  if (!a.has_data() || a.buffer().ptr() == nullptr) return;
  const auto [id, t] = last_writer(a.buffer());
  if (t == 0) return;
  if (this_thread != nullptr && this_thread->timeline().id() == id) {
    this_thread->wait(t);
  } else if (auto other = find_timeline(id); other && !other->reached(t)) {
    wait_on(*other, t);
  }
}

bool written_by_pending_work(const allocator::Buffer& buffer) {
  const auto [id, t] = last_writer(buffer);
  if (t == 0) return false;
  if (this_thread != nullptr && this_thread->timeline().id() == id) {
    return !this_thread->timeline().reached(t);
  }
  auto other = find_timeline(id);
  return other && !other->reached(t);
}

bool defer_until_written(allocator::Buffer buffer) {
  const auto [id, t] = last_writer(buffer);
  if (t == 0) return false;
  if (this_thread != nullptr && this_thread->timeline().id() == id) {
    return this_thread->defer(t, buffer);
  }
  auto other = find_timeline(id);
  if (!other || other->reached(t)) return false;
  other->defer(t, buffer);
  return true;
}

}  // namespace mlx_lite::vulkan
