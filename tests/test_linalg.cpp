// matmul against a naive double-precision triple loop: float dtypes, odd
// sizes, 1-D operands, batch broadcasting, strided inputs and bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "mlx_lite/mlx_lite.h"
#include "tests/test_util.h"

using namespace mlx_lite;
using test_util::accumulation_tolerance;
using test_util::values;

namespace {

// Multiples of 1/32 in [-2, 2): exact in every float dtype.
array random_array(const Shape& shape, Dtype dtype, unsigned seed) {
  std::mt19937 gen(seed);
  size_t n = 1;
  for (auto d : shape) n *= d;
  std::vector<float> v(n);
  for (auto& x : v) x = (static_cast<int>(gen() % 128) - 64) / 32.0f;
  return array(v.begin(), shape, dtype);
}

// numpy matmul on the values of a and b (each at least 1-D), in double.
std::vector<double> ref_matmul(const array& a, const array& b, Shape* out_shape) {
  auto x = values(a), y = values(b);
  Shape sa = a.shape(), sb = b.shape();
  if (sa.size() == 1) sa.insert(sa.begin(), 1);
  if (sb.size() == 1) sb.push_back(1);
  const int M = sa[sa.size() - 2], K = sa.back(), N = sb.back();
  Shape ba(sa.begin(), sa.end() - 2), bb(sb.begin(), sb.end() - 2);
  Shape batch = broadcast_shapes(ba, bb);
  size_t nbatch = 1;
  for (auto d : batch) nbatch *= d;
  // Batch index of a or b (broadcast dims read index 0) for output batch i.
  auto batch_index = [&](size_t i, const Shape& own) {
    size_t idx = 0, mul = 1;
    for (int d = static_cast<int>(batch.size()) - 1; d >= 0; --d) {
      size_t c = i % batch[d];
      i /= batch[d];
      int od = d - static_cast<int>(batch.size() - own.size());
      if (od >= 0) {
        idx += (own[od] == 1 ? 0 : c) * mul;
        mul *= own[od];
      }
    }
    return idx;
  };
  std::vector<double> out(nbatch * M * N);
  for (size_t i = 0; i < nbatch; ++i) {
    size_t ia = batch_index(i, ba), ib = batch_index(i, bb);
    for (int m = 0; m < M; ++m) {
      for (int n = 0; n < N; ++n) {
        double acc = 0;
        for (int k = 0; k < K; ++k) {
          acc += x[(ia * M + m) * K + k] * y[(ib * K + k) * N + n];
        }
        out[(i * M + m) * N + n] = acc;
      }
    }
  }
  *out_shape = batch;
  if (a.ndim() > 1) out_shape->push_back(M);
  if (b.ndim() > 1) out_shape->push_back(N);
  return out;
}

void check(const array& a, const array& b) {
  SCOPED_TRACE(fmt::format("{} {} @ {} {}", a.dtype(), shape_string(a.shape()), b.dtype(),
                           shape_string(b.shape())));
  Shape want_shape;
  auto want = ref_matmul(a, b, &want_shape);
  auto out = matmul(a, b);
  EXPECT_EQ(out.shape(), want_shape);
  EXPECT_EQ(out.dtype(), promote_types(a.dtype(), b.dtype()));
  auto got = values(out);
  ASSERT_EQ(got.size(), want.size());
  // Relative to the size of the terms (sums of K products of magnitude <= 4).
  const int K = a.shape(-1);
  const double t = accumulation_tolerance(out.dtype());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], t * (std::abs(want[i]) + 1) + 1e-6 * K) << "at " << i;
  }
}

}  // namespace

TEST(Matmul, ShapesAndDtypes) {
  for (auto dtype : {float32, float16, bfloat16}) {
    for (auto [M, K, N] :
         {std::tuple{1, 1, 1}, {7, 5, 3}, {3, 17, 9}, {33, 64, 31}, {1, 8, 5}, {6, 8, 1}}) {
      check(random_array({M, K}, dtype, 1), random_array({K, N}, dtype, 2));
    }
  }
  // Mixed dtypes promote.
  check(random_array({4, 5}, float16, 3), random_array({5, 2}, float32, 4));
  check(random_array({4, 5}, bfloat16, 3), random_array({5, 2}, float16, 4));
}

TEST(Matmul, LargerFloat32AgainstReference) {
  check(random_array({96, 130}, float32, 5), random_array({130, 70}, float32, 6));
}

TEST(Matmul, OneDimensionalOperands) {
  for (auto dtype : {float32, float16}) {
    check(random_array({4}, dtype, 1), random_array({4, 3}, dtype, 2));     // (3,)
    check(random_array({3, 4}, dtype, 1), random_array({4}, dtype, 2));     // (3,)
    check(random_array({4}, dtype, 1), random_array({4}, dtype, 2));        // ()
    check(random_array({2, 3, 4}, dtype, 1), random_array({4}, dtype, 2));  // (2,3)
    check(random_array({4}, dtype, 1), random_array({2, 4, 5}, dtype, 2));  // (2,5)
  }
  EXPECT_EQ(matmul(random_array({4}, float32, 1), random_array({4}, float32, 2)).shape(), Shape{});
}

TEST(Matmul, BatchBroadcast) {
  for (auto dtype : {float32, bfloat16}) {
    check(random_array({2, 1, 3, 4}, dtype, 1), random_array({5, 4, 2}, dtype, 2));
    check(random_array({3, 4}, dtype, 1), random_array({2, 4, 6}, dtype, 2));
    check(random_array({2, 3, 4}, dtype, 1), random_array({2, 4, 6}, dtype, 2));
    // A batch times one shared matrix (folded into a single product).
    check(random_array({3, 5, 4}, dtype, 1), random_array({4, 2}, dtype, 2));
    check(random_array({3, 1, 4}, dtype, 1), random_array({1, 4, 2}, dtype, 2));
  }
}

TEST(Matmul, StridedInputs) {
  for (auto dtype : {float32, float16}) {
    auto a = random_array({6, 5}, dtype, 1);  // used as (5, 6) transposed
    auto b = random_array({7, 6}, dtype, 2);  // used as (6, 7) transposed
    auto at = transpose(a), bt = transpose(b);
    check(at, bt);
    check(at, random_array({6, 3}, dtype, 3));
    check(random_array({4, 5}, dtype, 4), transpose(random_array({3, 5}, dtype, 5)));
    // Every other column, reversed rows: no unit stride at all.
    auto c = slice(random_array({8, 10}, dtype, 6), {7, 0}, {-9, 10}, {-1, 2});
    ASSERT_EQ(c.shape(), (Shape{8, 5}));
    check(c, random_array({5, 3}, dtype, 7));
    check(random_array({3, 8}, dtype, 8), c);
    // A column sliced out of a wider matrix (row stride larger than its width).
    auto d = slice(random_array({5, 9}, dtype, 9), {0, 2}, {5, 6});
    check(d, random_array({4, 2}, dtype, 10));
    check(transpose(d), random_array({5, 3}, dtype, 11));
    // Broadcast inside the matrix (stride 0) and across the batch.
    check(broadcast_to(random_array({1, 4}, dtype, 12), {3, 4}), random_array({4, 2}, dtype, 13));
    check(broadcast_to(random_array({3, 4}, dtype, 14), {2, 3, 4}),
          transpose(random_array({2, 5, 4}, dtype, 15), {0, 2, 1}));
    // Transposed batch: the batch dim is not the outermost in memory.
    check(transpose(random_array({3, 2, 4}, dtype, 16), {1, 0, 2}),
          random_array({4, 3}, dtype, 17));
  }
}

TEST(Matmul, EmptyDims) {
  auto out = matmul(zeros({3, 0}), zeros({0, 4}));
  EXPECT_EQ(out.shape(), (Shape{3, 4}));
  for (double v : values(out)) EXPECT_EQ(v, 0.0);
  EXPECT_EQ(matmul(zeros({0, 3}), zeros({3, 4})).shape(), (Shape{0, 4}));
}

TEST(Matmul, BadInput) {
  auto expect_msg = [](auto f, std::vector<std::string> parts) {
    try {
      f();
      FAIL() << "expected a throw";
    } catch (const std::invalid_argument& e) {
      std::string msg = e.what();
      EXPECT_EQ(msg.rfind("[matmul]", 0), 0u) << msg;
      for (auto& p : parts) EXPECT_NE(msg.find(p), std::string::npos) << msg;
    }
  };
  expect_msg([] { matmul(zeros({2, 3}), zeros({4, 5})); }, {"(2,3)", "(4,5)"});
  expect_msg([] { matmul(zeros({3}), zeros({4})); }, {"(3,)", "(4,)"});
  expect_msg([] { matmul(zeros({2, 2, 3}), zeros({3, 3, 1})); }, {"(2,2,3)", "(3,3,1)"});
  expect_msg([] { matmul(zeros({2, 3}, int32), zeros({3, 2}, int32)); }, {"int32", "floating"});
  expect_msg([] { matmul(zeros({2, 3}, bool_), zeros({3, 2}, uint8)); }, {"bool", "uint8"});
  expect_msg([] { matmul(array(1.0f), zeros({2, 2})); }, {"()", "(2,2)"});
}
