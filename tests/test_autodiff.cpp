// The autodiff engine (mlx_lite/transforms/autodiff.h) and the elementwise rules:
// vjp, jvp, grad and value_and_grad against hand-computed derivatives,
// higher order, stop_gradient, and the errors of bad calls.
#include <gtest/gtest.h>

#include <cmath>

#include "mlx_lite/mlx_lite.h"
#include "test_util.h"

using namespace mlx_lite;

using test_util::error_of;
using test_util::values;

// sum(a * b) in double, read on the CPU.
double dot(const array& a, const array& b) {
  double s = 0;
  auto p = values(a), q = values(b);
  for (size_t i = 0; i < p.size(); ++i) s += p[i] * q[i];
  return s;
}

TEST(Autodiff, VjpOfElementwiseFunctionsMatchesTheirDerivatives) {
  const std::vector<float> xs = {0.3f, 0.9f, 1.7f};
  array x(xs.begin(), {3});
  array cot({1.0f, -2.0f, 0.5f});
  auto f = [](const array& v) { return multiply(exp(v), sin(v)) + square(v) / (v + 1.0f); };
  auto [out, g] = vjp(f, x, cot);
  auto got = values(g), c = values(cot);
  for (int i = 0; i < 3; ++i) {
    const double v = xs[i];
    const double d =
        std::exp(v) * (std::sin(v) + std::cos(v)) + (v * v + 2 * v) / ((v + 1) * (v + 1));
    EXPECT_NEAR(got[i], c[i] * d, 1e-5 * (1 + std::abs(c[i] * d))) << i;
  }
  EXPECT_NEAR(values(out)[1], std::exp(0.9) * std::sin(0.9) + 0.81 / 1.9, 1e-5);
}

TEST(Autodiff, JvpAgreesWithVjp) {
  array x({0.2f, -0.7f, 1.1f, 2.5f});
  array y({1.5f, 0.3f, -0.4f, 0.8f});
  auto f = [](const std::vector<array>& in) {
    return std::vector<array>{tanh(in[0] * in[1]) - sigmoid(in[0]) / (in[1] * in[1] + 1.0f),
                              maximum(in[0], in[1]) + erf(in[1])};
  };
  array tx({0.3f, 0.1f, -0.2f, 0.5f}), ty({-0.6f, 0.4f, 0.9f, 0.2f});
  array u0({1.0f, 2.0f, -1.0f, 0.5f}), u1({0.2f, -0.3f, 0.7f, 1.0f});
  auto [outs, tangents] = jvp(f, {x, y}, {tx, ty});
  auto [outs2, cotangents] = vjp(f, {x, y}, {u0, u1});
  // <u, J v> == <J^T u, v>
  const double lhs = dot(u0, tangents[0]) + dot(u1, tangents[1]);
  const double rhs = dot(cotangents[0], tx) + dot(cotangents[1], ty);
  EXPECT_NEAR(lhs, rhs, 1e-5 * (1 + std::abs(lhs)));
}

TEST(Autodiff, GradOfGradOfACubic) {
  auto f = [](const array& v) { return v * v * v - 2.0f * v; };
  auto df = grad(f);
  auto ddf = grad(df);
  array x = array({1.5f}, {1});
  EXPECT_NEAR(values(df(x))[0], 3 * 1.5 * 1.5 - 2, 1e-5);
  EXPECT_NEAR(values(ddf(x))[0], 6 * 1.5, 1e-5);
}

TEST(Autodiff, ValueAndGradOfSeveralArguments) {
  auto f = [](const std::vector<array>& in) { return in[0] * in[1] + exp(in[2]); };
  array a({2.0f}), b({3.0f}), c({0.5f});
  auto [value, grads] = value_and_grad(f, std::vector<int>{2, 0})({a, b, c});
  EXPECT_NEAR(values(value)[0], 6 + std::exp(0.5), 1e-5);
  ASSERT_EQ(grads.size(), 2u);
  // In increasing input order, as MLX's value_and_grad returns them.
  EXPECT_NEAR(values(grads[0])[0], 3.0, 1e-6);            // d/da
  EXPECT_NEAR(values(grads[1])[0], std::exp(0.5), 1e-5);  // d/dc
}

TEST(Autodiff, StopGradientAndUnusedInputsGiveZeros) {
  auto f = [](const std::vector<array>& in) { return stop_gradient(in[0]) * in[0]; };
  auto g = grad(f, std::vector<int>{0, 1});
  auto grads = g({array({3.0f}), array({7.0f})});
  EXPECT_NEAR(values(grads[0])[0], 3.0, 1e-6);  // only the second factor counts
  EXPECT_EQ(values(grads[1])[0], 0.0f);
}

TEST(Autodiff, FunctionsThatEvaluateInsideStayDifferentiable) {
  auto f = [](const array& v) {
    array y = exp(v);
    eval(y);  // a transform keeps the traced graph
    return y * v;
  };
  auto [value, g] = value_and_grad(f)(array({0.4f}));
  EXPECT_NEAR(values(g)[0], std::exp(0.4) * 1.4, 1e-5);
}

TEST(Autodiff, Float16GradientsStayFloat16) {
  array x = astype(array({0.5f, 1.0f}), float16);
  auto [out, g] = vjp([](const array& v) { return exp(v) * array(2.0f, float16); }, x,
                      astype(array({1.0f, 1.0f}), float16));
  EXPECT_EQ(g.dtype(), float16);
  EXPECT_NEAR(values(g)[1], 2 * std::exp(1.0), 2e-2);
}

TEST(Autodiff, BadCallsSayWhatWasExpected) {
  auto f = [](const array& v) { return exp(v); };
  EXPECT_NE(error_of([&] {
              grad(f)(array({1.0f, 2.0f}));
            }).find("must be a scalar"),
            std::string::npos);
  auto f2 = [](const std::vector<array>& in) { return in[0] * in[1]; };
  // Repeats are found at the call, as in MLX: a negative argnum needs the
  // number of inputs to say which input it names.
  EXPECT_NE(error_of([&] {
              grad(f2, std::vector<int>{0, 0})({array({1.0f}), array({2.0f})});
            }).find("name one input twice"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              grad(f2, 2)({array({1.0f}), array({2.0f})});
            }).find("out of range"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              vjp(f, array({1.0f}), array({1.0f, 2.0f}));
            }).find("shape (2,)"),
            std::string::npos);
  // A cotangent of another dtype is cast, as MLX does (issue 14): no error.
  EXPECT_EQ(error_of([&] { vjp(f, array({1.0f}), array({1})); }), "");
  EXPECT_NE(error_of([&] {
              vjp(
                  [](const std::vector<array>& in) {
                    return std::vector<array>{in[0], in[0]};
                  },
                  {array({1.0f})}, {array({1.0f})});
            }).find("2 outputs but 1 cotangents"),
            std::string::npos);
  auto identity = [](const std::vector<array>& in) { return std::vector<array>{in[0]}; };
  EXPECT_NE(error_of([&] { jvp(identity, {array({1.0f})}, {}); }).find("1 primals but 0 tangents"),
            std::string::npos);
}

TEST(CustomFunction, TheGivenVjpIsWhatComesBack) {
  // exp with a deliberately wrong derivative: 10 * cotangent.
  auto f = custom_vjp([](const std::vector<array>& in) { return std::vector<array>{exp(in[0])}; },
                      [](const std::vector<array>&, const std::vector<array>& cot,
                         const std::vector<array>&) { return std::vector<array>{cot[0] * 10.0f}; });
  array x({0.5f, 1.0f});
  EXPECT_NEAR(values(f({x})[0])[1], std::exp(1.0), 1e-5);  // the forward is the body's
  auto [outs, g] = vjp(f, {x}, {array({1.0f, 2.0f})});
  EXPECT_EQ(values(g[0]), (std::vector<double>{10.0, 20.0}));
  // Inside a larger function under grad: d/dx sin(custom(x)) = cos(e^x) * 10.
  auto loss = [&](const array& v) { return sin(f({v})[0]); };
  EXPECT_NEAR(values(grad(loss)(array({0.5f})))[0], std::cos(std::exp(0.5)) * 10, 1e-5);
}

TEST(CustomFunction, NestedCustomFunctionsAndCustomJvp) {
  auto inner = custom_function(
      [](const std::vector<array>& in) { return std::vector<array>{square(in[0])}; },
      [](const std::vector<array>&, const std::vector<array>& cot, const std::vector<array>&) {
        return std::vector<array>{cot[0] * 3.0f};  // wrong on purpose
      },
      [](const std::vector<array>&, const std::vector<array>& tan, const std::vector<int>&) {
        return std::vector<array>{tan[0] * 5.0f};  // wrong on purpose
      });
  // The outer one derives its rules from its body, which calls inner.
  auto outer = custom_function(
      [&](const std::vector<array>& in) { return std::vector<array>{inner(in)[0] + in[0]}; },
      std::nullopt,
      [&](const std::vector<array>& p, const std::vector<array>& t, const std::vector<int>&) {
        return jvp([&](const std::vector<array>& in) { return inner(in); }, p, t).second;
      });
  array x({2.0f});
  EXPECT_EQ(values(vjp(outer, {x}, {array({1.0f})}).second[0])[0], 4.0f);  // 3 + 1
  EXPECT_EQ(values(jvp(outer, {x}, {array({1.0f})}).second[0])[0], 5.0f);
}

TEST(CustomFunction, CheckpointGivesTheSameGradients) {
  auto body = [](const std::vector<array>& in) {
    return std::vector<array>{tanh(in[0] * in[1]) * in[0]};
  };
  std::vector<array> xs = {array({0.3f, -1.2f}), array({2.0f, 0.7f})};
  auto plain = vjp(body, xs, {array({1.0f, -1.0f})}).second;
  auto saved = vjp(checkpoint(body), xs, {array({1.0f, -1.0f})}).second;
  for (int k = 0; k < 2; ++k) EXPECT_EQ(values(plain[k]), values(saved[k])) << k;
}

TEST(CustomFunction, AWrongCustomVjpIsAClearError) {
  auto wrong_count =
      custom_vjp([](const std::vector<array>& in) { return std::vector<array>{in[0] * in[1]}; },
                 [](const std::vector<array>&, const std::vector<array>& cot,
                    const std::vector<array>&) { return std::vector<array>{cot[0]}; });
  std::vector<array> xs = {array({1.0f}), array({2.0f})};
  EXPECT_NE(error_of([&] {
              vjp(wrong_count, xs, {array({1.0f})});
            }).find("returned 1 arrays; it must return 2, one per primal"),
            std::string::npos);
  auto wrong_shape =
      custom_vjp([](const std::vector<array>& in) { return std::vector<array>{in[0] * 2.0f}; },
                 [](const std::vector<array>&, const std::vector<array>&,
                    const std::vector<array>&) { return std::vector<array>{zeros({3}, float32)}; });
  EXPECT_NE(error_of([&] {
              vjp(wrong_shape, {array({1.0f})}, {array({1.0f})});
            }).find("returned shape (3,) and dtype float32 for primal 0, which has shape (1,)"),
            std::string::npos);
}

// Views are linear: jvp(f)(t) is f(t), and the vjp is f's adjoint,
// <u, f(v)> = <vjp(u), v> for any u and v.
TEST(Autodiff, ViewsAreLinearAndTheirVjpIsTheAdjoint) {
  using F = std::function<array(const array&)>;
  const std::vector<std::pair<std::string, F>> views = {
      {"broadcast",
       [](const array& v) {
         return broadcast_to(reshape(v, {3, 1, 4}), {2, 3, 5, 4});
       }},
      {"transpose",
       [](const array& v) {
         return transpose(reshape(v, {2, 3, 2}), {2, 0, 1});
       }},
      {"reshape",
       [](const array& v) {
         return reshape(v, {4, 3});
       }},
      {"slice",
       [](const array& v) {
         return slice(reshape(v, {3, 4}), {2, 3}, {-4, 0}, {-2, -2});
       }},
      {"slice_step", [](const array& v) { return slice(v, {1}, {12}, {3}); }},
      {"contiguous_copy",
       [](const array& v) {
         return copy(contiguous(transpose(reshape(v, {3, 4}))));
       }},
      {"squeeze_expand",
       [](const array& v) {
         return squeeze(expand_dims(v, {0, 2}), 0);
       }},
  };
  array v = random::normal({12}, float32, random::key(1));
  for (const auto& [name, f] : views) {
    array fv = f(v);
    array u = random::normal(fv.shape(), float32, random::key(2));
    auto [out, g] = vjp(f, v, u);
    auto [out2, t] = jvp(f, v, v);
    EXPECT_NEAR(dot(u, fv), dot(g, v), 1e-4) << name;
    EXPECT_EQ(values(t), values(fv)) << name;
    EXPECT_EQ(g.shape(), v.shape()) << name;
  }
}
