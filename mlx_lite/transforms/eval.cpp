#include "mlx_lite/transforms/eval.h"

#include <absl/container/flat_hash_set.h>

#include <deque>

#include "backend/gpu_backend.h"
#include "mlx_lite/primitives.h"
#include "mlx_lite/transforms/tracing.h"

namespace mlx_lite {

namespace detail {

std::deque<array> topological_order(const std::vector<array>& outputs) {
  std::deque<array> tape;
  absl::flat_hash_set<std::uintptr_t> seen;
  std::vector<std::pair<array, size_t>> stack;  // node and its next input to visit
  for (const auto& out : outputs) {
    if (out.is_available() || !seen.insert(out.id()).second) continue;
    stack.emplace_back(out, 0);
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      if (next < node.inputs().size()) {
        const array& in = node.inputs()[next++];
        if (!in.is_available() && seen.insert(in.id()).second) stack.emplace_back(in, 0);
        continue;
      }
      for (const auto& s : node.siblings()) seen.insert(s.id());
      tape.push_back(std::move(node));
      stack.pop_back();
    }
  }
  return tape;
}

}  // namespace detail

namespace {

void run(array& node) {
  auto outputs = node.outputs();
  auto& primitive = node.primitive();
  if (primitive.device().type == Device::gpu) {
    // Recorded, not yet run: the work keeps what it reads alive until it
    // completes (backend/vulkan/encoder.h).
    primitive.eval_gpu(node.inputs(), outputs);
  } else {
    // CPU kernels read memory that recorded GPU work may still have to write.
    for (const auto& in : node.inputs()) gpu_backend::wait_for(in);
    primitive.eval_cpu(node.inputs(), outputs);
  }
  // A transform tracing a function needs the graph it evaluated (tracing.h).
  if (!detail::in_tracing()) {
    for (auto& out : outputs) out.detach();
  }
}

// Runs (CPU) or records (GPU) every node `outputs` needs.
void record(std::vector<array> outputs) {
  auto tape = detail::topological_order(outputs);
  outputs.clear();
  // Pop each node before running the next so the tape holds no reference to
  // data that only finished nodes needed.
  while (!tape.empty()) {
    array node = std::move(tape.front());
    tape.pop_front();
    if (!node.is_available()) run(node);
  }
}

}  // namespace

void eval(std::vector<array> outputs) {
  // An output computed already may still be being written by GPU work
  // recorded earlier (async_eval), on this thread or another.
  for (const auto& out : outputs) {
    if (out.is_available()) gpu_backend::wait_for(out);
  }
  record(std::move(outputs));
  gpu_backend::finish();
}

void async_eval(std::vector<array> outputs) {
  // The GPU runs while the caller goes on; eval, item(), data() and
  // synchronize() wait for it.
  record(std::move(outputs));
  gpu_backend::flush();
}

}  // namespace mlx_lite
