// The CPU backend against plain C++ and Eigen, in one process (every op runs
// on Device::cpu, whatever the default device):
//   build/bench/bench_core --benchmark_min_time=1
// Issue 2's bars: add within 1.5x of std::transform, matmul within 1.2x of
// Eigen, under 20 us per op for a graph of 10,000 scalar ops.
#include <benchmark/benchmark.h>

#include <Eigen/Core>
#include <algorithm>
#include <functional>
#include <vector>

#include "mlx_lite/mlx_lite.h"

using namespace mlx_lite;

namespace {

constexpr int kAddSize = 16 << 20;  // 16M float32
constexpr int kMatmulSize = 1024;
constexpr int kGraphOps = 10000;
const Device kCpu(Device::cpu);

void BM_Add_StdTransform(benchmark::State& state) {
  std::vector<float> a(kAddSize, 1.0f), b(kAddSize, 2.0f), out(kAddSize);
  for (auto _ : state) {
    std::transform(a.begin(), a.end(), b.begin(), out.begin(), std::plus<float>());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * int64_t{kAddSize} * 3 * sizeof(float));
}

void BM_Add_MlxLite(benchmark::State& state) {
  // Materialized inputs, not broadcasts.
  array a = add(full({kAddSize}, 1.0f, kCpu), array(0.0f), kCpu);
  array b = add(full({kAddSize}, 2.0f, kCpu), array(0.0f), kCpu);
  eval({a, b});
  for (auto _ : state) {
    array out = add(a, b, kCpu);
    eval(out);
    benchmark::DoNotOptimize(out.data<float>());
  }
  state.SetBytesProcessed(state.iterations() * int64_t{kAddSize} * 3 * sizeof(float));
}

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

void BM_Matmul_Eigen(benchmark::State& state) {
  RowMatrix a = RowMatrix::Random(kMatmulSize, kMatmulSize);
  RowMatrix b = RowMatrix::Random(kMatmulSize, kMatmulSize);
  RowMatrix c(kMatmulSize, kMatmulSize);
  for (auto _ : state) {
    c.noalias() = a * b;
    benchmark::DoNotOptimize(c.data());
  }
  state.SetItemsProcessed(state.iterations() * 2 * int64_t{kMatmulSize} * kMatmulSize *
                          kMatmulSize);
}

void BM_Matmul_MlxLite(benchmark::State& state) {
  array a = random::normal({kMatmulSize, kMatmulSize}, random::key(1), kCpu);
  array b = random::normal({kMatmulSize, kMatmulSize}, random::key(2), kCpu);
  eval({a, b});
  for (auto _ : state) {
    array c = matmul(a, b, kCpu);
    eval(c);
    benchmark::DoNotOptimize(c.data<float>());
  }
  state.SetItemsProcessed(state.iterations() * 2 * int64_t{kMatmulSize} * kMatmulSize *
                          kMatmulSize);
}

// Graph building plus evaluation of a chain of scalar ops: the per-op cost of
// the framework itself (allocation, graph walk, dispatch).
void BM_ScalarGraph(benchmark::State& state) {
  array one(1.0f);
  for (auto _ : state) {
    array x(0.0f);
    for (int i = 0; i < kGraphOps; ++i) x = (i % 2) ? add(x, one, kCpu) : multiply(x, one, kCpu);
    eval(x);
    benchmark::DoNotOptimize(x.item<float>());
  }
  // Seconds per op (Google Benchmark prints it with an SI prefix: 219n = 219 ns).
  state.counters["seconds_per_op"] = benchmark::Counter(
      kGraphOps, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

}  // namespace

BENCHMARK(BM_Add_StdTransform)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Add_MlxLite)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Matmul_Eigen)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Matmul_MlxLite)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_ScalarGraph)->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK_MAIN();
