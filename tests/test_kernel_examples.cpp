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

#include "examples/kernels/rope.h"
#include "examples/kernels/silu.h"
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

}  // namespace
