// The tuned grid_sample kernels (examples/grid_sample_tuned.h) on the GPU:
//   build/bench/bench_grid_sample_kernels [--benchmark_format=json]
// Shapes: the seed's (x 8x1024x1024x64, grid 8x256x256x2, float32) and a
// small one. Benchmarks:
//   BM_TunedForward/V    forward variant V (0: 4 channels per thread, 1: 8
//                        channels, 2: 2 points x 4 channels);
//   BM_TunedVjp          the whole VJP (all its kernels, one eval);
//   BM_TunedForwardF16/V, BM_TunedVjpF16
//                        the same with x, grid and the cotangent float16
//                        (bench/compare_torch.py sets the rows whose names
//                        say F16 against float16 F.grid_sample and Triton);
//   BM_TunedVjpStages/K  the VJP's steps 1..K (cumulative, one eval; the
//                        step's own time is the difference from K - 1):
//                        1 count, 2 offsets (cumsum), 3 scatter, 4 sort,
//                        5 x_grad, and 6 grid_grad alone;
//   BM_TunedVjpXGrad/V   step 5 alone (its inputs made beforehand), V = 1,
//                        2, 4 or 8 vectors of 4 channels per thread.
// bytes_per_second counts the bytes a single pass must move at least
// (grid_sample_bench.h's forward_bytes and vjp_bytes, which count 4 bytes an
// element: halved for float16).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <optional>

#include "examples/grid_sample_tuned.h"
#include "grid_sample_bench.h"

using namespace mlx_lite;
using namespace grid_sample_bench;

namespace {

// make_inputs's arrays in `dtype` (float16: rounded), evaluated.
std::optional<Inputs> inputs_in(benchmark::State& state, const Sizes& s, Dtype dtype) {
  auto inputs = make_inputs(state, s);
  if (!inputs || dtype == float32) return inputs;
  Inputs cast{astype(inputs->x, dtype, kGpu), astype(inputs->grid, dtype, kGpu),
              astype(inputs->cotangent, dtype, kGpu)};
  eval({cast.x, cast.grid, cast.cotangent});
  return cast;
}

// grid_sample_bench.h's byte counts (float32's) for `dtype`.
int64_t in_dtype(int64_t float32_bytes, Dtype dtype) {
  return float32_bytes / 4 * size_of(dtype);
}

void tuned_forward(benchmark::State& state, int variant, Dtype dtype) {
  const Sizes s = sizes_of(state);
  const auto inputs = inputs_in(state, s, dtype);
  if (!inputs) return;
  bench::eval_loop(
      state, [&] { return examples::grid_sample_tuned_forward(inputs->x, inputs->grid, variant); });
  state.SetBytesProcessed(state.iterations() * in_dtype(forward_bytes(s), dtype));
}

void tuned_vjp(benchmark::State& state, Dtype dtype) {
  const Sizes s = sizes_of(state);
  const auto inputs = inputs_in(state, s, dtype);
  if (!inputs) return;
  bench::eval_loop(state, [&] {
    auto [x_grad, grid_grad] =
        examples::grid_sample_tuned_vjp(inputs->x, inputs->grid, inputs->cotangent);
    return std::vector<array>{x_grad, grid_grad};
  });
  state.SetBytesProcessed(state.iterations() * in_dtype(vjp_bytes(s), dtype));
}

template <int Variant>
void BM_TunedForward(benchmark::State& state) {
  tuned_forward(state, Variant, float32);
}

template <int Variant>
void BM_TunedForwardF16(benchmark::State& state) {
  tuned_forward(state, Variant, float16);
}

void BM_TunedVjp(benchmark::State& state) {
  tuned_vjp(state, float32);
}

void BM_TunedVjpF16(benchmark::State& state) {
  tuned_vjp(state, float16);
}

// The x_grad kernel alone (step 5, its inputs evaluated first) with 1, 2, 4
// or 8 vectors of x_grad per thread. Arguments: N, H, W, C, gH, gW, vectors.
void BM_TunedVjpXGrad(benchmark::State& state) {
  const Sizes s = sizes_of(state);
  const int vectors = static_cast<int>(state.range(6));
  const auto inputs = make_inputs(state, s);
  if (!inputs) return;
  auto st = examples::grid_sample_tuned_detail::vjp_stages(inputs->x, inputs->grid,
                                                           inputs->cotangent, vectors);
  eval({st.local, st.row_offset, st.sorted});
  bench::eval_loop(state, [&] {
    return examples::grid_sample_tuned_detail::x_grad_step(
        inputs->x, inputs->grid, inputs->cotangent, st.local, st.row_offset, st.sorted, vectors);
  });
  state.SetBytesProcessed(state.iterations() * int64_t(s.n) * s.h * s.w * s.c * 4);
}

// Arguments: N, H, W, C, gH, gW, K.
void BM_TunedVjpStages(benchmark::State& state) {
  const Sizes s = sizes_of(state);
  const int stage = static_cast<int>(state.range(6));
  const auto inputs = make_inputs(state, s);
  if (!inputs) return;
  static const char* const kLabels[] = {"",         "1 count",    "1-2 offsets",      "1-3 scatter",
                                        "1-4 sort", "1-5 x_grad", "6 grid_grad alone"};
  state.SetLabel(kLabels[std::clamp(stage, 1, 6)]);
  bench::eval_loop(state, [&]() -> std::vector<array> {
    auto st =
        examples::grid_sample_tuned_detail::vjp_stages(inputs->x, inputs->grid, inputs->cotangent);
    switch (stage) {
      case 1:
        return {st.counts, st.rank, st.run};
      case 2:
        return {st.rank, st.run, st.local, st.row_offset};
      case 3:
        return {st.local, st.row_offset, st.slots, st.runlen};
      case 4:
        return {st.local, st.row_offset, st.sorted};
      case 5:
        return {st.x_grad};
      default:
        return {st.grid_grad};
    }
  });
}

void stages(benchmark::internal::Benchmark* b) {
  for (int k = 1; k <= 6; ++k) {
    b->Args({1, 64, 64, 32, 32, 32, k});
    b->Args({8, 1024, 1024, 64, 256, 256, k});
  }
  timed_in_ms(b);
}

}  // namespace

BENCHMARK_TEMPLATE(BM_TunedForward, 0)->Apply(seed_and_small);
BENCHMARK_TEMPLATE(BM_TunedForward, 1)->Apply(seed_and_small);
BENCHMARK_TEMPLATE(BM_TunedForward, 2)->Apply(seed_and_small);
BENCHMARK(BM_TunedVjp)->Apply(seed_and_small);
BENCHMARK_TEMPLATE(BM_TunedForwardF16, 0)->Apply(seed_and_small);
BENCHMARK_TEMPLATE(BM_TunedForwardF16, 1)->Apply(seed_and_small);
BENCHMARK_TEMPLATE(BM_TunedForwardF16, 2)->Apply(seed_and_small);
BENCHMARK(BM_TunedVjpF16)->Apply(seed_and_small);
BENCHMARK(BM_TunedVjpStages)->Apply(stages);
BENCHMARK(BM_TunedVjpXGrad)
    ->Args({1, 64, 64, 32, 32, 32, 1})
    ->Args({1, 64, 64, 32, 32, 32, 2})
    ->Args({8, 1024, 1024, 64, 256, 256, 1})
    ->Args({8, 1024, 1024, 64, 256, 256, 2})
    ->Args({8, 1024, 1024, 64, 256, 256, 4})
    ->Args({8, 1024, 1024, 64, 256, 256, 8})
    ->Apply(timed_in_ms);
