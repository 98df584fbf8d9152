// Built-in GPU kernels at sizes past lavapipe's loop cap: llvmpipe stops a
// shader invocation after 65,535 loop iterations in all (Mesa's
// LP_MAX_TGSI_LOOP_ITERATIONS) without an error, so a kernel whose
// per-invocation trip count grows with the input gives silently wrong
// results there. Each test runs an op whose single-kernel walk would pass
// the cap (a 2^24-element scan, a K of 2^19, a softmax row of 2^23) and checks
// it against values computed here by hand or in double. The cap itself is
// measured first, so a driver that counts differently is noticed.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "mlx_lite/gpu.h"
#include "mlx_lite/mlx_lite.h"
#include "test_util.h"

namespace {

using namespace mlx_lite;
using test_util::values;

const Device kCpu(Device::cpu);
const Device kGpu(Device::gpu);

class LoopCap : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!gpu::is_available()) GTEST_SKIP() << "no Vulkan device";
  }
};

bool is_llvmpipe() {
  return std::get<std::string>(gpu::device_info().at("device_name")).find("llvmpipe") !=
         std::string::npos;
}

// How the cap counts, which the kernels' splits are sized by: every loop's
// iterations count toward one budget per invocation, and once it is spent
// each loop runs its body once more at most. Two loops of 40,000 in one
// invocation: the second stops at 25,534.
TEST_F(LoopCap, LavapipeCountsEveryLoopOfAnInvocationTogether) {
  if (!is_llvmpipe()) GTEST_SKIP() << "the cap is llvmpipe's";
  auto kernel = fast::vulkan_kernel("two_loops", {"trips"}, {"counts"}, R"(
    uint first = 0u, second = 0u;
    for (uint i = 0u; i < trips[0]; ++i) first += 1u;
    for (uint i = 0u; i < trips[1]; ++i) second += 1u;
    counts[0] = first;
    counts[1] = second;
  )");
  auto run = [&](uint32_t a, uint32_t b) {
    array trips = array({a, b}, {2}, uint32);
    return test_util::values_as<uint32_t>(
        kernel({trips}, {{2}}, {uint32}, {1, 1, 1}, {1, 1, 1}, {}, std::nullopt, false, kGpu)[0]);
  };
  EXPECT_EQ(run(30000, 30000), (std::vector<uint32_t>{30000, 30000}));
  EXPECT_EQ(run(40000, 40000), (std::vector<uint32_t>{40000, 25534}));
  EXPECT_EQ(run(70000, 10), (std::vector<uint32_t>{65535, 1}));
}

// The first i where got[i] != want(i), or -1: one assertion per result,
// not per element, keeps the 2^24-element checks fast.
template <class F>
int64_t first_mismatch(const std::vector<double>& got, F want) {
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i] != want(static_cast<int64_t>(i))) return static_cast<int64_t>(i);
  }
  return -1;
}

// cumsum of ones is i + 1, exact in int32 and, to 2^24, in float32. (Before
// the scans split long axes, lines of 2^22 went wrong from 3,727,416.)
TEST_F(LoopCap, CumsumOfALongLine) {
  EXPECT_EQ(first_mismatch(values(cumsum(ones({1 << 24}, float32, kGpu), 0, false, true, kGpu)),
                           [](int64_t i) { return i + 1.0; }),
            -1);
  // Reversed and exclusive: the ones after i.
  const int m = 1 << 22;
  EXPECT_EQ(first_mismatch(values(cumsum(ones({m}, int32, kGpu), 0, true, false, kGpu)),
                           [&](int64_t i) { return m - 1.0 - i; }),
            -1);
  // Along the first axis of two columns: lines strided by 2.
  EXPECT_EQ(first_mismatch(values(cumsum(ones({m / 2, 2}, int32, kGpu), 0, false, true, kGpu)),
                           [](int64_t i) { return i / 2 + 1.0; }),
            -1);
  // The longest axis scanned in one workgroup (longer ones go in blocks).
  EXPECT_EQ(first_mismatch(values(cumsum(ones({1 << 16}, int32, kGpu), 0, false, true, kGpu)),
                           [](int64_t i) { return i + 1.0; }),
            -1);
}

// A long K is split across workgroups: a product of ones is K (unsplit, a
// workgroup stopped at 524,256), and of 1/64 and ones K / 64 (2,048: exact
// in float16 and bfloat16, from float32 partial sums that are exact too).
TEST_F(LoopCap, MatmulOfALongK) {
  const int K = 1 << 19;
  array c = matmul(ones({1, K}, float32, kGpu), ones({K, 1}, float32, kGpu), kGpu);
  EXPECT_EQ(values(c), std::vector<double>{K});
  const int k = 1 << 17;
  for (Dtype t : {float16, bfloat16}) {
    array a = full({2, k}, array(1.0f / 64, t), kGpu);
    EXPECT_EQ(values(matmul(a, ones({k, 3}, t, kGpu), kGpu)), std::vector<double>(6, k / 64))
        << dtype_name(t);
  }
}

// Random operands against a double reference: a K that is no multiple of
// the split, A read transposed, B shared by two batch matrices.
TEST_F(LoopCap, MatmulOfALongKAgainstDouble) {
  const int M = 3, N = 5, K = (1 << 17) + 37;
  array at = random::uniform(-1, 1, {2, K, M}, float32, random::key(1), kCpu);
  array b = random::uniform(-1, 1, {K, N}, float32, random::key(2), kCpu);
  eval({at, b});
  const auto c = values(matmul(transpose(at, {0, 2, 1}), b, kGpu));
  const auto av = values(at), bv = values(b);
  for (int batch = 0; batch < 2; ++batch) {
    for (int m = 0; m < M; ++m) {
      for (int n = 0; n < N; ++n) {
        double want = 0, magnitude = 0;
        for (int k = 0; k < K; ++k) {
          const double p = av[(int64_t{batch} * K + k) * M + m] * bv[int64_t{k} * N + n];
          want += p;
          magnitude += std::abs(p);
        }
        // float32 sums of 2^17 terms: errors near sqrt(K) ulps of the terms.
        EXPECT_NEAR(c[(batch * M + m) * N + n], want, 1e-6 * magnitude)
            << "batch " << batch << " at " << m << ", " << n;
      }
    }
  }
}

// softmax of a constant row is 1 / n everywhere (exact); logsumexp of zeros
// is log n. (In one workgroup, a row of 2^24 gave 0.5 and 0.693.)
TEST_F(LoopCap, SoftmaxAndLogSumExpOfALongRow) {
  const int n = 1 << 23;
  EXPECT_EQ(first_mismatch(values(softmax(zeros({n}, float32, kGpu), -1, false, kGpu)),
                           [&](int64_t) { return 1.0 / n; }),
            -1);
  const auto l = values(logsumexp(zeros({n}, float32, kGpu), -1, false, kGpu));
  EXPECT_NEAR(l[0], std::log(double{n}), 1e-5);
  // Half floats add up in float32: a float16 sum of 2^22 ones would be inf.
  const int h = 1 << 22;
  for (Dtype t : {float16, bfloat16}) {
    EXPECT_EQ(first_mismatch(values(softmax(zeros({h}, t, kGpu), -1, false, kGpu)),
                             [&](int64_t) { return 1.0 / h; }),
              -1)
        << dtype_name(t);
    const auto hl = values(logsumexp(zeros({h}, t, kGpu), -1, false, kGpu));
    EXPECT_NEAR(hl[0], std::log(double{h}), 0.07) << dtype_name(t);
  }
}

// Random rows past 2^21 (parts of at most 2^21 each, backend/vulkan/softmax.cpp)
// against a double reference, two rows so that the parts keep rows apart.
TEST_F(LoopCap, SoftmaxAndLogSumExpOfLongRowsAgainstDouble) {
  const int n = (1 << 21) + 3;
  array x = random::uniform(-4, 4, {2, n}, float32, random::key(3), kCpu);
  eval(x);
  const auto xv = values(x);
  const auto s = values(softmax(x, -1, false, kGpu));
  const auto l = values(logsumexp(x, -1, false, kGpu));
  for (int r = 0; r < 2; ++r) {
    double m = -INFINITY, sum = 0;
    for (int i = 0; i < n; ++i) m = std::max(m, xv[int64_t{r} * n + i]);
    for (int i = 0; i < n; ++i) sum += std::exp(xv[int64_t{r} * n + i] - m);
    EXPECT_NEAR(l[r], m + std::log(sum), 1e-5 * (m + std::log(sum))) << "row " << r;
    for (int i = 0; i < n; i += 997) {
      const double want = std::exp(xv[int64_t{r} * n + i] - m) / sum;
      ASSERT_NEAR(s[int64_t{r} * n + i], want, 1e-4 * want) << "row " << r << " at " << i;
    }
  }
}

}  // namespace
