// The kernel guide's patterns as written in examples/kernels/, each against a
// composition of mlx_lite's ops computed in float32: float32 and float16
// inputs, sizes that are not multiples of the threadgroup or of 32, several
// threadgroups and the autotuned one.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "examples/kernels/attention.h"
#include "examples/kernels/dequant_matvec.h"
#include "examples/kernels/layernorm.h"
#include "examples/kernels/rope.h"
#include "examples/kernels/silu.h"
#include "examples/kernels/softmax.h"
#include "gpu_test_util.h"
#include "mlx_lite/testing.h"
#include "test_util.h"

using namespace mlx_lite;

namespace {

class KernelExamples : public gpu_test::GpuTest {};

// Tolerances of a float32-accumulated result rounded once to `dtype`.
double rtol_for(Dtype dtype) {
  return dtype == float16 ? 2e-3 : 2e-5;
}

array f32(const array& a) {
  return astype(a, float32);
}

// ---- SiLU (2D grid) ----

array silu_ref(const array& x) {
  array v = f32(x);
  return astype(multiply(v, sigmoid(v)), x.dtype());
}

TEST_F(KernelExamples, SiluMatchesComposedOps) {
  for (Dtype dtype : {float32, float16}) {
    for (Shape shape : {Shape{3, 1000}, Shape{5, 37}, Shape{1, 1}, Shape{70, 33}}) {
      // Large values too: e^-v overflows below -88, and float16 holds +-100.
      array x = astype(random::uniform(-100.0f, 100.0f, shape), dtype);
      array want = silu_ref(x);
      for (int tg : {32, 64, 256, 0}) {  // 0: autotuned
        array got = examples::silu(x, tg);
        EXPECT_EQ(got.dtype(), dtype);
        EXPECT_ALLCLOSE(f32(got), f32(want), rtol_for(dtype), 1e-6)
            << dtype_name(dtype) << " " << shape[0] << "x" << shape[1] << " tg " << tg;
      }
    }
  }
}

TEST_F(KernelExamples, SiluOfSmallValues) {
  // Near zero, where silu(x) ~ x / 2.
  array x = array({-1e-3f, 0.0f, 1e-3f, 0.5f, -0.5f, 3.0f}, {2, 3});
  EXPECT_ALLCLOSE(examples::silu(x, 32), silu_ref(x), 1e-6, 1e-7);
  EXPECT_THROW(examples::silu(zeros({4})), std::invalid_argument);
  EXPECT_THROW(examples::silu(zeros({2, 2}, int32)), std::invalid_argument);
}

TEST_F(KernelExamples, EmptyBatchesGiveEmptyResults) {
  // No rows: a zero grid, which launches nothing (and tunes nothing).
  for (Dtype dtype : {float32, float16}) {
    array x = zeros({0, 40}, dtype);
    EXPECT_EQ(examples::silu(x).shape(), (Shape{0, 40}));
    EXPECT_EQ(examples::softmax_rows(x).shape(), (Shape{0, 40}));
    array w = ones({40}, dtype);
    EXPECT_EQ(examples::layer_norm(x, w, w).shape(), (Shape{0, 40}));
    eval(examples::silu(x), examples::softmax_rows(x), examples::layer_norm(x, w, w));
  }
}

// ---- RoPE (3D grid, strided view) ----

array rope_ref(const array& x, int offset, float base = 10000.0f) {
  const int seq = x.shape(2), dim = x.shape(3), half = dim / 2;
  array pos = arange(offset, offset + seq, 1, float32);
  array theta =
      multiply(reshape(pos, {seq, 1}), reshape(examples::rope_freqs(dim, base), {1, half}));
  array c = cos(theta), s = sin(theta);
  array v = f32(x);
  const Shape lo_stop = {x.shape(0), x.shape(1), seq, half};
  array x1 = slice(v, {0, 0, 0, 0}, lo_stop);
  array x2 = slice(v, {0, 0, 0, half}, x.shape());
  array out = concatenate(
      {subtract(multiply(x1, c), multiply(x2, s)), add(multiply(x1, s), multiply(x2, c))}, 3);
  return astype(out, x.dtype());
}

TEST_F(KernelExamples, RopeMatchesComposedOps) {
  for (Dtype dtype : {float32, float16}) {
    for (Shape shape : {Shape{2, 3, 7, 10}, Shape{1, 4, 33, 64}, Shape{2, 2, 5, 128}}) {
      array x = astype(random::normal(shape), dtype);
      for (int offset : {0, 17}) {
        array got = examples::rope(x, offset);
        EXPECT_EQ(got.dtype(), dtype);
        EXPECT_ALLCLOSE(f32(got), f32(rope_ref(x, offset)), rtol_for(dtype), 1e-5)
            << dtype_name(dtype) << " dim " << shape[3] << " offset " << offset;
      }
    }
  }
}

TEST_F(KernelExamples, RopeReadsATransposedViewThroughItsStrides) {
  for (Dtype dtype : {float32, float16}) {
    // q as a projection makes it, (batch, seq, heads, dim), seen as
    // (batch, heads, seq, dim) without a copy.
    array q = astype(random::normal({2, 9, 3, 20}), dtype);
    array view = transpose(q, {0, 2, 1, 3});
    eval(view);
    ASSERT_FALSE(view.flags().row_contiguous);
    array want = rope_ref(view, 3);
    EXPECT_ALLCLOSE(f32(examples::rope_strided(view, 3)), f32(want), rtol_for(dtype), 1e-5);
    EXPECT_ALLCLOSE(f32(examples::rope(view, 3)), f32(want), rtol_for(dtype), 1e-5);
    // A dense array through the strided kernel: the same.
    array dense = contiguous(view);
    EXPECT_ALLCLOSE(f32(examples::rope_strided(dense, 3)), f32(want), rtol_for(dtype), 1e-5);
  }
  EXPECT_THROW(examples::rope(zeros({1, 2, 3, 5})), std::invalid_argument);  // odd dim
}

// ---- LayerNorm (two-pass) ----

// Threadgroups for a row kernel: 1, 3 and 8 simdgroups; for the first shape
// of a test, also 32 (the most) and the autotuned one (0), which are slow on
// lavapipe (a barrier there costs about as much as a thread's work).
std::vector<int> row_threadgroups(const Shape& shape) {
  if (shape[0] == 3) return {32, 96, 256, 1024, 0};
  return {32, 96, 256};
}

array layer_norm_ref(const array& x, const array& w, const array& b, float eps) {
  array v = f32(x);
  array mu = mean(v, 1, true);
  array d = subtract(v, mu);
  array var = mean(square(d), 1, true);
  return astype(add(multiply(multiply(d, rsqrt(add(var, array(eps)))), f32(w)), f32(b)), x.dtype());
}

TEST_F(KernelExamples, LayerNormMatchesComposedOps) {
  for (Dtype dtype : {float32, float16}) {
    for (Shape shape : {Shape{3, 1000}, Shape{7, 37}, Shape{2, 5}, Shape{9, 300}}) {
      // A mean far from zero: E[x^2] - mean^2 would cancel, the two passes do not.
      array x = astype(add(multiply(random::normal(shape), array(3.0f)), array(40.0f)), dtype);
      array w = astype(random::normal({shape[1]}), dtype);
      array b = astype(random::normal({shape[1]}), dtype);
      array want = layer_norm_ref(x, w, b, 1e-5f);
      for (int tg : row_threadgroups(shape)) {
        array got = examples::layer_norm(x, w, b, 1e-5f, tg);
        EXPECT_EQ(got.dtype(), dtype);
        EXPECT_ALLCLOSE(f32(got), f32(want), rtol_for(dtype) * 5, dtype == float16 ? 5e-3 : 2e-5)
            << dtype_name(dtype) << " " << shape[0] << "x" << shape[1] << " tg " << tg;
      }
    }
  }
  EXPECT_THROW(examples::layer_norm(zeros({2, 4}), zeros({3}), zeros({4})), std::invalid_argument);
}

// ---- Row softmax ----

array softmax_ref(const array& x) {
  return astype(softmax(f32(x), 1, /*precise=*/true), x.dtype());
}

TEST_F(KernelExamples, SoftmaxMatchesComposedOps) {
  for (Dtype dtype : {float32, float16}) {
    for (Shape shape : {Shape{3, 1000}, Shape{9, 37}, Shape{4, 1}, Shape{5, 2049}}) {
      array x = astype(multiply(random::normal(shape), array(4.0f)), dtype);
      array want = softmax_ref(x);
      for (int tg : row_threadgroups(shape)) {
        array got = examples::softmax_rows(x, tg);
        EXPECT_ALLCLOSE(f32(got), f32(want), rtol_for(dtype), dtype == float16 ? 1e-4 : 1e-7)
            << dtype_name(dtype) << " " << shape[0] << "x" << shape[1] << " tg " << tg;
      }
    }
  }
}

TEST_F(KernelExamples, SoftmaxOfMaskedAndLargeValues) {
  const float inf = std::numeric_limits<float>::infinity();
  // Row 0: masked (-inf) entries give exactly 0; row 1: values that overflow
  // exp() unless the max is subtracted; row 2: one finite entry among -inf.
  std::vector<float> data = {-inf, 1.0f,    -inf,  2.0f, 0.5f, -inf,     //
                             1e4f, 9999.0f, -1e4f, 1e4f, 0.0f, 9998.0f,  //
                             -inf, -inf,    -inf,  3.0f, -inf, -inf};
  array x(data.data(), {3, 6}, float32);
  for (int tg : {32, 64}) {
    array got = examples::softmax_rows(x, tg);
    EXPECT_ALLCLOSE(got, softmax_ref(x), 1e-5, 1e-7);
    auto v = test_util::values(got);
    EXPECT_EQ(v[0], 0.0);
    EXPECT_EQ(v[2], 0.0);
    EXPECT_EQ(v[15], 1.0);
    EXPECT_EQ(v[12], 0.0);
  }
  // float16: 6e4 is near its largest value.
  array h = astype(array({6e4f, 5.9e4f, -6e4f, 0.0f, 6e4f, 1.0f}, {1, 6}), float16);
  EXPECT_ALLCLOSE(f32(examples::softmax_rows(h, 32)), f32(softmax_ref(h)), 2e-3, 1e-4);
}

// ---- 4-bit dequant matvec ----

TEST_F(KernelExamples, DequantMatvecMatchesComposedOps) {
  for (Dtype dtype : {float32, float16}) {
    // n not a multiple of the 8 rows of a threadgroup; k / 8 not a multiple of 32.
    for (auto [m, n, k, group] :
         {std::tuple{1, 37, 320, 64}, std::tuple{3, 8, 96, 32}, std::tuple{2, 130, 2048, 128}}) {
      array q = random::randint(0, 16, {n, k}, int32);
      array scales = multiply(random::uniform(0.5f, 1.5f, {n, k / group}), array(0.1f));
      array biases = random::normal({n, k / group});
      array x = astype(random::normal({m, k}), dtype);
      // The reference: w = scale * q + bias per group, then x w^T, in float32.
      array w =
          add(multiply(reshape(astype(q, float32), {n, k / group, group}), expand_dims(scales, 2)),
              expand_dims(biases, 2));
      array want = matmul(f32(x), transpose(reshape(w, {n, k})));
      array got = examples::dequant_matvec(x, examples::pack_4bit(q), astype(scales, dtype),
                                           astype(biases, dtype));
      ASSERT_EQ(got.shape(), (Shape{m, n}));
      // float16 scales and biases round the weights: compare with those.
      if (dtype == float16) {
        array w16 = add(multiply(reshape(astype(q, float32), {n, k / group, group}),
                                 expand_dims(f32(astype(scales, float16)), 2)),
                        expand_dims(f32(astype(biases, float16)), 2));
        want = matmul(f32(x), transpose(reshape(w16, {n, k})));
      }
      EXPECT_ALLCLOSE(f32(got), want, dtype == float16 ? 2e-3 : 1e-4,
                      dtype == float16 ? 2e-2 : 1e-3)
          << dtype_name(dtype) << " m " << m << " n " << n << " k " << k;
    }
  }
}

TEST_F(KernelExamples, QuantizeThenDequantApproximatesTheMatrix) {
  const int n = 16, k = 256, group = 64;
  array w = random::normal({n, k});
  auto qw = examples::quantize_4bit(w, group);
  ASSERT_EQ(qw.w.shape(), (Shape{n, k / 8}));
  // Unpacked with ops: field e of word j is weight 8j + e.
  array shifts = multiply(arange(0, 8, 1, uint32), array(4u, uint32));
  array q = bitwise_and(right_shift(expand_dims(qw.w, 2), shifts), array(15u, uint32));
  array deq =
      add(multiply(reshape(astype(q, float32), {n, k / group, group}), expand_dims(qw.scales, 2)),
          expand_dims(qw.biases, 2));
  // Each weight within half a step of its dequantized value.
  array err = abs(subtract(deq, reshape(w, {n, k / group, group})));
  array half_step = add(multiply(expand_dims(qw.scales, 2), array(0.5f)), array(1e-5f));
  EXPECT_TRUE(all(less_equal(err, half_step)).item<bool>());
  // The kernel computes x deq^T.
  array x = random::normal({2, k});
  EXPECT_ALLCLOSE(examples::dequant_matvec(x, qw.w, qw.scales, qw.biases),
                  matmul(x, transpose(reshape(deq, {n, k}))), 1e-4, 1e-4);
  EXPECT_THROW(examples::dequant_matvec(x, qw.w, zeros({n, 3}), zeros({n, 3})),
               std::invalid_argument);
}

// ---- Attention and its variants ----

array attention_ref(const array& q, const array& k, const array& v, examples::AttentionMask mask,
                    int window) {
  const int heads = q.shape(1), kv_heads = k.shape(1);
  const int q_len = q.shape(2), kv_len = k.shape(2), dim = q.shape(3);
  array kk = repeat(f32(k), heads / kv_heads, 1), vv = repeat(f32(v), heads / kv_heads, 1);
  array scores = multiply(matmul(f32(q), swapaxes(kk, 2, 3)), array(1.0f / std::sqrt(float(dim))));
  if (mask != examples::AttentionMask::none) {
    array i = reshape(arange(0, q_len, 1, int32), {q_len, 1});
    array j = reshape(arange(0, kv_len, 1, int32), {1, kv_len});
    array seen = less_equal(j, i);
    if (mask == examples::AttentionMask::sliding_window) {
      seen = logical_and(seen, greater(add(j, array(window)), i));
    }
    scores = where(seen, scores, array(-std::numeric_limits<float>::infinity()));
  }
  return astype(matmul(softmax(scores, 3, true), vv), q.dtype());
}

TEST_F(KernelExamples, AttentionAndVariantsMatchComposedOps) {
  using examples::AttentionMask;
  struct Case {
    int batch, heads, kv_heads, q_len, kv_len, dim;
    AttentionMask mask;
    int window;
  };
  // Lengths that are not multiples of the 4 queries of a threadgroup or of
  // the 32 keys of a tile.
  const std::vector<Case> cases = {
      {1, 2, 2, 37, 45, 64, AttentionMask::none, 0},
      {2, 1, 1, 70, 70, 32, AttentionMask::causal, 0},
      {1, 2, 2, 50, 50, 64, AttentionMask::sliding_window, 9},
      {1, 4, 1, 33, 33, 32, AttentionMask::causal, 0},            // MQA
      {1, 6, 2, 21, 40, 128, AttentionMask::none, 0},             // GQA, 3 heads a group
      {1, 4, 2, 65, 65, 64, AttentionMask::sliding_window, 40}};  // GQA with a window
  for (Dtype dtype : {float32, float16}) {
    for (const auto& c : cases) {
      array q = astype(random::normal({c.batch, c.heads, c.q_len, c.dim}), dtype);
      array k = astype(random::normal({c.batch, c.kv_heads, c.kv_len, c.dim}), dtype);
      array v = astype(random::normal({c.batch, c.kv_heads, c.kv_len, c.dim}), dtype);
      array got = examples::attention(q, k, v, c.mask, c.window);
      EXPECT_ALLCLOSE(f32(got), f32(attention_ref(q, k, v, c.mask, c.window)),
                      dtype == float16 ? 5e-3 : 1e-4, dtype == float16 ? 2e-3 : 1e-5)
          << dtype_name(dtype) << " heads " << c.heads << "/" << c.kv_heads << " len " << c.q_len
          << "/" << c.kv_len << " dim " << c.dim << " mask " << static_cast<int>(c.mask);
    }
  }
  array q = zeros({1, 3, 4, 32});
  EXPECT_THROW(examples::attention(q, zeros({1, 2, 4, 32}), zeros({1, 2, 4, 32})),
               std::invalid_argument);  // 2 kv heads do not divide 3
  EXPECT_THROW(
      examples::attention(zeros({1, 1, 4, 40}), zeros({1, 1, 4, 40}), zeros({1, 1, 4, 40})),
      std::invalid_argument);  // dim not a multiple of 32
  EXPECT_THROW(examples::attention(q, q, q, AttentionMask::sliding_window, 0),
               std::invalid_argument);
}

}  // namespace
