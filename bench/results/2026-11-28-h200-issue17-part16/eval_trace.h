// TUNING ONLY (not committed): where an eval's wall time goes.
#pragma once
#include <chrono>
#include <cstdint>
#include <cstdio>
namespace mlx_lite::trace {
inline uint64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch()).count();
}
struct Acc {
  uint64_t t[6] = {};  // eval start, first submit begin, first submit end, last submit end, done seen, eval end
  bool submitted = false, seen = false;
  double sum[5] = {};
  uint64_t n = 0, submits = 0, spin_hits = 0, sleeps = 0;
  ~Acc() {
    if (!n) return;
    std::fprintf(stderr,
                 "TRACE evals %llu submits/eval %.2f | prep %.2f us | submit call %.2f us | "
                 "submit end->done seen %.2f us (last submit end->done %.2f) | done->eval end %.2f us | "
                 "spin hits %llu sleeps %llu\n",
                 (unsigned long long)n, double(submits) / n, sum[0] / n / 1e3, sum[1] / n / 1e3,
                 sum[2] / n / 1e3, sum[4] / n / 1e3, sum[3] / n / 1e3, (unsigned long long)spin_hits,
                 (unsigned long long)sleeps);
  }
};
inline thread_local Acc acc;
inline void eval_begin() { acc.t[0] = now_ns(); acc.submitted = acc.seen = false; }
inline void submit_begin() { if (!acc.submitted) acc.t[1] = now_ns(); }
inline void submit_end() {
  uint64_t x = now_ns();
  if (!acc.submitted) acc.t[2] = x;
  acc.t[3] = x;
  acc.submitted = true;
  ++acc.submits;
}
inline void done_seen(bool spin) {
  if (!acc.submitted) return;
  acc.t[4] = now_ns();
  acc.seen = true;
  (spin ? acc.spin_hits : acc.sleeps)++;
}
inline void eval_end() {
  if (!acc.submitted || !acc.seen) return;
  uint64_t e = now_ns();
  acc.sum[0] += acc.t[1] - acc.t[0];
  acc.sum[1] += acc.t[2] - acc.t[1];
  acc.sum[2] += acc.t[4] - acc.t[2];
  acc.sum[4] += acc.t[4] - acc.t[3];
  acc.sum[3] += e - acc.t[4];
  ++acc.n;
}
}  // namespace mlx_lite::trace
