// MLX's reducing scatters and masked_scatter on the GPU:
//   build/bench/bench_indexing
// Each scatter adds, multiplies or maxes 65536 rows of 256 float32 (or int32)
// updates into a (16384, 256) array at random rows (about four updates per
// row, so the atomics contend), as torch's index_add_/index_reduce_ do in
// bench/compare_torch_indexing.py. masked_scatter fills the true half of a
// 16M-element mask. Times are wall times of evaluated work
// (bench::eval_loop, gpu_bench.h); gpu_time is the GPU's own time.
#include <benchmark/benchmark.h>

#include "gpu_bench.h"
#include "mlx_lite/mlx_lite.h"

using namespace mlx_lite;

namespace {

const Device kGpu(Device::gpu);
constexpr int kRows = 16384, kCols = 256, kUpdates = 65536;

using ScatterFn = array (*)(const array&, const array&, const array&, int, StreamOrDevice);

template <ScatterFn Scatter>
void BM_GpuScatterRows(benchmark::State& state) {
  const Dtype dtype = state.range(0) ? int32 : float32;
  const array a = astype(random::uniform(0.5f, 1.5f, {kRows, kCols}, float32, random::key(1), kGpu),
                         dtype, kGpu);
  const array upd =
      astype(random::uniform(0.5f, 1.5f, {kUpdates, 1, kCols}, float32, random::key(2), kGpu),
             dtype, kGpu);
  const array idx = random::randint(0, kRows, {kUpdates}, int32, random::key(3), kGpu);
  eval({a, upd, idx});
  bench::eval_loop(state, [&] { return Scatter(a, idx, upd, 0, kGpu); });
  // Read the source and the updates, write the output.
  state.SetBytesProcessed(state.iterations() * (2 * a.nbytes() + upd.nbytes()));
}

void BM_GpuMaskedScatter(benchmark::State& state) {
  constexpr int n = 1 << 24;
  const array a = zeros({n}, float32, kGpu);
  const array mask = random::bernoulli(0.5f, {n}, random::key(4), kGpu);
  const array src = random::normal({n}, float32, 0.0f, 1.0f, random::key(5), kGpu);
  eval({a, mask, src});
  bench::eval_loop(state, [&] { return masked_scatter(a, mask, src, kGpu); });
  state.SetItemsProcessed(state.iterations() * n);
}

void BM_GpuSliceUpdateAdd(benchmark::State& state) {
  const array a = zeros({4096, 4096}, float32, kGpu);
  const array upd = ones({2048, 4096}, float32, kGpu);
  eval({a, upd});
  bench::eval_loop(state, [&] { return slice_update_add(a, upd, {1024, 0}, {3072, 4096}, kGpu); });
  state.SetBytesProcessed(state.iterations() * (2 * a.nbytes() + upd.nbytes()));
}

}  // namespace

BENCHMARK(BM_GpuScatterRows<scatter_add>)
    ->Name("BM_GpuScatterAdd")
    ->ArgName("int32")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_GpuScatterRows<scatter_prod>)
    ->Name("BM_GpuScatterProd")
    ->ArgName("int32")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_GpuScatterRows<scatter_max>)
    ->Name("BM_GpuScatterMax")
    ->ArgName("int32")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_GpuMaskedScatter)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_GpuSliceUpdateAdd)->Unit(benchmark::kMillisecond)->UseRealTime();
