// 2-D convolutions on the GPU:
//   build/bench/bench_conv
// Args: batch, height, width, C_in, C_out, kernel, stride, dtype (0 float32,
// 1 float16, 2 bfloat16), groups; padding kernel / 2. Channels-last (N, H, W, C)
// input, (C_out, K, K, C_in) weight, normal values. Cases: the ResNet-50
// stage-1 3x3 layer (32 x 56 x 56, 64 -> 64), its strided 3x3 (64 -> 128,
// stride 2), a 1x1 (64 -> 256), a depthwise 3x3 (128 channels, MobileNet
// style), and a small 3x3 that fits lavapipe's
// 128 MiB bindings. BM_GpuConv2dGrad times the gradients with respect to the
// input and the weight of the sum of the output (one backward pass).
// bench/compare_torch_conv.py times the same cases with torch's cuDNN.
// Times are wall times of evaluated work (bench::eval_loop, gpu_bench.h);
// the counter gpu_time is the GPU's own time per iteration; items are
// floating-point operations (2 per multiply-add), so items_per_second is
// FLOP/s.
#include <benchmark/benchmark.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gpu_bench.h"
#include "mlx_lite/mlx_lite.h"

using namespace mlx_lite;

namespace {

const Device kGpu(Device::gpu);

struct Problem {
  array x, w;
  int stride, padding, groups;
  int64_t flops;
};

Dtype dtype_arg(int64_t i) {
  return i == 0 ? float32 : i == 1 ? float16 : bfloat16;
}

// The arrays of one case, evaluated, or nothing when its largest
// intermediate does not fit one binding of this device.
std::optional<Problem> make_problem(benchmark::State& state) {
  const auto n = static_cast<ShapeElem>(state.range(0)), h = static_cast<ShapeElem>(state.range(1)),
             w = static_cast<ShapeElem>(state.range(2)),
             ci = static_cast<ShapeElem>(state.range(3)),
             co = static_cast<ShapeElem>(state.range(4)),
             k = static_cast<ShapeElem>(state.range(5)),
             stride = static_cast<ShapeElem>(state.range(6));
  const Dtype dt = dtype_arg(state.range(7));
  const int groups = static_cast<int>(state.range(8));
  const int padding = k / 2;
  const int64_t oh = (h + 2 * padding - k) / stride + 1, ow = (w + 2 * padding - k) / stride + 1;
  const int64_t m = n * oh * ow, depth = int64_t{k} * k * ci / groups;
  // The largest array: the patch matrix, or for a depthwise conv (no
  // patches) the padded input in float32.
  const bool depthwise = groups == ci && co == ci;
  const int64_t bytes = depthwise ? int64_t{n} * (h + 2 * padding) * (w + 2 * padding) * ci * 4
                                  : m * depth * groups * static_cast<int64_t>(size_of(dt));
  if (!fits_one_binding(state, bytes)) return {};
  Problem p{astype(random::normal({n, h, w, ci}, float32, 0, 1, random::key(0), kGpu), dt, kGpu),
            astype(random::normal({co, k, k, ci / groups}, float32, 0, 0.1f, random::key(1), kGpu),
                   dt, kGpu),
            stride,
            padding,
            groups,
            2 * m * depth * co};
  eval({p.x, p.w});
  state.SetLabel(std::string(dtype_name(dt)));
  return p;
}

void BM_GpuConv2d(benchmark::State& state) {
  auto p = make_problem(state);
  if (!p) return;
  bench::eval_loop(state, [&] {
    return conv2d(p->x, p->w, {p->stride, p->stride}, {p->padding, p->padding}, {1, 1}, p->groups,
                  kGpu);
  });
  state.SetItemsProcessed(state.iterations() * p->flops);
}

// Gradients of sum(conv2d(x, w)) with respect to x and w: two convolutions'
// worth of work (each about the forward's FLOPs).
void BM_GpuConv2dGrad(benchmark::State& state) {
  auto p = make_problem(state);
  if (!p) return;
  const int stride = p->stride, padding = p->padding, groups = p->groups;
  auto loss = [stride, padding, groups](const std::vector<array>& in) {
    return sum(conv2d(in[0], in[1], {stride, stride}, {padding, padding}, {1, 1}, groups, kGpu),
               false, kGpu);
  };
  auto g = grad(std::function<array(const std::vector<array>&)>(loss), std::vector<int>{0, 1});
  bench::eval_loop(state, [&] { return g({p->x, p->w}); });
  state.SetItemsProcessed(state.iterations() * 2 * p->flops);
}

void shapes(benchmark::internal::Benchmark* b) {
  for (int64_t dt : {0, 1, 2}) {
    b->Args({32, 56, 56, 64, 64, 3, 1, dt, 1});      // ResNet 3x3
    b->Args({32, 56, 56, 64, 128, 3, 2, dt, 1});     // strided 3x3
    b->Args({32, 56, 56, 64, 256, 1, 1, dt, 1});     // 1x1
    b->Args({32, 56, 56, 128, 128, 3, 1, dt, 128});  // depthwise 3x3
    b->Args({4, 28, 28, 32, 32, 3, 1, dt, 1});       // small 3x3 (fits lavapipe)
  }
  b->Unit(benchmark::kMillisecond)->UseRealTime();
}

void grad_shapes(benchmark::internal::Benchmark* b) {
  for (int64_t dt : {0, 1}) {
    b->Args({32, 56, 56, 64, 64, 3, 1, dt, 1});
    b->Args({4, 28, 28, 32, 32, 3, 1, dt, 1});
  }
  b->Unit(benchmark::kMillisecond)->UseRealTime();
}

}  // namespace

BENCHMARK(BM_GpuConv2d)->Apply(shapes);
BENCHMARK(BM_GpuConv2dGrad)->Apply(grad_shapes);
