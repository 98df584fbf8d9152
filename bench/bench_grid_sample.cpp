// grid_sample on the GPU, composed from mlx_lite's ops
// (examples/grid_sample_ref.h) and with the documentation's custom kernels
// (examples/grid_sample_kernels.h; the tuned pair is in
// bench_grid_sample_kernels):
//   build/bench/bench_grid_sample [--benchmark_format=json]
// Shapes: the seed's (x 8x1024x1024x64, grid 8x256x256x2, float32) and a
// small one. bench/compare_torch.py times the same composed ops and
// F.grid_sample in PyTorch on the same GPU. bytes_per_second counts the
// bytes a single pass must move at least (grid_sample_bench.h's
// forward_bytes and vjp_bytes; both for a VJP with its forward). Each
// repetition warms up first (grid_sample_bench.h's timed_in_ms, and
// bench::eval_loop's own warm-up call); the counter gpu_time is the GPU's own
// time per iteration.
#include "examples/grid_sample_kernels.h"
#include "examples/grid_sample_ref.h"
#include "grid_sample_bench.h"
#include "mlx_lite/allocator.h"
#include "mlx_lite/memory.h"

using namespace mlx_lite;

namespace {

using namespace grid_sample_bench;

void BM_GridSampleComposedForward(benchmark::State& state) {
  const auto inputs = make_inputs(state, sizes_of(state));
  if (!inputs) return;
  const Inputs& in = *inputs;
  bench::eval_loop(state, [&] { return examples::grid_sample_ref(in.x, in.grid); });
  state.SetBytesProcessed(state.iterations() * forward_bytes(sizes_of(state)));
}

// The vjp of the composed forward with respect to x and grid (forward
// included), as PyTorch's forward + backward through the same ops.
void BM_GridSampleComposedVjp(benchmark::State& state) {
  const auto [n, h, w, c, gh, gw] = sizes_of(state);
  const auto inputs = make_inputs(state, sizes_of(state));
  if (!inputs) return;
  const Inputs& in = *inputs;
  array cotangent = ones({n, gh, gw, c}, float32, kGpu);
  auto f = [](const std::vector<array>& args) {
    return std::vector<array>{examples::grid_sample_ref(args[0], args[1])};
  };
  auto& memory = allocator::allocator();
  reset_peak_memory();
  const size_t blocks_before = memory.blocks_allocated();
  bench::eval_loop(state, [&] {
    auto [outs, grads] = vjp(f, {in.x, in.grid}, {cotangent});
    return std::vector<array>{outs[0], grads[0], grads[1]};
  });
  // Memory held at once, and blocks the cache could not provide (after the
  // first iteration, any means the cache is churning).
  state.SetBytesProcessed(state.iterations() *
                          (forward_bytes(sizes_of(state)) + vjp_bytes(sizes_of(state))));
  state.counters["peak_gib"] = static_cast<double>(get_peak_memory()) / (1 << 30);
  state.counters["new_blocks_per_iter"] =
      benchmark::Counter(static_cast<double>(memory.blocks_allocated() - blocks_before),
                         benchmark::Counter::kAvgIterations);
}

// The documentation's custom kernels (examples/grid_sample_kernels.h): the
// forward kernel; the VJP kernel alone, zeroing its outputs included (what
// bench_raw_vulkan_grid_sample times without the framework); and the vjp
// through custom_function, forward included, as ComposedVjp.
void BM_GridSampleCustomForward(benchmark::State& state) {
  const auto inputs = make_inputs(state, sizes_of(state));
  if (!inputs) return;
  bench::eval_loop(state, [&] { return examples::grid_sample_forward(inputs->x, inputs->grid); });
  state.SetBytesProcessed(state.iterations() * forward_bytes(sizes_of(state)));
}

// Eight forwards recorded into one eval (one submit, one wait): the time per
// iteration over 8 is the kernel's GPU time without the host's round trip
// per eval, which CustomForward and bench_raw_vulkan_grid_sample include.
void BM_GridSampleCustomForwardQueued8(benchmark::State& state) {
  const auto inputs = make_inputs(state, sizes_of(state));
  if (!inputs) return;
  constexpr int kQueued = 8;
  bench::eval_loop(state, [&] {
    std::vector<array> outs;
    for (int i = 0; i < kQueued; ++i) {
      outs.push_back(examples::grid_sample_forward(inputs->x, inputs->grid));
    }
    return outs;
  });
  state.SetBytesProcessed(state.iterations() * kQueued * forward_bytes(sizes_of(state)));
}

void BM_GridSampleCustomVjpKernel(benchmark::State& state) {
  const auto inputs = make_inputs(state, sizes_of(state));
  if (!inputs) return;
  // Dense, as a real cotangent (ones() would be a broadcast view the kernel copies).
  bench::eval_loop(state, [&] {
    auto [x_grad, grid_grad] =
        examples::grid_sample_vjp(inputs->x, inputs->grid, inputs->cotangent);
    return std::vector<array>{x_grad, grid_grad};
  });
  state.SetBytesProcessed(state.iterations() * vjp_bytes(sizes_of(state)));
}

void BM_GridSampleCustomVjp(benchmark::State& state) {
  const auto [n, h, w, c, gh, gw] = sizes_of(state);
  const auto inputs = make_inputs(state, sizes_of(state));
  if (!inputs) return;
  array cotangent = ones({n, gh, gw, c}, float32, kGpu);
  auto f = [](const std::vector<array>& args) {
    return std::vector<array>{examples::grid_sample(args[0], args[1])};
  };
  bench::eval_loop(state, [&] {
    auto [outs, grads] = vjp(f, {inputs->x, inputs->grid}, {cotangent});
    return std::vector<array>{outs[0], grads[0], grads[1]};
  });
  state.SetBytesProcessed(state.iterations() *
                          (forward_bytes(sizes_of(state)) + vjp_bytes(sizes_of(state))));
}

// The composed forward's big ops on the seed's shapes, one at a time, to see
// where its time goes: 0 a gather of (N, gH, gW) points with C channels each,
// 1 a multiply by a broadcast (N, gH, gW, 1) weight, 2 an add of two
// (N, gH, gW, C) arrays; and the vjp's: 3 the gather's vjp, a scatter_add of
// its (N, gH, gW, C) cotangent into zeros of x's shape (bytes: the zero fill
// of x and the updates read).
void BM_GridSampleParts(benchmark::State& state) {
  const auto [n, h, w, c, gh, gw] = kSeedSizes;
  const auto inputs = make_inputs(state, kSeedSizes);
  if (!inputs) return;
  const Inputs& in = *inputs;
  array iy = astype(floor(examples::last_axis(in.grid, 1) * float(h / 2) + float(h / 2), kGpu),
                    int32, kGpu);
  array ix = astype(floor(examples::last_axis(in.grid, 0) * float(w / 2) + float(w / 2), kGpu),
                    int32, kGpu);
  array batch = reshape(arange(n, kGpu), {n, 1, 1}, kGpu);
  array gathered = gather(in.x, {batch, iy, ix}, {0, 1, 2}, {1, 1, 1, c}, kGpu);
  array sampled = reshape(gathered, {n, gh, gw, c}, kGpu);
  array weight = expand_dims(examples::last_axis(in.grid, 0), -1, kGpu);
  eval({iy, ix, batch, gathered, sampled, weight});
  const int64_t elems = int64_t(n) * gh * gw * c;
  const int64_t part = state.range(0);
  auto run = [&]() -> array {
    switch (part) {
      case 0:
        return gather(in.x, {batch, iy, ix}, {0, 1, 2}, {1, 1, 1, c}, kGpu);
      case 1:
        return multiply(sampled, weight, kGpu);
      case 2:
        return add(sampled, sampled, kGpu);
      default:
        return scatter_add(zeros_like(in.x, kGpu), {batch, iy, ix}, gathered, {0, 1, 2}, kGpu);
    }
  };
  bench::eval_loop(state, run);
  const int64_t bytes = part == 3   ? (int64_t(n) * h * w * c + elems) * 4
                        : part == 2 ? elems * 4 * 3
                                    : elems * 4 * 2;
  state.SetBytesProcessed(state.iterations() * bytes);
}

}  // namespace

BENCHMARK(BM_GridSampleComposedVjp)->Apply(seed_and_small);
BENCHMARK(BM_GridSampleParts)->DenseRange(0, 3)->Apply(timed_in_ms);
BENCHMARK(BM_GridSampleComposedForward)->Apply(seed_and_small);
BENCHMARK(BM_GridSampleCustomForward)->Apply(seed_and_small);
BENCHMARK(BM_GridSampleCustomForwardQueued8)->Apply(seed_and_small);
BENCHMARK(BM_GridSampleCustomVjpKernel)->Apply(seed_and_small);
BENCHMARK(BM_GridSampleCustomVjp)->Apply(seed_and_small);
