// The derivative rules of every primitive family (mlx_lite/transforms/rules/*.cpp)
// against finite differences through mlx_lite/testing.h's check_grads (jvp
// elementwise, vjp through <u, J v> = <vjp(u), v>), on the CPU and on the GPU,
// plus exact values where the rule makes a choice (ties of max and min, zeros
// of prod, clamped gather indices, duplicate and dropped scatter indices),
// second derivatives, and the vjp of the composed grid_sample reference.
#include <absl/container/flat_hash_set.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "examples/grid_sample_ref.h"
#include "mlx_lite/gpu.h"
#include "mlx_lite/mlx_lite.h"
#include "mlx_lite/primitives.h"
#include "mlx_lite/testing.h"

using namespace mlx_lite;
using mlx_lite::test::check_grads;

namespace {

using Fn = std::function<std::vector<array>(const std::vector<array>&)>;

array uniform_values(const Shape& shape, uint64_t seed, float lo = -1, float hi = 1) {
  array a = random::uniform(lo, hi, shape, float32, random::key(seed), Device(Device::cpu));
  eval(a);
  return a;
}

// Each test runs with the default device set to its parameter.
class Rules : public ::testing::TestWithParam<Device::DeviceType> {
 protected:
  void SetUp() override {
    if (GetParam() == Device::gpu && !gpu::is_available()) GTEST_SKIP() << "no Vulkan device";
    saved_ = default_device();
    set_default_device(Device(GetParam()));
  }
  void TearDown() override { set_default_device(saved_); }

 private:
  Device saved_{Device::cpu};
};

INSTANTIATE_TEST_SUITE_P(Devices, Rules, ::testing::Values(Device::cpu, Device::gpu),
                         [](const auto& info) {
                           return std::string(info.param == Device::cpu ? "cpu" : "gpu");
                         });

// The gradient of sum(fun(x) * w) at x, for exact-value tests.
array grad_of_weighted(const std::function<array(const array&)>& fun, const array& x,
                       const array& w) {
  return grad([&](const array& v) { return sum(fun(v) * w); })(x);
}

// How many unevaluated nodes of `a`'s graph have `shape` and a primitive named `name`.
int count_nodes(const array& a, const Shape& shape, const std::string& name) {
  absl::flat_hash_set<std::uintptr_t> seen{a.id()};
  std::vector<array> stack{a};
  int n = 0;
  while (!stack.empty()) {
    array node = stack.back();
    stack.pop_back();
    if (!node.has_primitive() || node.is_available()) continue;
    n += node.shape() == shape && node.primitive().name() == name;
    for (const array& in : node.inputs()) {
      if (seen.insert(in.id()).second) stack.push_back(in);
    }
  }
  return n;
}

}  // namespace

TEST_P(Rules, Select) {
  array cond = array({true, false, true}, {3, 1});
  Fn f = [cond](const std::vector<array>& in) {
    // Broadcast operands; a condition that depends on x gets a zero gradient.
    return std::vector<array>{where(cond, in[0], in[1]) * 2.0f,
                              where(in[0] > 0.2f, square(in[0]), in[1])};
  };
  // x stays clear of the condition's threshold, so no step crosses it.
  array x =
      array({-0.9f, 0.5f, 0.7f, -0.3f, 0.9f, -0.6f, 0.4f, 1.1f, -0.1f, 0.6f, 0.8f, -0.8f}, {3, 4});
  EXPECT_TRUE(check_grads(f, {x, uniform_values({4}, 2)}));
}

TEST_P(Rules, ConcatenatePadAndSliceUpdate) {
  array x = uniform_values({3, 4}, 3), y = uniform_values({2, 4}, 4);
  Fn cat = [](const std::vector<array>& in) {
    return std::vector<array>{concatenate({in[0], in[1] * 3.0f, in[0]}, 0),
                              stack({in[0], sin(in[0])}, 2)};
  };
  EXPECT_TRUE(check_grads(cat, {x, y}));
  // The pad value is differentiable too: it fills every padded element.
  Fn padded = [](const std::vector<array>& in) {
    return std::vector<array>{pad(in[0], {{1, 2}, {0, 3}}, in[1])};
  };
  EXPECT_TRUE(check_grads(padded, {x, array(0.7f)}));
  // A strided, backwards region written with a broadcast update.
  Fn update = [](const std::vector<array>& in) {
    return std::vector<array>{slice_update(in[0] * in[0], in[1], {2, 3}, {-4, 0}, {-2, -1}) *
                              in[0]};
  };
  EXPECT_TRUE(check_grads(update, {x, uniform_values({1, 3}, 5)}));
}

TEST_P(Rules, ConstantsAndRandomHaveNoDerivative) {
  array x = uniform_values({3, 3}, 6);
  Fn f = [](const std::vector<array>& in) {
    return std::vector<array>{matmul(in[0], eye(3, 3, 1, float32)) + in[0] * arange(3.0) +
                              random::normal({3, 3}, float32, random::key(7)) * in[0]};
  };
  EXPECT_TRUE(check_grads(f, {x}));
  // uniform(low, high) is differentiable in its bounds, not in its bits.
  Fn u = [](const std::vector<array>& in) {
    return std::vector<array>{random::uniform(in[0], in[1], {5}, float32, random::key(8))};
  };
  EXPECT_TRUE(check_grads(u, {array(-0.5f), array(2.0f)}));
  // RandomBits' own rules: the key (uint32) gets zeros, the bits zero tangents.
  Fn bits = [](const std::vector<array>& in) {
    return std::vector<array>{random::bits({4}, 1, in[0])};
  };
  array key = random::key(9);
  auto [outs, tangents] = jvp(bits, {key}, {zeros_like(key)});
  EXPECT_EQ(tangents[0].dtype(), uint8);
  EXPECT_EQ(tangents[0].shape(), Shape{4});
  auto [outs2, cotangents] = vjp(bits, {key}, {zeros({4}, uint8)});
  EXPECT_EQ(cotangents[0].dtype(), uint32);
  EXPECT_ALLCLOSE(cotangents[0], zeros_like(key));
}

TEST_P(Rules, SumProdMaxMinOverAxes) {
  array x = uniform_values({2, 3, 4}, 10, 0.5f, 1.5f);
  Fn f = [](const std::vector<array>& in) {
    const array& a = in[0];
    return std::vector<array>{
        sum(a, {0, 2}), sum(a, {1}, true),    prod(a, {2}), prod(a, {0, 1}, true),
        max(a, {1}),    min(a, {0, 2}, true), mean(a, 1),   var(a, {0, 2})};
  };
  EXPECT_TRUE(check_grads(f, {x}));
  // Two-way ties: central differences see the average of the tied slopes,
  // which is what the equal split gives.
  array tied = array({1.0f, 3.0f, 3.0f, 0.5f, 2.0f, -1.0f, 2.0f, 0.0f}, {2, 4});
  Fn extremes = [](const std::vector<array>& in) {
    return std::vector<array>{max(in[0], 1), min(in[0], 0)};
  };
  EXPECT_TRUE(check_grads(extremes, {tied}));
  // All and any are boolean: no floating outputs, zero gradients.
  auto g =
      grad([](const array& a) { return sum(a * astype(all(a > 0.0f, 1, true), float32)); })(tied);
  EXPECT_ALLCLOSE(g, astype(all(tied > 0.0f, 1, true), float32) * ones_like(tied));
}

TEST_P(Rules, MaxAndMinSplitTheGradientAmongTies) {
  array x = array({1.0f, 3.0f, 3.0f, 3.0f, 2.0f, 5.0f, 1.0f, 5.0f}, {2, 4});
  EXPECT_ALLCLOSE(
      grad_of_weighted([](const array& a) { return max(a, 1); }, x, array({1.0f, 2.0f})),
      array({0.0f, 1 / 3.0f, 1 / 3.0f, 1 / 3.0f, 0.0f, 1.0f, 0.0f, 1.0f}, {2, 4}));
  EXPECT_ALLCLOSE(grad_of_weighted([](const array& a) { return min(a); }, x, array(1.0f)),
                  array({0.5f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.5f, 0.0f}, {2, 4}));
  // jvp: the mean of the tied tangents.
  auto [out, t] = jvp([](const array& a) { return max(a, 1); }, x,
                      array({9.0f, 1.0f, 2.0f, 6.0f, 9.0f, 4.0f, 9.0f, 2.0f}, {2, 4}));
  EXPECT_ALLCLOSE(t, array({3.0f, 3.0f}));
}

TEST_P(Rules, ProdIsExactWithZeros) {
  // No zero, one zero, two zeros.
  array x = array({2.0f, 5.0f, 3.0f, 0.0f, 4.0f, 3.0f, 0.0f, 0.0f, 4.0f}, {3, 3});
  EXPECT_ALLCLOSE(
      grad_of_weighted([](const array& a) { return prod(a, 1); }, x, array({1.0f, 1.0f, 1.0f})),
      array({15.0f, 6.0f, 10.0f, 12.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f}, {3, 3}));
  EXPECT_TRUE(check_grads([](const array& a) { return prod(a, 1); }, x));
  EXPECT_TRUE(check_grads([](const array& a) { return prod(a, 1); }, x, 2));
}

TEST_P(Rules, ArgReduceAndScan) {
  array x = uniform_values({3, 5}, 11);
  Fn f = [](const std::vector<array>& in) {
    const array& a = in[0];
    // Indices computed from a need stop_gradient, as MLX requires.
    return std::vector<array>{take_along_axis(a, stop_gradient(argmax(a, 1, true)), 1) * 2.0f,
                              take_along_axis(a, stop_gradient(argmin(a, 0, true)), 0),
                              cumsum(a, 1),
                              cumsum(a, 0, /*reverse=*/true),
                              cumsum(a, 1, false, /*inclusive=*/false),
                              cumsum(a, 0, true, false),
                              cumsum(a)};
  };
  EXPECT_TRUE(check_grads(f, {x}));
  auto [out, t] = jvp([](const array& a) { return argmax(a, 1); }, x, ones_like(x));
  EXPECT_EQ(t.dtype(), uint32);
  EXPECT_EQ(t.shape(), Shape{3});
}

TEST_P(Rules, SoftmaxAndLogSumExp) {
  array x = uniform_values({3, 5}, 12, -2, 2);
  Fn f = [](const std::vector<array>& in) {
    const array& a = in[0];
    return std::vector<array>{softmax(a, -1), logsumexp(a, -1), logsumexp(a, -1, true),
                              softmax(a, 0),  logsumexp(a, 0),  softmax(a, -1, /*precise=*/true)};
  };
  EXPECT_TRUE(check_grads(f, {x}));
}

TEST_P(Rules, MatmulWithBroadcastBatchesAndVectors) {
  Fn f = [](const std::vector<array>& in) {
    return std::vector<array>{matmul(in[0], in[1]), matmul(in[2], in[1]), matmul(in[1], in[3])};
  };
  EXPECT_TRUE(check_grads(f, {uniform_values({2, 3, 4}, 13), uniform_values({4, 5}, 14),
                              uniform_values({4}, 15), uniform_values({2, 1, 5, 3}, 16)}));
}

TEST_P(Rules, GatherReadsClampedPositions) {
  array x = uniform_values({4, 3}, 17);
  // Out of range (5, -7) and negative (-1) indices, and slices of 2 rows that
  // a gather clamps inside the array.
  array idx = array({5, -1, -7, 0, 2}, int32);
  Fn g = [](const std::vector<array>& in) {
    return std::vector<array>{take(square(in[0]), in[1], 0), gather(in[0], in[1], 0, {2, 2}),
                              take(in[0], astype(in[1], uint8), 1)};
  };
  EXPECT_TRUE(check_grads(g, {x, idx}));
  array w = array({1.0f, 10.0f, 100.0f, 1000.0f, 10000.0f});
  // Rows read: 3, 3, 0, 0, 2 (per column).
  EXPECT_ALLCLOSE(grad_of_weighted([&](const array& a) { return take(a, idx, 0); },
                                   array({1.0f, 2.0f, 3.0f, 4.0f}), w),
                  array({1100.0f, 0.0f, 10000.0f, 11.0f}));
}

TEST_P(Rules, GathersOfOneArrayChainTheirScatters) {
  // Each gather's vjp is a scatter_add into zeros; the cotangents of an array
  // gathered several times scatter into one another instead of being added
  // (mlx_lite/transforms/autodiff.cpp's add_cotangents), with the same values.
  array x = uniform_values({6, 4}, 40);
  array i1 = array({0, 5, 5, 2}, int32), i2 = array({5, 1, 0}, int32);
  array c1 = uniform_values({4, 4}, 41), c2 = uniform_values({3, 4}, 42);
  auto f = [&](const array& a) {
    return sum(take(a, i1, 0) * c1) + sum(take(a, i2, 0) * c2) + sum(take(a, i1, 0));
  };
  array g = grad(std::function<array(const array&)>(f))(x);
  ASSERT_STREQ(g.primitive().name(), "Scatter");
  EXPECT_STREQ(g.inputs()[0].primitive().name(), "Scatter");
  array zero = zeros({6, 4});
  array expected = scatter_add(zero, i1, reshape(c1, {4, 1, 4}), 0) +
                   scatter_add(zero, i2, reshape(c2, {3, 1, 4}), 0) +
                   scatter_add(zero, i1, ones({4, 1, 4}), 0);
  EXPECT_ALLCLOSE(g, expected);
  Fn fs = [&](const std::vector<array>& in) { return std::vector<array>{f(in[0])}; };
  EXPECT_TRUE(check_grads(fs, {x}));
}

TEST_P(Rules, GatherCotangentsAbsorbAnEarlierCotangent) {
  // x is read through four gathers after an elementwise read whose cotangent
  // reaches x first: each gather's scatter_add takes the sum so far as its
  // source, so the gradient adds nothing of x's size.
  array x = uniform_values({5, 3}, 43);
  const std::vector<std::vector<int>> rows = {{0, 4, 4}, {2}, {1, 3, 0, 3}, {-1, 2}};
  auto f = [&](const array& a) {
    array out = array(0.0f);
    for (size_t k = 0; k < rows.size(); ++k) {
      out = out + sum(take(a, array(rows[k].begin(), {int(rows[k].size())}), 0)) * float(k + 1);
    }
    return out + sum(square(a));
  };
  array g = grad(std::function<array(const array&)>(f))(x);
  EXPECT_EQ(count_nodes(g, x.shape(), "Add"), 0);
  EXPECT_EQ(count_nodes(g, x.shape(), "Scatter"), 4);
  // 2x, plus k + 1 on each element of every row gather k read.
  std::vector<float> expected(x.data<float>(), x.data<float>() + x.size());
  for (float& v : expected) v *= 2;
  for (size_t k = 0; k < rows.size(); ++k) {
    for (int r : rows[k]) {
      for (int c = 0; c < 3; ++c) expected[(r < 0 ? r + 5 : r) * 3 + c] += k + 1;
    }
  }
  EXPECT_ALLCLOSE(g, array(expected.begin(), {5, 3}));
  Fn fs = [&](const std::vector<array>& in) { return std::vector<array>{f(in[0])}; };
  EXPECT_TRUE(check_grads(fs, {x}));
}

TEST_P(Rules, GridSampleReferenceGradientChainsItsFourGathers) {
  // The image is read by four gathers (one per corner): its gradient is one
  // chain of four scatters, with no add of the image's size.
  array x = uniform_values({1, 4, 5, 2}, 46);
  array grid = uniform_values({1, 3, 3, 2}, 47, -1.2f, 1.2f);
  auto [outs, grads] = vjp(
      [](const std::vector<array>& in) {
        return std::vector<array>{examples::grid_sample_ref(in[0], in[1])};
      },
      {x, grid}, {uniform_values({1, 3, 3, 2}, 48)});
  EXPECT_EQ(count_nodes(grads[0], x.shape(), "Add"), 0);
  EXPECT_EQ(count_nodes(grads[0], x.shape(), "Scatter"), 4);
}

TEST_P(Rules, ReductionJvpsHaveTheOutputsShape) {
  // With and without the kept dims, on the Reduce, ArgReduce and LogSumExp
  // primitives and on logsumexp composed over other axes. x's values are 0.05
  // apart, so no finite difference step crosses a tie of max or min.
  std::vector<float> values;
  for (int i = 0; i < 24; ++i) values.push_back(0.5f + 0.05f * (i * 7 % 24));
  array x = array(values.begin(), {2, 3, 4});
  for (bool keep : {false, true}) {
    Fn f = [keep](const std::vector<array>& in) {
      const array& a = in[0];
      return std::vector<array>{sum(a, {0, 2}, keep),   max(a, 1, keep),
                                prod(a, 2, keep),       min(a, /*keepdims=*/keep),
                                logsumexp(a, -1, keep), logsumexp(a, {0, 1}, keep)};
    };
    auto [outs, tangents] = jvp(f, {x}, {uniform_values({2, 3, 4}, 45)});
    const std::vector<Shape> shapes =
        keep ? std::vector<Shape>{{1, 3, 1}, {2, 1, 4}, {2, 3, 1}, {1, 1, 1}, {2, 3, 1}, {1, 1, 4}}
             : std::vector<Shape>{{3}, {2, 4}, {2, 3}, {}, {2, 3}, {4}};
    for (size_t i = 0; i < shapes.size(); ++i) {
      EXPECT_EQ(outs[i].shape(), shapes[i]) << i;
      EXPECT_EQ(tangents[i].shape(), shapes[i]) << i;
    }
    EXPECT_TRUE(check_grads(f, {x}));
    // No derivative: zeros of the output's shape and dtype.
    for (const auto& g :
         {std::function<array(const array&)>([keep](const array& a) { return argmax(a, 2, keep); }),
          std::function<array(const array&)>(
              [keep](const array& a) { return any(a > 1.0f, 2, keep); })}) {
      auto [out, t] = jvp(g, x, ones_like(x));
      EXPECT_EQ(t.shape(), out.shape());
      EXPECT_EQ(t.dtype(), out.dtype());
      EXPECT_EQ(t.shape(), (keep ? Shape{2, 3, 1} : Shape{2, 3})) << out.primitive().name();
      EXPECT_ALLCLOSE(t, zeros_like(out));
    }
  }
}

TEST_P(Rules, ScatterAddWithDuplicateAndDroppedIndices) {
  array a = uniform_values({5, 2}, 18);
  array idx = array({1, 1, -2, 7, 1}, int32);  // 7 is dropped; -2 is row 3
  array updates = uniform_values({5, 1, 2}, 19);
  Fn f = [](const std::vector<array>& in) {
    return std::vector<array>{scatter_add(in[0] * in[0], in[1], in[2] * 3.0f, 0)};
  };
  EXPECT_TRUE(check_grads(f, {a, idx, updates}));
  auto g = grad(
      [&](const std::vector<array>& in) {
        return sum(scatter_add(in[0], idx, in[1], 0) * reshape(arange(10.0), {5, 2}));
      },
      std::vector<int>{1})({a, updates})[0];
  EXPECT_ALLCLOSE(g,
                  array({2.0f, 3.0f, 2.0f, 3.0f, 6.0f, 7.0f, 0.0f, 0.0f, 2.0f, 3.0f}, {5, 1, 2}));
}

TEST_P(Rules, ScatterKeepsOnlyTheLastWrite) {
  array a = uniform_values({4}, 20);
  array idx = array({1, 1, 2, -9}, int32);  // the second write to 1 wins; -9 is dropped
  array updates = uniform_values({4, 1}, 21);
  Fn g = [](const std::vector<array>& in) {
    return std::vector<array>{scatter(square(in[0]), in[1], in[2] * 2.0f, 0),
                              put_along_axis(in[0], array({3, 0}, int32), array({1.5f, 2.5f}), 0)};
  };
  EXPECT_TRUE(check_grads(g, {a, idx, updates}));
  array w = array({1.0f, 10.0f, 100.0f, 1000.0f});
  auto grads =
      grad([&](const std::vector<array>& in) { return sum(scatter(in[0], idx, in[1], 0) * w); },
           std::vector<int>{0, 1})({a, updates});
  EXPECT_ALLCLOSE(grads[0], array({1.0f, 0.0f, 0.0f, 1000.0f}));
  EXPECT_ALLCLOSE(grads[1], array({0.0f, 10.0f, 100.0f, 0.0f}, {4, 1}));
}

TEST_P(Rules, Float16StaysFloat16) {
  array x = astype(uniform_values({3, 4}, 22), float16);
  array y = astype(uniform_values({4, 2}, 23), float16);
  Fn f = [](const std::vector<array>& in) {
    return std::vector<array>{matmul(in[0], in[1]),
                              softmax(in[0], -1),
                              sum(in[0], 0),
                              max(in[0], 1),
                              take(in[0], array({2, 0}, int32), 1),
                              where(in[0] > array(0.0f, float16), in[0], array(0.5f, float16))};
  };
  EXPECT_TRUE(check_grads(f, {x, y}));
  auto g = grad([](const std::vector<array>& in) { return sum(prod(in[0], 1)); })({x});
  EXPECT_EQ(g[0].dtype(), float16);
}

TEST_P(Rules, SecondDerivatives) {
  array x = uniform_values({3, 4}, 24, 0.5f, 1.5f);
  array y = uniform_values({4, 2}, 25);
  Fn elementwise = [](const std::vector<array>& in) {
    return std::vector<array>{exp(in[0]) * sin(in[0]) / (in[0] + 1.0f) + tanh(in[0])};
  };
  EXPECT_TRUE(check_grads(elementwise, {x}, 2));
  Fn mm = [](const std::vector<array>& in) {
    return std::vector<array>{matmul(square(in[0]), sin(in[1]))};
  };
  EXPECT_TRUE(check_grads(mm, {x, y}, 2));
  Fn reductions = [](const std::vector<array>& in) {
    return std::vector<array>{sum(square(in[0]), 1), logsumexp(in[0], -1), softmax(in[0], -1),
                              max(in[0] * in[0], 0), cumsum(in[0] * in[0], 1)};
  };
  EXPECT_TRUE(check_grads(reductions, {x}, 2));
  // grad of grad by hand: f = sum(x^3) has f'' = 6x.
  auto d2 = grad([](const array& v) {
    return sum(grad([](const array& w) { return sum(w * w * w); })(v));
  })(x);
  EXPECT_ALLCLOSE(d2, 6.0f * x, 1e-5, 1e-5);
}

TEST_P(Rules, GridSampleReferenceVjp) {
  // ix = ((g + 1) W - 1) / 2: pick sample positions half way between pixels
  // or near it, some outside the image (zero padding), so that no finite
  // difference step crosses a pixel boundary.
  const int W = 5, H = 4;
  auto to_grid = [](float i, int size) { return (2 * i + 1) / size - 1; };
  std::vector<float> g;
  const float xs[] = {-1.5f, -0.4f, 0.3f, 1.6f, 3.7f, 4.5f, 5.3f, 2.4f, -0.6f};
  const float ys[] = {0.5f, -1.4f, 2.3f, 3.6f, 4.4f, 1.7f, -0.5f, 0.4f, 2.6f};
  for (int i = 0; i < 9; ++i) {
    g.push_back(to_grid(xs[i], W));
    g.push_back(to_grid(ys[i], H));
  }
  array grid = array(g.begin(), {1, 3, 3, 2});
  array x = uniform_values({1, H, W, 2}, 26);
  Fn f = [](const std::vector<array>& in) {
    return std::vector<array>{examples::grid_sample_ref(in[0], in[1])};
  };
  EXPECT_TRUE(check_grads(f, {x, grid}));
}
