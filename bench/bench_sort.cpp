// Sorting, selection and the scans on the GPU:
//   build/bench/bench_sort
// Shapes as rows x row length (the sorted axis is the last): 1024 x 1024
// (one workgroup per row, bitonic in shared memory), 16 x 65536 and
// 1 x 2^20 (sorted blocks, then merge passes). Float32 normal values, and
// int32 counts for BM_GpuCumsumInt32.
// bench/compare_torch_sort.py times the same cases in PyTorch. Times are
// wall times of evaluated work (bench::eval_loop, gpu_bench.h); the counter
// gpu_time is the GPU's own time per iteration.
#include <benchmark/benchmark.h>

#include "gpu_bench.h"
#include "mlx_lite/mlx_lite.h"

using namespace mlx_lite;

namespace {

const Device kGpu(Device::gpu);

array normal_rows(benchmark::State& state) {
  const auto rows = static_cast<ShapeElem>(state.range(0));
  const auto len = static_cast<ShapeElem>(state.range(1));
  array a = random::normal({rows, len}, float32, 0, 1, random::key(0), kGpu);
  eval(a);
  state.SetItemsProcessed(0);
  return a;
}

void set_items(benchmark::State& state) {
  state.SetItemsProcessed(state.iterations() * state.range(0) * state.range(1));
}

void BM_GpuSort(benchmark::State& state) {
  array a = normal_rows(state);
  bench::eval_loop(state, [&] { return sort(a, -1, kGpu); });
  set_items(state);
}

void BM_GpuArgsort(benchmark::State& state) {
  array a = normal_rows(state);
  bench::eval_loop(state, [&] { return argsort(a, -1, kGpu); });
  set_items(state);
}

// The 8 largest of each row.
void BM_GpuTopk8(benchmark::State& state) {
  array a = normal_rows(state);
  bench::eval_loop(state, [&] { return topk(a, 8, -1, kGpu); });
  set_items(state);
}

void BM_GpuCumsum(benchmark::State& state) {
  array a = normal_rows(state);
  bench::eval_loop(state, [&] { return cumsum(a, -1, false, true, kGpu); });
  set_items(state);
}

// The exclusive cumsum of int32 counts along rows of 1024: grid_sample_tuned's
// VJP takes its buckets' offsets so (8210 rows on the seed's shapes).
void BM_GpuCumsumInt32(benchmark::State& state) {
  const Shape shape{static_cast<ShapeElem>(state.range(0)), static_cast<ShapeElem>(state.range(1))};
  array a = random::randint(0, 16, shape, int32, random::key(0), kGpu);
  eval(a);
  bench::eval_loop(state, [&] { return cumsum(a, -1, false, false, kGpu); });
  set_items(state);
}

void BM_GpuCumprod(benchmark::State& state) {
  array a = normal_rows(state);
  bench::eval_loop(state, [&] { return cumprod(a, -1, false, true, kGpu); });
  set_items(state);
}

void BM_GpuCummax(benchmark::State& state) {
  array a = normal_rows(state);
  bench::eval_loop(state, [&] { return cummax(a, -1, false, true, kGpu); });
  set_items(state);
}

void BM_GpuLogcumsumexp(benchmark::State& state) {
  array a = normal_rows(state);
  bench::eval_loop(state, [&] { return logcumsumexp(a, -1, false, true, kGpu); });
  set_items(state);
}

void shapes(benchmark::internal::Benchmark* b) {
  b->Args({1024, 1024})->Args({16, 65536})->Args({1, 1 << 20});
  b->Unit(benchmark::kMillisecond)->UseRealTime();
}

}  // namespace

BENCHMARK(BM_GpuSort)->Apply(shapes);
BENCHMARK(BM_GpuArgsort)->Apply(shapes);
BENCHMARK(BM_GpuTopk8)->Apply(shapes);
BENCHMARK(BM_GpuCumsum)->Apply(shapes);
BENCHMARK(BM_GpuCumsumInt32)->Args({8210, 1024})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_GpuCumprod)->Apply(shapes);
BENCHMARK(BM_GpuCummax)->Apply(shapes);
BENCHMARK(BM_GpuLogcumsumexp)->Apply(shapes);
