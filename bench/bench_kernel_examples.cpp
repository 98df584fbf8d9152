// The kernel guide's patterns (examples/kernels/) on the GPU, at LLM-like
// shapes and at small ones:
//   build/bench/bench_kernel_examples [--benchmark_filter=small]
// Each benchmark is BM_<Kernel>/<shape>, <shape> "llm" (float16, the shapes
// of a 7B-class model's layer: 4096 tokens x 4096 features; attention 1 x 32
// heads x 1024 tokens x 128 dims) or "small" (float32, a few thousand
// elements: what lavapipe runs in seconds). bench/compare_torch.py
// --kernel-examples runs the same shapes in PyTorch and prints the ratios.
//   BM_RmsNorm        examples::rms_norm (examples/kernels/rmsnorm.h), forward
//   BM_LayerNorm      examples::layer_norm (autotuned threadgroup)
//   BM_Softmax        examples::softmax_rows (autotuned)
//   BM_Rope           examples::rope, x (1, 32, 4096, 128) row-contiguous
//   BM_RopeStrided    examples::rope_strided, x a (1, 4096, 32, 128) array
//                     seen as (1, 32, 4096, 128) by a transpose, read in place
//   BM_Silu           examples::silu (autotuned)
//   BM_Attention/<shape>_<mask>  examples::attention, mask none, causal,
//                     window (sliding window of 256), gqa (8 kv heads, causal)
//   BM_DequantMatvec  examples::dequant_matvec, x (1, 4096), w 4096 x 4096
//                     in 4 bits, groups of 64 (PyTorch's side: a float16
//                     matvec of the same size)
//   BM_SimdgroupMatmul  examples::simdgroup_matmul, float16 n x n @ n x n
//                     (n 4096, small 256) on simdgroup matrices, float16
//                     result (PyTorch's side: its float16 matmul); counter
//                     TFLOPS
// The first (untimed) call of an autotuned example tunes it; the choice is
// kept in the kernel cache's directory.
#include <benchmark/benchmark.h>

#include <functional>

#include "examples/kernels/attention.h"
#include "examples/kernels/dequant_matvec.h"
#include "examples/kernels/layernorm.h"
#include "examples/kernels/rmsnorm.h"
#include "examples/kernels/rope.h"
#include "examples/kernels/silu.h"
#include "examples/kernels/simdgroup_matmul.h"
#include "examples/kernels/softmax.h"
#include "gpu_bench.h"

using namespace mlx_lite;

namespace {

// One shape set: "llm" or "small".
struct Sizes {
  Dtype dtype;
  int tokens, features;           // row-wise kernels: (tokens, features)
  int heads, seq, head_dim;       // RoPE and attention
  int kv_heads_gqa;               // attention's GQA case
  int window;                     // attention's sliding window
  int matvec_n, matvec_k, group;  // dequant matvec
  int matmul_n;                   // simdgroup matmul (float16 whatever dtype says)
};

const Sizes kLlm{float16, 4096, 4096, 32, 1024, 128, 8, 256, 4096, 4096, 64, 4096};
const Sizes kSmall{float32, 64, 1000, 4, 64, 64, 2, 16, 256, 512, 64, 256};

array input(const Shape& shape, Dtype dtype) {
  array x = astype(random::normal(shape), dtype);
  eval(x);
  return x;
}

void run(benchmark::State& state, const std::function<array()>& fun, int64_t bytes) {
  bench::eval_loop(state, fun);
  state.SetBytesProcessed(state.iterations() * bytes);
}

void BM_RmsNorm(benchmark::State& state, const Sizes& s) {
  array x = input({s.tokens, s.features}, s.dtype);
  array w = input({s.features}, s.dtype);
  run(
      state, [&] { return examples::rms_norm(x, w, 1e-5f); }, 2 * x.nbytes());
}

void BM_LayerNorm(benchmark::State& state, const Sizes& s) {
  array x = input({s.tokens, s.features}, s.dtype);
  array w = input({s.features}, s.dtype), b = input({s.features}, s.dtype);
  run(
      state, [&] { return examples::layer_norm(x, w, b); }, 2 * x.nbytes());
}

void BM_Softmax(benchmark::State& state, const Sizes& s) {
  array x = input({s.tokens, s.features}, s.dtype);
  run(
      state, [&] { return examples::softmax_rows(x); }, 2 * x.nbytes());
}

void BM_Silu(benchmark::State& state, const Sizes& s) {
  array x = input({s.tokens, s.features}, s.dtype);
  run(
      state, [&] { return examples::silu(x); }, 2 * x.nbytes());
}

// RoPE over all `tokens` of a sequence, `heads` heads of head_dim.
void BM_Rope(benchmark::State& state, const Sizes& s) {
  array x = input({1, s.heads, s.tokens, s.head_dim}, s.dtype);
  run(
      state, [&] { return examples::rope(x); }, 2 * x.nbytes());
}

void BM_RopeStrided(benchmark::State& state, const Sizes& s) {
  array x = transpose(input({1, s.tokens, s.heads, s.head_dim}, s.dtype), {0, 2, 1, 3});
  eval(x);
  run(
      state, [&] { return examples::rope_strided(x); }, 2 * x.nbytes());
}

void BM_Attention(benchmark::State& state, const Sizes& s, examples::AttentionMask mask, bool gqa) {
  const int kv_heads = gqa ? s.kv_heads_gqa : s.heads;
  array q = input({1, s.heads, s.seq, s.head_dim}, s.dtype);
  array k = input({1, kv_heads, s.seq, s.head_dim}, s.dtype);
  array v = input({1, kv_heads, s.seq, s.head_dim}, s.dtype);
  const int window = mask == examples::AttentionMask::sliding_window ? s.window : 0;
  run(
      state, [&] { return examples::attention(q, k, v, mask, window); },
      2 * q.nbytes() + k.nbytes() + v.nbytes());
}

void BM_DequantMatvec(benchmark::State& state, const Sizes& s) {
  const int n = s.matvec_n, k = s.matvec_k;
  array w = examples::pack_4bit(random::randint(0, 16, {n, k}, int32));
  array scales = astype(random::uniform(0.01f, 0.02f, {n, k / s.group}), s.dtype);
  array biases = astype(random::normal({n, k / s.group}), s.dtype);
  array x = input({1, k}, s.dtype);
  eval(w, scales, biases);
  run(
      state, [&] { return examples::dequant_matvec(x, w, scales, biases); },
      w.nbytes() + scales.nbytes() + biases.nbytes() + x.nbytes());
}

void BM_SimdgroupMatmul(benchmark::State& state, const Sizes& s) {
  const int n = s.matmul_n;
  array a = input({n, n}, float16), b = input({n, n}, float16);
  run(
      state, [&] { return examples::simdgroup_matmul(a, b, float16); }, 3 * a.nbytes());
  state.counters["TFLOPS"] =
      benchmark::Counter(2.0 * n * n * n * state.iterations() / 1e12, benchmark::Counter::kIsRate);
}

using examples::AttentionMask;

#define KERNEL_EXAMPLE(...) \
  BENCHMARK_CAPTURE(__VA_ARGS__)->UseRealTime()->Unit(benchmark::kMillisecond)

KERNEL_EXAMPLE(BM_RmsNorm, llm, kLlm);
KERNEL_EXAMPLE(BM_RmsNorm, small, kSmall);
KERNEL_EXAMPLE(BM_LayerNorm, llm, kLlm);
KERNEL_EXAMPLE(BM_LayerNorm, small, kSmall);
KERNEL_EXAMPLE(BM_Softmax, llm, kLlm);
KERNEL_EXAMPLE(BM_Softmax, small, kSmall);
KERNEL_EXAMPLE(BM_Rope, llm, kLlm);
KERNEL_EXAMPLE(BM_Rope, small, kSmall);
KERNEL_EXAMPLE(BM_RopeStrided, llm, kLlm);
KERNEL_EXAMPLE(BM_RopeStrided, small, kSmall);
KERNEL_EXAMPLE(BM_Silu, llm, kLlm);
KERNEL_EXAMPLE(BM_Silu, small, kSmall);
KERNEL_EXAMPLE(BM_Attention, llm_none, kLlm, AttentionMask::none, false);
KERNEL_EXAMPLE(BM_Attention, llm_causal, kLlm, AttentionMask::causal, false);
KERNEL_EXAMPLE(BM_Attention, llm_window, kLlm, AttentionMask::sliding_window, false);
KERNEL_EXAMPLE(BM_Attention, llm_gqa, kLlm, AttentionMask::causal, true);
KERNEL_EXAMPLE(BM_Attention, small_none, kSmall, AttentionMask::none, false);
KERNEL_EXAMPLE(BM_Attention, small_causal, kSmall, AttentionMask::causal, false);
KERNEL_EXAMPLE(BM_Attention, small_window, kSmall, AttentionMask::sliding_window, false);
KERNEL_EXAMPLE(BM_Attention, small_gqa, kSmall, AttentionMask::causal, true);
KERNEL_EXAMPLE(BM_DequantMatvec, llm, kLlm);
KERNEL_EXAMPLE(BM_DequantMatvec, small, kSmall);
KERNEL_EXAMPLE(BM_SimdgroupMatmul, llm, kLlm);
KERNEL_EXAMPLE(BM_SimdgroupMatmul, small, kSmall);

}  // namespace
