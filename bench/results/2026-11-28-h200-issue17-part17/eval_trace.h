// TUNING ONLY (not committed): where an eval's host time goes, by marks.
#pragma once
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
namespace mlx_lite::trace {
inline uint64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
inline bool knob(const char* name) { return std::getenv(name) != nullptr; }
// Marks, in the order an eval of one dispatch reaches them.
enum Mark {
  kEvalBegin,    // eval() entered
  kTopoDone,     // topological order built
  kDispatch,     // Encoder::dispatch entered (first)
  kBegun,        // begin_if_needed done (vkBeginCommandBuffer, barrier, timestamp)
  kBound,        // bindings, barrier check
  kPipeline,     // pipeline looked up
  kDescriptors,  // bindPipeline + pushDescriptorSet
  kDispatched,   // pushConstants + vkCmdDispatch + track
  kSubmitEntry,  // Encoder::submit entered
  kEnded,        // to-host barrier, timestamp, vkEndCommandBuffer
  kSubmitted,    // vkQueueSubmit returned
  kDone,         // completion seen
  kReset,        // command buffer reset
  kRetired,      // retire done
  kEvalEnd,      // eval() returns
  kMarks
};
inline const char* kNames[kMarks] = {"begin",    "topo",     "->dispatch", "begin_cb", "bind",
                                     "pipeline", "desc",     "dispatch",   "->submit", "end_cb",
                                     "submit",   "done",     "reset",      "retire",   "->end"};
struct Acc {
  uint64_t t[kMarks] = {};
  double sum[kMarks] = {};
  uint64_t n = 0;
  ~Acc() {
    if (!n) return;
    std::fprintf(stderr, "MARKS evals %llu |", (unsigned long long)n);
    for (int i = 1; i < kMarks; ++i) std::fprintf(stderr, " %s %.2f", kNames[i], sum[i] / n / 1e3);
    std::fprintf(stderr, " (us)\n");
  }
};
inline thread_local Acc acc;
// Per eval of any shape: time in Encoder::dispatch, in waits, counts.
struct Sum {
  uint64_t evals = 0, dispatches = 0, submits = 0;
  double total = 0, dispatch_ns = 0, wait_ns = 0, submit_ns = 0;
  uint64_t eval_start = 0;
  ~Sum() {
    if (!evals) return;
    const double n = double(evals);
    std::fprintf(stderr,
                 "EVALSUM evals %llu | per eval: %.2f us, %.2f dispatches (%.2f us recording), "
                 "%.2f submits (%.2f us end+submit), waiting %.2f us\n",
                 (unsigned long long)evals, total / n / 1e3, dispatches / n, dispatch_ns / n / 1e3,
                 submits / n, submit_ns / n / 1e3, wait_ns / n / 1e3);
  }
};
inline thread_local Sum sum;
struct Span {  // adds its lifetime to one of sum's fields
  double& field;
  uint64_t t0 = now_ns();
  explicit Span(double& f) : field(f) {}
  ~Span() { field += double(now_ns() - t0); }
};
inline void mark(Mark m) {
  if (m == kEvalBegin) {
    for (auto& x : acc.t) x = 0;
    sum.eval_start = now_ns();
  }
  if (acc.t[m] == 0) acc.t[m] = now_ns();
}
inline thread_local uint64_t evals_seen = 0;
inline void eval_end() {
  if (++evals_seen <= 20) {  // first pipelines, first allocations
    sum.dispatches = sum.submits = 0;
    sum.dispatch_ns = sum.wait_ns = sum.submit_ns = 0;
    return;
  }
  mark(kEvalEnd);
  sum.total += double(now_ns() - sum.eval_start);
  ++sum.evals;
  for (int i = 0; i < kMarks; ++i)
    if (acc.t[i] == 0) return;  // an eval without the full path
  for (int i = 1; i < kMarks; ++i) acc.sum[i] += double(acc.t[i] - acc.t[i - 1]);
  ++acc.n;
}
}  // namespace mlx_lite::trace
