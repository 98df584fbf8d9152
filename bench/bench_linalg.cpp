// Matmul and the softmax/logsumexp kernels on the GPU:
//   build/bench/bench_linalg
// Reports FLOP/s for matmul (the H100's float32 peak without tensor cores is
// about 67 TFLOP/s; compare torch.matmul with TF32 off in the same session)
// and bytes/s for softmax and logsumexp.
#include <benchmark/benchmark.h>

#include "gpu_bench.h"
#include "mlx_lite/mlx_lite.h"

using namespace mlx_lite;

namespace {

const Device kGpu(Device::gpu);

array values(const Shape& shape, Dtype t) {
  array a = astype(random::uniform(-1, 1, shape, float32, random::key(1), kGpu), t, kGpu);
  eval(a);
  return a;
}

// args: M = N = K, dtype (0 f32, 1 f16, 2 bf16), layout (0 nn, 1 nt, 2 tn)
void BM_Matmul(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const Dtype t = state.range(1) == 0 ? float32 : (state.range(1) == 1 ? float16 : bfloat16);
  array a = values({n, n}, t), b = values({n, n}, t);
  if (state.range(2) == 1) b = transpose(b);
  if (state.range(2) == 2) a = transpose(a);
  constexpr int kReps = 4;
  bench::eval_loop(state, [&] {
    std::vector<array> outs;
    for (int i = 0; i < kReps; ++i) outs.push_back(matmul(a, b, kGpu));
    return outs;
  });
  state.counters["flops"] =
      benchmark::Counter(2.0 * n * n * n * kReps, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_BatchedMatmul(benchmark::State& state) {
  const int batch = static_cast<int>(state.range(0)), n = static_cast<int>(state.range(1));
  array a = values({batch, n, n}, float32), b = values({batch, n, n}, float32);
  bench::eval_loop(state, [&] { return matmul(a, b, kGpu); });
  state.counters["flops"] =
      benchmark::Counter(2.0 * batch * n * n * n, benchmark::Counter::kIsIterationInvariantRate);
}

// args: M = N, K: a long K is split across workgroups and summed by a
// second pass (so no invocation passes lavapipe's loop cap).
void BM_MatmulLongK(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0)), k = static_cast<int>(state.range(1));
  array a = values({n, k}, float32), b = values({k, n}, float32);
  bench::eval_loop(state, [&] { return matmul(a, b, kGpu); });
  state.counters["flops"] =
      benchmark::Counter(2.0 * n * n * k, benchmark::Counter::kIsIterationInvariantRate);
}

// args: rows, len, op (0 softmax, 1 logsumexp)
void BM_Softmax(benchmark::State& state) {
  const int rows = static_cast<int>(state.range(0)), len = static_cast<int>(state.range(1));
  array a = values({rows, len}, float32);
  bench::eval_loop(state, [&] {
    return state.range(2) == 0 ? softmax(a, -1, false, kGpu) : logsumexp(a, -1, false, kGpu);
  });
  const double bytes = 4.0 * rows * len * (state.range(2) == 0 ? 2 : 1);
  state.counters["bytes"] =
      benchmark::Counter(bytes, benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace

BENCHMARK(BM_Matmul)
    ->Args({512, 0, 0})
    ->Args({1024, 0, 0})
    ->Args({2048, 0, 0})
    ->Args({4096, 0, 0})
    ->Args({4096, 0, 1})
    ->Args({4096, 0, 2})
    ->Args({4096, 1, 0})
    ->Args({4096, 1, 1})
    ->Args({4096, 1, 2})
    ->Args({8192, 1, 0})
    ->Args({8192, 2, 0})
    ->Args({4096, 2, 0})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_BatchedMatmul)
    ->Args({64, 256})
    ->Args({512, 64})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_MatmulLongK)
    ->Args({64, 1 << 16})
    ->Args({64, 1 << 20})
    ->Args({256, 1 << 18})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Softmax)
    ->Args({4, 1 << 22, 0})  // rows past 2^21 are composed of reductions
    ->Args({4, 1 << 22, 1})
    ->Args({4096, 4096, 0})
    ->Args({4096, 4096, 1})
    ->Args({262144, 128, 0})
    ->Args({64, 1 << 20, 0})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
