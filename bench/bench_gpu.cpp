// The Vulkan backend against its own copy shader, in one process:
//   build/bench/bench_gpu
// Issue 3's bars: float32 add of 256M elements at >= 90% of the bandwidth of
// a plain copy shader (PlainCopyKernel: one vec4 load and store per thread,
// no index work; Copy is the copy primitive, with its strided machinery); at
// most 5 us per op for a 1000-op graph of small ops. The *Vec4Kernel
// benchmarks are hand-written kernels for the same work as the built-in op
// beside them.
// Sizes past the device's storage-buffer range are skipped with a note. Each
// loop is bench::eval_loop's (gpu_bench.h): times are wall times of evaluated
// work, and the counter gpu_time is the GPU's own time per iteration.
#include <benchmark/benchmark.h>

#include <cstring>
#include <vector>

#include "gpu_bench.h"
#include "mlx_lite/mlx_lite.h"
#include "mlx_lite/ops/fast.h"

using namespace mlx_lite;

namespace {

const Device kGpu(Device::gpu);

array filled(int64_t n, float value) {
  array a = add(zeros({static_cast<int>(n)}, float32, kGpu), array(value), kGpu);
  eval(a);
  return a;
}

void BM_GpuCopy(benchmark::State& state) {
  const int64_t n = state.range(0);
  if (!fits_one_binding(state, n * 4)) return;
  array a = filled(n, 1.0f);
  bench::eval_loop(state, [&] { return copy(a, kGpu); });
  state.SetBytesProcessed(state.iterations() * n * 2 * 4);
}

void BM_GpuPlainCopyKernel(benchmark::State& state) {
  const int64_t n = state.range(0);
  if (!fits_one_binding(state, n * 4)) return;
  static const auto kernel = fast::vulkan_kernel("plain_copy", {"inp"}, {"out"}, R"(
    uint i = thread_position_in_grid.x;
    out_vec4[i] = inp_vec4[i];
  )");
  array a = filled(n, 1.0f);
  bench::eval_loop(state, [&] {
    return kernel({a}, {a.shape()}, {float32}, {static_cast<int>(n / 4), 1, 1}, {256, 1, 1}, {},
                  std::nullopt, false, kGpu)[0];
  });
  state.SetBytesProcessed(state.iterations() * n * 2 * 4);
}

// Hand-written vec4 kernels (fast::vulkan_kernel) for what the built-in add
// and broadcast multiply do: the most those ops could reach on this device.
void BM_GpuAddVec4Kernel(benchmark::State& state) {
  const int64_t n = state.range(0);
  if (!fits_one_binding(state, n * 4)) return;
  static const auto kernel = fast::vulkan_kernel("add_vec4", {"a", "b"}, {"out"}, R"(
    uint i = thread_position_in_grid.x;
    out_vec4[i] = a_vec4[i] + b_vec4[i];
  )");
  array a = filled(n, 1.0f), b = filled(n, 2.0f);
  bench::eval_loop(state, [&] {
    return kernel({a, b}, {a.shape()}, {float32}, {static_cast<int>(n / 4), 1, 1}, {256, 1, 1}, {},
                  std::nullopt, false, kGpu)[0];
  });
  state.SetBytesProcessed(state.iterations() * n * 3 * 4);
}

void BM_GpuBroadcastMultiplyVec4Kernel(benchmark::State& state) {
  const int64_t n = state.range(0);
  if (!fits_one_binding(state, n * 4)) return;
  const int rows = static_cast<int>(n / 64);
  static const auto kernel = fast::vulkan_kernel("broadcast_multiply_vec4", {"a", "b"}, {"out"}, R"(
    uint i = thread_position_in_grid.x;
    out_vec4[i] = a_vec4[i] * b[i / 16u];
  )");
  array a = reshape(filled(n, 1.0f), {rows, 64}, kGpu);
  array b = reshape(filled(rows, 2.0f), {rows, 1}, kGpu);
  eval({a, b});
  bench::eval_loop(state, [&] {
    return kernel({a, b}, {a.shape()}, {float32}, {static_cast<int>(n / 4), 1, 1}, {256, 1, 1}, {},
                  std::nullopt, false, kGpu)[0];
  });
  state.SetBytesProcessed(state.iterations() * (n * 2 + rows) * 4);
}

void BM_GpuAdd(benchmark::State& state) {
  const int64_t n = state.range(0);
  if (!fits_one_binding(state, n * 4)) return;
  array a = filled(n, 1.0f), b = filled(n, 2.0f);
  bench::eval_loop(state, [&] { return add(a, b, kGpu); });
  state.SetBytesProcessed(state.iterations() * n * 3 * 4);
}

// (n / 64, 64) times a broadcast (n / 64, 1) column, float32: grid_sample's
// `weight[..., None] * pixels` (strided path, runs along the last dim).
void BM_GpuBroadcastMultiply(benchmark::State& state) {
  const int64_t n = state.range(0);
  if (!fits_one_binding(state, n * 4)) return;
  const int rows = static_cast<int>(n / 64);
  array a = reshape(filled(n, 1.0f), {rows, 64}, kGpu);
  array b = reshape(filled(rows, 2.0f), {rows, 1}, kGpu);
  eval({a, b});
  bench::eval_loop(state, [&] { return multiply(a, b, kGpu); });
  state.SetBytesProcessed(state.iterations() * (n * 2 + rows) * 4);
}

// Sum over the last axis of (rows, n / rows) float32: one workgroup per row.
// Few rows (a full reduction) leave most of the GPU idle: the figure for
// rows = 1 shows what a two-pass kernel would fix.
void BM_GpuSumRows(benchmark::State& state) {
  const int64_t n = int64_t{1} << 26, rows = state.range(0);
  if (!fits_one_binding(state, n * 4)) return;
  array a = reshape(filled(n, 1.0f), {static_cast<int>(rows), static_cast<int>(n / rows)}, kGpu);
  eval(a);
  bench::eval_loop(state, [&] { return sum(a, -1, false, kGpu); });
  state.SetBytesProcessed(state.iterations() * n * 4);
}

// 1000 dependent small ops in one eval: the per-op cost of recording,
// dispatching and barriers.
void BM_GpuSmallOpGraph(benchmark::State& state) {
  constexpr int kOps = 1000;
  array x = filled(16, 0.0f), one = filled(16, 1.0f);
  bench::eval_loop(state, [&] {
    array y = x;
    for (int i = 0; i < kOps; ++i) y = add(y, one, kGpu);
    return y;
  });
  state.counters["seconds_per_op"] = benchmark::Counter(
      kOps, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

}  // namespace

BENCHMARK(BM_GpuCopy)
    ->Arg(1 << 20)
    ->Arg(1 << 25)
    ->Arg(1 << 28)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_GpuPlainCopyKernel)
    ->Arg(1 << 20)
    ->Arg(1 << 25)
    ->Arg(1 << 28)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_GpuAdd)
    ->Arg(1 << 20)
    ->Arg(1 << 25)
    ->Arg(1 << 28)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_GpuAddVec4Kernel)
    ->Arg(1 << 25)
    ->Arg(1 << 28)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_GpuBroadcastMultiplyVec4Kernel)
    ->Arg(1 << 22)
    ->Arg(1 << 25)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_GpuBroadcastMultiply)
    ->Arg(1 << 22)
    ->Arg(1 << 25)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_GpuSumRows)
    ->Arg(1)
    ->Arg(1024)
    ->Arg(65536)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_GpuSmallOpGraph)->Unit(benchmark::kMillisecond)->UseRealTime();

// A fill (zeros: a copy of one broadcast element) and a multiply by a scalar:
// each has an operand that is one element everywhere, which the dense path
// reads as a splat (backend/vulkan/elementwise.cpp).
namespace {

void BM_GpuFill(benchmark::State& state) {
  const int64_t n = state.range(0);
  if (!fits_one_binding(state, n * 4)) return;
  bench::eval_loop(state, [&] { return zeros({static_cast<int>(n)}, float32, kGpu); });
  state.SetBytesProcessed(state.iterations() * n * 4);
}

void BM_GpuScalarMultiply(benchmark::State& state) {
  const int64_t n = state.range(0);
  if (!fits_one_binding(state, n * 4)) return;
  array a = filled(n, 1.0f);
  bench::eval_loop(state, [&] { return multiply(a, array(2.0f), kGpu); });
  state.SetBytesProcessed(state.iterations() * n * 2 * 4);
}

}  // namespace

BENCHMARK(BM_GpuFill)->Arg(1 << 25)->Arg(1 << 28)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_GpuScalarMultiply)
    ->Arg(1 << 25)
    ->Arg(1 << 28)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// Reductions to one value of 64M float32 (two passes) and argmax over them.
namespace {

void BM_GpuFullSum(benchmark::State& state) {
  const int64_t n = int64_t{1} << 26;
  if (!fits_one_binding(state, n * 4)) return;
  array a = filled(n, 1.0f);
  bench::eval_loop(state, [&] { return sum(a, kGpu); });
  state.SetBytesProcessed(state.iterations() * n * 4);
}

void BM_GpuFullArgmax(benchmark::State& state) {
  const int64_t n = int64_t{1} << 26;
  if (!fits_one_binding(state, n * 4)) return;
  array a = filled(n, 1.0f);
  bench::eval_loop(state, [&] { return argmax(a, kGpu); });
  state.SetBytesProcessed(state.iterations() * n * 4);
}

// One eval of a one-element add: what every eval pays at least, recording
// and submitting a batch, the GPU's start and finish, and the host noticing
// (the eval round trip; compare PyTorch's `x + 1` and synchronize).
void BM_GpuEvalRoundTrip(benchmark::State& state) {
  array x = filled(1, 0.0f), one = filled(1, 1.0f);
  bench::eval_loop(state, [&] { return add(x, one, kGpu); });
}

}  // namespace

BENCHMARK(BM_GpuEvalRoundTrip)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_GpuFullSum)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_GpuFullArgmax)->Unit(benchmark::kMillisecond)->UseRealTime();

// Issue 14's elementwise ops at 16M float32 elements: a polynomial unary
// (arctan), one with a range split (expm1), one that writes bool (isfinite:
// 5 bytes an element), and the binary ops with the most work per element (arctan2,
// logaddexp, remainder's exact fmod) and an integer one (floor_divide).
namespace {

array spread(int64_t n, float lo, float hi, uint64_t seed) {
  array a = random::uniform(lo, hi, {static_cast<int>(n)}, float32, random::key(seed), kGpu);
  eval(a);
  return a;
}

template <array (*Op)(const array&, StreamOrDevice)>
void BM_GpuUnaryOp(benchmark::State& state) {
  const int64_t n = state.range(0);
  if (!fits_one_binding(state, n * 4)) return;
  array a = spread(n, -3.0f, 3.0f, 1);
  const int64_t out_bytes = Op(a, kGpu).itemsize();
  bench::eval_loop(state, [&] { return Op(a, kGpu); });
  state.SetBytesProcessed(state.iterations() * n * (4 + out_bytes));
}

template <array (*Op)(const array&, const array&, StreamOrDevice)>
void BM_GpuBinaryOp(benchmark::State& state) {
  const int64_t n = state.range(0);
  if (!fits_one_binding(state, n * 4)) return;
  array a = spread(n, -100.0f, 100.0f, 2), b = spread(n, 0.5f, 7.0f, 3);
  bench::eval_loop(state, [&] { return Op(a, b, kGpu); });
  state.SetBytesProcessed(state.iterations() * n * 3 * 4);
}

void BM_GpuFloorDivideInt32(benchmark::State& state) {
  const int64_t n = state.range(0);
  if (!fits_one_binding(state, n * 4)) return;
  array a = astype(spread(n, -1000.0f, 1000.0f, 4), int32, kGpu);
  array b = astype(spread(n, -9.0f, 9.0f, 5), int32, kGpu);
  eval({a, b});
  bench::eval_loop(state, [&] { return floor_divide(a, b, kGpu); });
  state.SetBytesProcessed(state.iterations() * n * 3 * 4);
}

}  // namespace

BENCHMARK(BM_GpuUnaryOp<arctan>)
    ->Name("BM_GpuArctan")
    ->Arg(1 << 24)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_GpuUnaryOp<expm1>)
    ->Name("BM_GpuExpm1")
    ->Arg(1 << 24)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_GpuUnaryOp<isfinite>)
    ->Name("BM_GpuIsfinite")
    ->Arg(1 << 24)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_GpuBinaryOp<arctan2>)
    ->Name("BM_GpuArctan2")
    ->Arg(1 << 24)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_GpuBinaryOp<logaddexp>)
    ->Name("BM_GpuLogaddexp")
    ->Arg(1 << 24)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_GpuBinaryOp<remainder>)
    ->Name("BM_GpuRemainder")
    ->Arg(1 << 24)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_GpuFloorDivideInt32)->Arg(1 << 24)->Unit(benchmark::kMillisecond)->UseRealTime();

// Reading an evaluated GPU array on the host, through its mapping (arrays
// live in host-visible device memory): element by element, as the CPU
// backend and a user's loop over data<T>() do, and as one memcpy into host
// memory. On a GPU whose large BAR maps device-local memory, every host read
// crosses the bus, uncached.
namespace {

void BM_GpuResultReadOnHost(benchmark::State& state) {
  const int64_t n = state.range(0);
  const bool bulk = state.range(1) != 0;
  array a = filled(n, 1.0f);
  std::vector<float> host(static_cast<size_t>(n));
  for (auto _ : state) {
    const float* p = a.data<float>();
    if (bulk) {
      std::memcpy(host.data(), p, static_cast<size_t>(n) * sizeof(float));
      benchmark::DoNotOptimize(host.data());
    } else {
      float total = 0;
      for (int64_t i = 0; i < n; ++i) total += p[i];
      benchmark::DoNotOptimize(total);
    }
  }
  state.SetBytesProcessed(state.iterations() * n * 4);
}

}  // namespace

BENCHMARK(BM_GpuResultReadOnHost)
    ->ArgNames({"n", "memcpy"})
    ->Args({1 << 18, 0})
    ->Args({1 << 18, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
