// mlx_lite's test helpers live in mlx_lite::test, not mlx_lite::testing: with
// `using namespace mlx_lite;`, a mlx_lite::testing made every unqualified
// `testing::` ambiguous with GoogleTest's and gmock's ::testing. This file
// names `testing::` unqualified after `using namespace mlx_lite;` (and without
// `using namespace testing;`): it compiling is most of the test, so the clash
// cannot come back unnoticed.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "mlx_lite/mlx_lite.h"
#include "mlx_lite/testing.h"

using namespace mlx_lite;

namespace {

testing::AssertionResult is_positive(const array& a) {
  if (all(greater(a, array(0.0f))).item<bool>()) return testing::AssertionSuccess();
  return testing::AssertionFailure() << a << " has an element <= 0";
}

class Doubled : public testing::TestWithParam<float> {};

}  // namespace

TEST(TestingNamespace, UnqualifiedGoogleTestNamesBesideMlxLite) {
  array a({1.0f, 2.0f});
  EXPECT_TRUE(is_positive(a));
  EXPECT_FALSE(is_positive(-a));
  EXPECT_THAT(a * 2.0f, testing::Not(test::AllClose(a)));
  EXPECT_THAT(a * 2.0f, test::AllClose(a + a));
  EXPECT_THAT(std::string("mlx_lite"), testing::HasSubstr("lite"));
  testing::StringMatchResultListener listener;
  EXPECT_FALSE(testing::ExplainMatchResult(test::AllClose(a), a + 1.0f, &listener));
  EXPECT_THAT(listener.str(), testing::HasSubstr("2 of 2 elements differ"));
  EXPECT_TRUE(test::allclose(a, a));
}

TEST_P(Doubled, IsTwiceItsValue) {
  const float v = GetParam();
  EXPECT_ALLCLOSE(array(v) * 2.0f, array(2 * v));
}

INSTANTIATE_TEST_SUITE_P(Values, Doubled, testing::Values(0.5f, -3.0f));
