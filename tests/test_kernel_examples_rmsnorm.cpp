// The RMSNorm example (examples/kernels/rmsnorm.h): its forward kernel
// against the composed ops (mean, rsqrt) in float64 on the CPU, its VJP
// kernel against autodiff of the same, and the pair under custom_vjp checked
// by check_grads on the GPU in reverse mode, where a wrong VJP must fail.
// float32 and float16 I/O; rows whose length is not a multiple of the
// threadgroup (nor of lavapipe's 8-wide subgroups); threadgroups of any size.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "examples/kernels/rmsnorm.h"
#include "gpu_test_util.h"
#include "mlx_lite/testing.h"

using namespace mlx_lite;
using examples::rms_norm;
using gpu_test::kCpu;

namespace {

constexpr float kEps = 1e-5f;

// Makes the CPU the default device while alive (for the float64 reference
// and its autodiff).
class OnTheCpu {
 public:
  OnTheCpu() : saved_(default_device()) { set_default_device(kCpu); }
  ~OnTheCpu() { set_default_device(saved_); }

 private:
  Device saved_;
};

// The composed ops, in float64 on the CPU: x * rsqrt(mean(x^2) + eps) * w.
array reference(const array& x, const array& w) {
  OnTheCpu cpu;
  array xd = astype(x, float64);
  return xd * rsqrt(mean(square(xd), -1, true) + array(double(kEps))) * astype(w, float64);
}

std::vector<array> reference_fn(const std::vector<array>& in) {
  return {reference(in[0], in[1])};
}

// Normal values with a nonzero mean, so that rows are not centred.
array normal_input(const Shape& shape, Dtype dtype, uint64_t seed) {
  array a = astype(random::normal(shape, float32, random::key(seed), kCpu) + 0.5f, dtype, kCpu);
  eval(a);
  return a;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The kernels use the default device: skip where it is not the GPU.
class RmsNormKernel : public gpu_test::GpuTest {
 protected:
  void SetUp() override {
    gpu_test::GpuTest::SetUp();
    if (!IsSkipped() && default_device() != Device::gpu) GTEST_SKIP() << "default device is cpu";
  }
};

struct Case {
  Shape shape;      // x's; D is the last
  int threadgroup;  // 0: the example's default
  Dtype dtype;
};

std::ostream& operator<<(std::ostream& os, const Case& c) {
  os << c.dtype << "_";
  for (int d : c.shape) os << d << "x";
  return os << "_tg" << c.threadgroup;
}

class RmsNormCases : public RmsNormKernel, public ::testing::WithParamInterface<Case> {};

TEST_P(RmsNormCases, ForwardMatchesComposedOps) {
  const Case c = GetParam();
  array x = normal_input(c.shape, c.dtype, 1);
  array w = normal_input({c.shape.back()}, c.dtype, 2);
  array y = rms_norm(x, w, kEps, c.threadgroup);
  ASSERT_EQ(y.shape(), x.shape());
  ASSERT_EQ(y.dtype(), c.dtype);
  // float32: a few ulps of the float32 sums; float16: half an ulp of the
  // output plus the rounding of the float16 inputs' products.
  const double tol = c.dtype == float32 ? 1e-5 : 2e-3;
  EXPECT_ALLCLOSE(y, reference(x, w), tol, tol);
}

TEST_P(RmsNormCases, VjpMatchesAutodiffOfComposedOps) {
  const Case c = GetParam();
  array x = normal_input(c.shape, c.dtype, 3);
  array w = normal_input({c.shape.back()}, c.dtype, 4);
  array g = normal_input(c.shape, c.dtype, 5);
  auto [outs, grads] = vjp(
      [&](const std::vector<array>& in) {
        return std::vector<array>{rms_norm(in[0], in[1], kEps, c.threadgroup)};
      },
      {x, w}, {g});
  ASSERT_EQ(grads[0].dtype(), c.dtype);
  ASSERT_EQ(grads[1].dtype(), c.dtype);
  OnTheCpu cpu;
  auto [ref_outs, ref_grads] =
      vjp(reference_fn, {astype(x, float64), astype(w, float64)}, {astype(g, float64)});
  const double tol = c.dtype == float32 ? 1e-4 : 1e-2;
  EXPECT_ALLCLOSE(grads[0], ref_grads[0], tol, tol) << "x_grad";
  // w_grad sums over every row: scale the tolerance with their number.
  const double rows = static_cast<double>(x.size() / w.size());
  EXPECT_ALLCLOSE(grads[1], ref_grads[1], tol, tol * rows) << "w_grad";
}

TEST_P(RmsNormCases, CheckGradsOnTheGpu) {
  const Case c = GetParam();
  array x = normal_input(c.shape, c.dtype, 6);
  array w = normal_input({c.shape.back()}, c.dtype, 7);
  auto f = [&](const std::vector<array>& in) {
    return std::vector<array>{rms_norm(in[0], in[1], kEps, c.threadgroup)};
  };
  auto r = test::check_grads(f, {x, w}, 1, test::Modes::rev);
  EXPECT_TRUE(r);
  // The kernel cannot run on the CPU: the differences ran on the GPU, in
  // float32 even for float16 inputs.
  EXPECT_TRUE(contains(r.message(), "default device gpu, inputs in float32")) << r.message();
}

INSTANTIATE_TEST_SUITE_P(Shapes, RmsNormCases,
                         ::testing::Values(Case{{3, 100}, 0, float32},
                                           Case{{2, 3, 37}, 20, float32}, Case{{5, 1}, 8, float32},
                                           Case{{2, 300}, 64, float32}, Case{{3, 45}, 256, float32},
                                           Case{{3, 5}, 1, float32}, Case{{2, 2000}, 1024, float32},
                                           Case{{4, 100}, 0, float16}, Case{{3, 37}, 20, float16}),
                         ::testing::PrintToStringParamName());

// The forward kernel under custom_vjp with the VJP kernel's x_grad scaled by
// `x_scale`, or with its r^3 term dropped (x_grad = r w g, from ops).
std::function<std::vector<array>(const std::vector<array>&)> with_wrong_vjp(float x_scale,
                                                                            bool drop_term) {
  return custom_vjp(
      [](const std::vector<array>& in) {
        return std::vector<array>{examples::rms_norm_forward(in[0], in[1], kEps)};
      },
      [=](const std::vector<array>& primals, const std::vector<array>& cotangents,
          const std::vector<array>&) {
        const array& x = primals[0];
        auto [x_grad, w_grad] = examples::rms_norm_vjp(x, primals[1], cotangents[0], kEps);
        if (drop_term) {
          x_grad = rsqrt(mean(square(x), -1, true) + kEps) * primals[1] * cotangents[0];
        }
        return std::vector<array>{x_grad * x_scale, w_grad};
      });
}

TEST_F(RmsNormKernel, CheckGradsCatchesAWrongVjp) {
  array x = normal_input({3, 40}, float32, 8);
  array w = normal_input({40}, float32, 9);
  // The right rule passes through the same path.
  EXPECT_TRUE(test::check_grads(with_wrong_vjp(1.0f, false), {x, w}, 1, test::Modes::rev));
  for (auto [scale, drop] : {std::pair{1.01f, false}, std::pair{1.0f, true}}) {
    auto r = test::check_grads(with_wrong_vjp(scale, drop), {x, w}, 1, test::Modes::rev);
    ASSERT_FALSE(r) << "scale " << scale << ", dropped term " << drop;
    EXPECT_TRUE(contains(r.message(), "the vjp disagrees with the central finite differences"))
        << r.message();
    EXPECT_TRUE(contains(r.message(), "default device gpu, inputs in float32")) << r.message();
  }
}

TEST_F(RmsNormKernel, ForwardModeSaysToCheckReverseModeOnly) {
  array x = normal_input({2, 16}, float32, 10);
  array w = normal_input({16}, float32, 11);
  auto f = [](const std::vector<array>& in) {
    return std::vector<array>{rms_norm(in[0], in[1], kEps)};
  };
  for (auto modes : {test::Modes::fwd, test::Modes::fwd | test::Modes::rev}) {
    auto r = test::check_grads(f, {x, w}, 1, modes);
    ASSERT_FALSE(r);
    EXPECT_TRUE(contains(r.message(), "forward mode: the jvp throws")) << r.message();
    EXPECT_TRUE(contains(r.message(), "A custom kernel has no jvp")) << r.message();
    EXPECT_TRUE(contains(r.message(), "can be checked in reverse mode only")) << r.message();
    EXPECT_TRUE(contains(r.message(), "test::Modes::rev")) << r.message();
  }
  EXPECT_FALSE(test::check_grads(f, {x, w})) << "both modes by default";
}

TEST_F(RmsNormKernel, MixedDtypesEmptyBatchesAndBadInputs) {
  // float16 x with float32 w: a float32 output, as x * w promotes.
  array x = normal_input({2, 24}, float16, 12);
  array w = normal_input({24}, float32, 13);
  array y = rms_norm(x, w, kEps);
  EXPECT_EQ(y.dtype(), float32);
  EXPECT_ALLCLOSE(y, reference(x, w), 1e-5, 1e-5);

  array empty = rms_norm(zeros({0, 24}, float32), w, kEps);
  EXPECT_EQ(empty.shape(), (Shape{0, 24}));

  EXPECT_THROW(rms_norm(x, zeros({23}, float32), kEps), std::invalid_argument);
  EXPECT_THROW(rms_norm(zeros({2, 0}, float32), zeros({0}, float32), kEps), std::invalid_argument);
  EXPECT_THROW(rms_norm(astype(x, int32), w, kEps), std::invalid_argument);
  EXPECT_THROW(rms_norm(x, w, kEps, 1025), std::invalid_argument);
  EXPECT_THROW(rms_norm(x, w, kEps, -1), std::invalid_argument);
}

}  // namespace
