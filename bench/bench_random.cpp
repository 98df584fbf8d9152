// MLX's composed samplers on the GPU, 2^20 draws each:
//   build/bench/bench_random
// randint (int32: one draw, an int64 remainder; int64: two draws and the
// unsigned 64-bit reduction), bernoulli, truncated_normal, gumbel, laplace,
// categorical over 1024 x 1024 logits, and permutation (an argsort of random
// words). Times are wall times of evaluated work (bench::eval_loop,
// gpu_bench.h); the counter gpu_time is the GPU's own time per iteration.
#include <benchmark/benchmark.h>

#include "gpu_bench.h"
#include "mlx_lite/mlx_lite.h"

using namespace mlx_lite;

namespace {

const Device kGpu(Device::gpu);
constexpr int kN = 1 << 20;

template <typename F>
void run(benchmark::State& state, F&& sample) {
  auto key = random::key(0);
  bench::eval_loop(state, [&] { return sample(key); });
  state.SetItemsProcessed(state.iterations() * kN);
}

void BM_GpuRandintInt32(benchmark::State& state) {
  run(state, [](const array& k) { return random::randint(-5, 1000, {kN}, int32, k, kGpu); });
}

void BM_GpuRandintInt64(benchmark::State& state) {
  run(state, [](const array& k) {
    return random::randint(array(int64_t{-1} << 40), array(int64_t{1} << 50), {kN}, int64, k,
                           kGpu);
  });
}

void BM_GpuBernoulli(benchmark::State& state) {
  run(state, [](const array& k) { return random::bernoulli(0.3f, {kN}, k, kGpu); });
}

void BM_GpuTruncatedNormal(benchmark::State& state) {
  run(state, [](const array& k) {
    return random::truncated_normal(array(-1.0f), array(2.0f), {kN}, float32, k, kGpu);
  });
}

void BM_GpuGumbel(benchmark::State& state) {
  run(state, [](const array& k) { return random::gumbel({kN}, float32, k, kGpu); });
}

void BM_GpuLaplace(benchmark::State& state) {
  run(state, [](const array& k) { return random::laplace({kN}, float32, k, kGpu); });
}

void BM_GpuCategorical(benchmark::State& state) {
  array logits = random::normal({1024, 1024}, random::key(1), kGpu);
  eval(logits);
  run(state, [&](const array& k) { return random::categorical(logits, -1, k, kGpu); });
}

void BM_GpuPermutation(benchmark::State& state) {
  run(state, [](const array& k) { return random::permutation(kN, k, kGpu); });
}

}  // namespace

BENCHMARK(BM_GpuRandintInt32)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_GpuRandintInt64)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_GpuBernoulli)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_GpuTruncatedNormal)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_GpuGumbel)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_GpuLaplace)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_GpuCategorical)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_GpuPermutation)->Unit(benchmark::kMillisecond)->UseRealTime();
