// The public testing header (mlx_lite/testing.h): allclose, its macros and
// its gmock matcher AllClose, and check_grads, which must pass right
// derivatives and catch wrong ones (in the jvp, in the vjp, and in a second
// derivative), saying where.
#include <gmock/gmock.h>
#include <gtest/gtest-spi.h>

#include <cmath>
#include <vector>

#include "mlx_lite/testing.h"

using namespace mlx_lite;
using mlx_lite::test::AllClose;
using mlx_lite::test::check_grads;

namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// exp(x) with deliberately scaled rules: the jvp and the vjp are `jvp_scale`
// and `vjp_scale` times the right ones (built from ops, so they differentiate
// again); with `flat`, they read x through stop_gradient, so the first
// derivative is right but its own derivative is zero.
array scaled_exp(const array& x, float jvp_scale, float vjp_scale, bool flat = false) {
  auto d = [flat](const array& v) { return exp(flat ? stop_gradient(v) : v); };
  auto f =
      custom_function([](const std::vector<array>& in) { return std::vector<array>{exp(in[0])}; },
                      [=](const std::vector<array>& primals, const std::vector<array>& cotangents,
                          const std::vector<array>&) {
                        return std::vector<array>{cotangents[0] * d(primals[0]) * array(vjp_scale)};
                      },
                      [=](const std::vector<array>& primals, const std::vector<array>& tangents,
                          const std::vector<int>&) {
                        return std::vector<array>{tangents[0] * d(primals[0]) * array(jvp_scale)};
                      });
  return f({x})[0];
}

// What a matcher says about `actual`, through gmock's public API.
std::string explain(const ::testing::Matcher<const array&>& matcher, const array& actual) {
  ::testing::StringMatchResultListener listener;
  ::testing::ExplainMatchResult(matcher, actual, &listener);
  return listener.str();
}

}  // namespace

TEST(Allclose, PassesWithinTolerance) {
  array a({1.0f, 2.0f, 3.0f});
  EXPECT_TRUE(test::allclose(a, a + 1e-6f));
  EXPECT_ALLCLOSE(a, a + 1e-3f, 1e-3);
  EXPECT_ALLCLOSE(a, array(2.0f) + array({-1.0f, 0.0f, 1.0f}), 0.0, 0.0);
  // Broadcasting, as numpy.allclose.
  EXPECT_ALLCLOSE(full({2, 3}, 1.5f), array(1.5f));
  ASSERT_ALLCLOSE(a, a) << "with a streamed note";
}

TEST(Allclose, FailureShowsShapesWorstIndexAndErrors) {
  array expected = reshape(array({1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f}), {2, 3});
  array actual = expected + reshape(array({0.0f, 0.5f, 0.0f, 0.0f, 0.0f, -2.0f}), {2, 3});
  auto r = test::allclose(actual, expected, 1e-5, 1e-8);
  ASSERT_FALSE(r);
  const std::string m = r.message();
  EXPECT_TRUE(contains(m, "shape (2, 3) and dtype float32")) << m;
  EXPECT_TRUE(contains(m, "2 of 6 elements differ")) << m;
  EXPECT_TRUE(contains(m, "index (1, 2)")) << m;
  EXPECT_TRUE(contains(m, "actual 4, expected 6")) << m;
  EXPECT_TRUE(contains(m, "absolute error 2")) << m;
  EXPECT_TRUE(contains(m, "relative error 0.33333333")) << m;
}

TEST(Allclose, ShapesThatDoNotBroadcastAndNaNs) {
  auto r = test::allclose(array({1.0f, 2.0f}), array({1.0f, 2.0f, 3.0f}));
  ASSERT_FALSE(r);
  EXPECT_TRUE(contains(r.message(), "shape (2,)")) << r.message();
  EXPECT_TRUE(contains(r.message(), "shape (3,)")) << r.message();
  EXPECT_TRUE(contains(r.message(), "do not broadcast")) << r.message();

  array nan = array({1.0f, NAN});
  EXPECT_FALSE(test::allclose(nan, nan));
  EXPECT_TRUE(test::allclose(nan, nan, 1e-5, 1e-8, /*equal_nan=*/true));
  EXPECT_TRUE(test::allclose(array({INFINITY}), array({INFINITY})));
  EXPECT_FALSE(test::allclose(array({INFINITY}), array({-INFINITY})));
}

TEST(Allclose, MacroFailureNamesTheExpressions) {
  EXPECT_NONFATAL_FAILURE(EXPECT_ALLCLOSE(array({1.0f}), array({1.5f})),
                          "array({1.0f}) is not close to array({1.5f})");
  EXPECT_FATAL_FAILURE(ASSERT_ALLCLOSE(array({1.0f}), array({1.5f}), 0.1, 0.1),
                       "relative error 0.33333333");
}

TEST(CheckGrads, PassesRightDerivatives) {
  array x({0.3f, -1.2f, 0.8f, 2.0f});
  array y({1.5f, 0.4f, -0.7f, 0.9f});
  auto f = [](const std::vector<array>& in) {
    return std::vector<array>{sin(in[0]) * exp(in[1]) + in[0] * in[0] / (in[1] * in[1] + 1.0f),
                              sum(tanh(in[0] * in[1]))};
  };
  EXPECT_TRUE(check_grads(f, {x, y}));
  EXPECT_TRUE(check_grads(f, {x, y}, 2));
  EXPECT_TRUE(check_grads([](const array& v) { return scaled_exp(v, 1, 1); }, x));
}

TEST(CheckGrads, CatchesAWrongJvp) {
  auto r = check_grads([](const array& v) { return scaled_exp(v, 1.01f, 1); },
                       array({0.5f, 1.0f, 1.5f}));
  ASSERT_FALSE(r);
  const std::string m = r.message();
  EXPECT_TRUE(contains(m, "the jvp of output 0")) << m;
  EXPECT_TRUE(contains(m, "finite differences")) << m;
  EXPECT_TRUE(contains(m, "index (")) << m;
}

TEST(CheckGrads, CatchesAWrongVjp) {
  auto r = check_grads([](const array& v) { return scaled_exp(v, 1, 1.01f); },
                       array({0.5f, 1.0f, 1.5f}));
  ASSERT_FALSE(r);
  EXPECT_TRUE(contains(r.message(), "the vjp disagrees")) << r.message();
}

TEST(CheckGrads, CatchesOneWrongElementAmongMany) {
  // Right everywhere but one of 200 elements: the vjp's inner product must
  // still show it.
  auto f = [](const array& v) {
    array mask = astype(equal(arange(200), array(137)), float32);
    return scaled_exp(v, 1, 1) * (1.0f - mask) + scaled_exp(v, 1, 1.5f) * mask;
  };
  array x = random::uniform(-1, 1, {200}, float32, random::key(3));
  auto r = check_grads(f, x);
  ASSERT_FALSE(r);
  EXPECT_TRUE(contains(r.message(), "the vjp disagrees")) << r.message();
}

TEST(CheckGrads, CatchesAWrongSecondDerivative) {
  // The first derivative is right, but its own derivative is not.
  auto f = [](const array& v) { return scaled_exp(v, 1, 1, /*flat=*/true); };
  array x({0.5f, 1.0f});
  EXPECT_TRUE(check_grads(f, x, 1));
  auto r = check_grads(f, x, 2);
  ASSERT_FALSE(r);
  EXPECT_TRUE(contains(r.message(), "order 2")) << r.message();
}

TEST(CheckGrads, HoldsIntegerInputsFixedAndTakesFloat16) {
  array x({0.5f, -1.0f, 2.0f});
  array idx({2, 0}, int32);
  auto f = [](const std::vector<array>& in) {
    return std::vector<array>{take(square(in[0]), in[1], 0), argmax(in[0])};
  };
  EXPECT_TRUE(check_grads(f, {x, idx}));
  EXPECT_TRUE(check_grads([](const array& v) { return exp(v) * v; }, astype(x, float16)));
  auto r = check_grads([](const array& v) { return argmax(v); }, x);
  EXPECT_FALSE(r);
  EXPECT_TRUE(contains(r.message(), "no floating-point outputs")) << r.message();
}

TEST(CheckGrads, ModesPickTheDerivativesChecked) {
  // A wrong jvp passes in reverse mode alone, a wrong vjp in forward mode
  // alone; each fails in the mode that checks it.
  const array x({0.5f, 1.0f, 1.5f});
  auto wrong_jvp = [](const array& v) { return scaled_exp(v, 1.01f, 1); };
  auto wrong_vjp = [](const array& v) { return scaled_exp(v, 1, 1.01f); };
  EXPECT_TRUE(check_grads(wrong_jvp, x, 1, test::Modes::rev));
  EXPECT_FALSE(check_grads(wrong_jvp, x, 1, test::Modes::fwd));
  EXPECT_TRUE(check_grads(wrong_vjp, x, 1, test::Modes::fwd));
  auto r = check_grads(wrong_vjp, x, 1, test::Modes::rev);
  ASSERT_FALSE(r);
  EXPECT_TRUE(contains(r.message(), "the vjp disagrees with the central finite differences"))
      << r.message();
  // Second derivatives in reverse mode: the vjp of the vjp.
  auto flat = [](const array& v) { return scaled_exp(v, 1, 1, /*flat=*/true); };
  EXPECT_TRUE(check_grads(flat, x, 1, test::Modes::rev));
  auto r2 = check_grads(flat, x, 2, test::Modes::rev);
  ASSERT_FALSE(r2);
  EXPECT_TRUE(contains(r2.message(), "order 2 (the vjp of")) << r2.message();
  EXPECT_FALSE(check_grads(wrong_vjp, x, 1, static_cast<test::Modes>(0)));
}

TEST(CheckGrads, FiniteDifferencesInFloat64OnTheCpuWherePossible) {
  auto r = check_grads([](const array& v) { return sin(v) * v; }, array({0.3f, -0.8f}));
  ASSERT_TRUE(r);
  EXPECT_TRUE(contains(r.message(), "default device cpu, inputs in float64")) << r.message();
  // float32's step, cbrt(2^-23), in float64 too.
  EXPECT_TRUE(contains(r.message(), "step 0.0049215666")) << r.message();
}

TEST(CheckGrads, FiniteDifferencesWhereTheFunctionRuns) {
  // A function that refuses float64 is differentiated in float32 on the
  // default device; one that takes float16 alone, in float16 there, with
  // float16's step and tolerance. Wrong derivatives still fail there.
  auto no_float64 = [](float vjp_scale) {
    return [vjp_scale](const array& v) {
      if (v.dtype() == float64) throw std::invalid_argument("[f] float64 is refused");
      return scaled_exp(v, 1, vjp_scale);
    };
  };
  const array x({0.5f, -1.0f, 0.25f, 1.0f});
  auto r = check_grads(no_float64(1), x);
  ASSERT_TRUE(r);
  EXPECT_TRUE(contains(r.message(), "inputs in float32, step 0.0049")) << r.message();
  r = check_grads(no_float64(1.01f), x);
  ASSERT_FALSE(r);
  EXPECT_TRUE(contains(r.message(), "inputs in float32")) << r.message();

  // x exp(x), or a wrong derivative: exp(x) alone.
  auto half_only = [](bool wrong) {
    return [wrong](const array& v) {
      if (v.dtype() != float16) throw std::invalid_argument("[f] float16 only");
      return v * exp(wrong ? stop_gradient(v) : v);
    };
  };
  const array xh = astype(x, float16);
  r = check_grads(half_only(false), xh);
  ASSERT_TRUE(r);
  EXPECT_TRUE(contains(r.message(), "inputs in their own dtypes, step 0.099")) << r.message();
  EXPECT_FALSE(check_grads(half_only(true), xh));
}

TEST(CheckGrads, AFunctionThatThrowsFails) {
  auto r =
      check_grads([](const array&) -> array { throw std::invalid_argument("[f] nothing to give"); },
                  array({1.0f}));
  ASSERT_FALSE(r);
  EXPECT_TRUE(contains(r.message(), "throws at the given inputs: [f] nothing to give"))
      << r.message();
}

TEST(AllCloseMatcher, MatchesAndMismatchesRealArrays) {
  // exp on the default device against std::exp on the host.
  const std::vector<float> xs = {-2.0f, -0.5f, 0.0f, 0.7f, 3.0f};
  std::vector<float> ys;
  for (float x : xs) ys.push_back(std::exp(x));
  array x(xs.begin(), {5});
  array reference(ys.begin(), {5});
  EXPECT_THAT(exp(x), AllClose(reference, 1e-5, 1e-6));
  EXPECT_THAT(exp(x) * 1.001f, ::testing::Not(AllClose(reference, 1e-5, 1e-6)));
  EXPECT_THAT(exp(x) * 1.001f, AllClose(reference, 2e-3));
  EXPECT_FALSE(::testing::Matches(AllClose(reference))(exp(x) + 1.0f));

  // Broadcasting, NaNs and shapes as allclose.
  EXPECT_THAT(full({2, 3}, 1.5f), AllClose(array(1.5f)));
  const array nan({1.0f, NAN});
  EXPECT_THAT(nan, ::testing::Not(AllClose(nan)));
  EXPECT_THAT(nan, AllClose(nan, 1e-5, 1e-8, /*equal_nan=*/true));
  EXPECT_THAT(array({1.0f, 2.0f}), ::testing::Not(AllClose(array({1.0f, 2.0f, 3.0f}))));

  // Inside other matchers: a vector of arrays, element by element.
  EXPECT_THAT(std::vector<array>({x, exp(x)}),
              ::testing::ElementsAre(AllClose(x), AllClose(reference)));
}

TEST(AllCloseMatcher, ExplainsTheWorstElementAndTheTolerance) {
  array expected = reshape(array({1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f}), {2, 3});
  array actual = expected + reshape(array({0.0f, 0.5f, 0.0f, 0.0f, 0.0f, -2.0f}), {2, 3});
  const std::string m = explain(AllClose(expected), actual);
  EXPECT_THAT(m, ::testing::HasSubstr("actual has shape (2, 3) and dtype float32"));
  EXPECT_THAT(m, ::testing::HasSubstr("2 of 6 elements differ (rtol 1e-05, atol 1e-08)"));
  EXPECT_THAT(m, ::testing::HasSubstr("index (1, 2): actual 4, expected 6"));
  EXPECT_THAT(m, ::testing::HasSubstr("absolute error 2, relative error 0.33333333"));
  // One comparison makes both messages.
  EXPECT_EQ(m, test::allclose(actual, expected).message());
}

TEST(AllCloseMatcher, ExplainsShapesAndDtypesThatDoNotBroadcast) {
  const std::string m = explain(AllClose(array({1, 2, 3}, int32)), array({1.0f, 2.0f}));
  EXPECT_THAT(m, ::testing::HasSubstr("actual has shape (2,) and dtype float32"));
  EXPECT_THAT(m, ::testing::HasSubstr("expected has shape (3,) and dtype int32"));
  EXPECT_THAT(m, ::testing::HasSubstr("do not broadcast"));
}

TEST(AllCloseMatcher, ExplainsAMatchByItsLargestError) {
  // What a failing Not(AllClose(...)) shows.
  array expected({1.0f, 2.0f, 4.0f});
  array actual = expected + array({0.0f, 0.0f, 0.5f});
  const std::string m = explain(::testing::Not(AllClose(expected, 0.0, 1.0)), actual);
  EXPECT_THAT(m, ::testing::HasSubstr("all 3 elements are close (rtol 0, atol 1)"));
  EXPECT_THAT(m, ::testing::HasSubstr("the largest absolute error, 0.5, is at index (2)"));
}

TEST(AllCloseMatcher, DescribesItselfAndItsNegation) {
  const auto matcher = AllClose(array({1.0f, 2.0f}), 1e-3, 1e-4, /*equal_nan=*/true);
  EXPECT_EQ(::testing::DescribeMatcher<const array&>(matcher),
            "is close to array([1, 2], dtype=float32) of shape (2,) and dtype float32 "
            "(rtol 0.001, atol 0.0001, NaNs equal)");
  EXPECT_EQ(::testing::DescribeMatcher<const array&>(matcher, /*negation=*/true),
            "is not close to array([1, 2], dtype=float32) of shape (2,) and dtype float32 "
            "(rtol 0.001, atol 0.0001, NaNs equal)");
}

TEST(AllCloseMatcher, ExpectThatFailureShowsTheExplanation) {
  EXPECT_NONFATAL_FAILURE(EXPECT_THAT(array({1.0f, 2.0f}), AllClose(array({1.0f, 2.5f}))),
                          "index (1): actual 2, expected 2.5");
  EXPECT_NONFATAL_FAILURE(EXPECT_THAT(array({1.0f}), ::testing::Not(AllClose(array({1.0f})))),
                          "is not close to array([1], dtype=float32)");
}
