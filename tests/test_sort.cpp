// sort, argsort, partition, argpartition and topk on the CPU and the GPU,
// against a reference written here (std::stable_sort of positions by a
// NaN-last order, on values read back with plain loops): every dtype, every
// axis (negative too), ties (stability), NaN and signed zeros, views,
// empty and length-1 axes, lines long enough for the GPU's merge passes;
// their gradients (check_grads) and their errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "mlx_lite/gpu.h"
#include "mlx_lite/testing.h"
#include "test_util.h"

namespace {

using namespace test_util;

const Device kCpu(Device::cpu);
const Device kGpu(Device::gpu);

std::string dev_name(const Device& d) {
  return d == kCpu ? "cpu" : "gpu";
}

// Values with many ties (small integers, halves for floats), every dtype.
array tied_values(const Shape& shape, Dtype dtype, uint64_t seed) {
  array u = random::uniform(-4.0f, 4.0f, shape, float32, random::key(seed), kCpu);
  u = is_floating_point(dtype)
          ? multiply(floor(multiply(u, array(2.0f), kCpu), kCpu), array(0.5f), kCpu)
          : floor(u, kCpu);
  if (dtype == bool_) u = greater(u, array(0.0f), kCpu);
  if (is_unsigned(dtype)) u = abs(u, kCpu);
  array out = astype(u, dtype, kCpu);
  eval(out);
  return out;
}

// The reference: for each line of `a` along `axis` (row-major over the other
// dims), the positions that stably sort it, NaN last.
std::vector<std::vector<uint32_t>> reference_order(const array& a, int axis) {
  const int ax = axis < 0 ? axis + a.ndim() : axis;
  const auto v = values(a);
  const int64_t n = a.shape(ax);
  int64_t inner = 1;
  for (int d = ax + 1; d < a.ndim(); ++d) inner *= a.shape(d);
  const int64_t lines = n == 0 ? 0 : static_cast<int64_t>(v.size()) / n;
  std::vector<std::vector<uint32_t>> out(lines);
  for (int64_t r = 0; r < lines; ++r) {
    const int64_t base = (r / inner) * n * inner + r % inner;
    auto at = [&](uint32_t k) { return v[base + k * inner]; };
    auto& order = out[r];
    order.resize(n);
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t i, uint32_t j) {
      const double x = at(i), y = at(j);
      if (std::isnan(y)) return !std::isnan(x);
      if (std::isnan(x)) return false;
      return x < y;
    });
  }
  return out;
}

// Element k of line r of an array shaped as `a` with `axis`, row-major.
int64_t flat_index(const array& a, int axis, int64_t r, int64_t k) {
  const int ax = axis < 0 ? axis + a.ndim() : axis;
  int64_t inner = 1;
  for (int d = ax + 1; d < a.ndim(); ++d) inner *= a.shape(d);
  const int64_t n = a.shape(ax);
  return (r / inner) * n * inner + r % inner + k * inner;
}

// argsort and sort of `a` along `axis` on every device equal the reference
// exactly (sort compared bit for bit, so -0 and NaN payloads must survive).
void expect_sorted(const array& a, int axis, const std::string& what) {
  const auto order = reference_order(a, axis);
  const auto bits = dispatch_dtype(a.dtype(), [&]<typename T>() {
    std::vector<uint64_t> b;
    for (T v : values_as<T>(a)) {
      uint64_t w = 0;
      std::memcpy(&w, &v, sizeof(T));
      b.push_back(w);
    }
    return b;
  });
  for (const auto& dev : devices()) {
    const std::string where = what + " axis " + std::to_string(axis) + " on " + dev_name(dev);
    array idx = argsort(a, axis, dev);
    array sorted = sort(a, axis, dev);
    ASSERT_EQ(idx.dtype(), uint32) << where;
    ASSERT_EQ(idx.shape(), a.shape()) << where;
    ASSERT_EQ(sorted.dtype(), a.dtype()) << where;
    ASSERT_EQ(sorted.shape(), a.shape()) << where;
    const auto got_idx = values_as<uint32_t>(idx);
    const auto got = dispatch_dtype(a.dtype(), [&]<typename T>() {
      std::vector<uint64_t> b;
      for (T v : values_as<T>(sorted)) {
        uint64_t w = 0;
        std::memcpy(&w, &v, sizeof(T));
        b.push_back(w);
      }
      return b;
    });
    for (size_t r = 0; r < order.size(); ++r) {
      for (size_t k = 0; k < order[r].size(); ++k) {
        const int64_t i = flat_index(a, axis, r, k);
        ASSERT_EQ(got_idx[i], order[r][k]) << where << " line " << r << " at " << k;
        ASSERT_EQ(got[i], bits[flat_index(a, axis, r, order[r][k])])
            << where << " line " << r << " at " << k;
      }
    }
  }
}

TEST(Sort, EveryDtypeAndAxisWithTies) {
  for (Dtype dtype : all_dtypes) {
    if (!test_util::runs_on(dtype, default_device())) continue;
    array a = tied_values({3, 4, 37}, dtype, 1);
    for (int axis : {0, 1, 2, -1, -3}) expect_sorted(a, axis, std::string(dtype_name(dtype)));
  }
}

TEST(Sort, NaNsAndSignedZerosGoWhereMlxPutsThem) {
  const float nan = std::nanf(""), inf = INFINITY;
  for (Dtype dtype : {float32, float16, bfloat16}) {
    array a = astype(array({2.0f, nan, -0.0f, 0.0f, -inf, nan, 1.0f, inf, -0.0f, -3.0f}, {10}),
                     dtype, kCpu);
    expect_sorted(a, 0, std::string(dtype_name(dtype)) + " nan");
    // NaN last, then the stable order of the zeros: -0 (2), +0 (3), -0 (8).
    auto idx = values_as<uint32_t>(argsort(a, 0, kCpu));
    EXPECT_EQ(idx, (std::vector<uint32_t>{4, 9, 2, 3, 8, 6, 0, 7, 1, 5}));
  }
}

TEST(Sort, ExtremesOfEachIntegerDtype) {
  const std::vector<int64_t> big{int64_t{1} << 62, -(int64_t{1} << 62), 0,
                                 INT64_MIN,        INT64_MAX,           -1};
  array i64 = array(big.begin(), {6}, int64);
  expect_sorted(i64, 0, "int64 extremes");
  array i32 = array({INT32_MAX, INT32_MIN, 0, -1, 1}, int32);
  expect_sorted(i32, 0, "int32 extremes");
  array u32 = array({0xffffffffu, 0u, 0x80000000u, 1u}, uint32);
  expect_sorted(u32, 0, "uint32 extremes");
  array u8 = astype(array({255, 0, 128, 127, 1}, int32), uint8, kCpu);
  expect_sorted(u8, 0, "uint8 extremes");
}

TEST(Sort, ViewsEmptyAndLengthOne) {
  array base = tied_values({6, 9, 5}, float32, 2);
  expect_sorted(transpose(base, {2, 0, 1}), 1, "transposed");
  expect_sorted(slice(base, {5, 0, 4}, {-7, 9, -6}, {-2, 2, -1}), 1, "reversed slice");
  expect_sorted(slice(base, {0, 1, 0}, {6, 9, 5}, {1, 3, 2}), 2, "strided slice");
  expect_sorted(broadcast_to(tied_values({1, 7}, int32, 3), {4, 7}), 1, "broadcast");
  for (const Shape& shape : {Shape{0}, Shape{3, 0}, Shape{0, 4}, Shape{5, 1}, Shape{1}}) {
    for (Dtype dtype : {float32, int64}) {
      array a = tied_values(shape, dtype, 4);
      for (int axis = 0; axis < a.ndim(); ++axis) expect_sorted(a, axis, "small");
    }
  }
}

TEST(Sort, FlattenedForms) {
  array a = tied_values({4, 5}, int32, 5);
  for (const auto& dev : devices()) {
    EXPECT_EQ(values(sort(a, dev)), values(sort(flatten(a), 0, dev)));
    EXPECT_EQ(values_as<uint32_t>(argsort(a, dev)),
              values_as<uint32_t>(argsort(flatten(a), 0, dev)));
    EXPECT_EQ(sort(array(3.0f), dev).shape(), (Shape{1}));
  }
}

// Lines longer than a GPU block (2048): block pass plus merge passes, with
// lengths that are not powers of two and, for the longest, several merges.
TEST(Sort, LongLines) {
  expect_sorted(tied_values({3, 5000}, float32, 6), 1, "3 x 5000 float32");
  expect_sorted(tied_values({2, 4097}, int64, 7), -1, "2 x 4097 int64");
  expect_sorted(tied_values({2, 6000}, float16, 8), 1, "2 x 6000 float16");
  expect_sorted(transpose(tied_values({2300, 3}, uint8, 9)), 1, "3 x 2300 uint8 transposed");
  array wide = random::normal({1, 70001}, float32, 0, 1, random::key(10), kCpu);
  expect_sorted(wide, 1, "1 x 70001 float32");
}

// partition's contract: position kth holds the kth smallest, nothing before
// it is larger and nothing after it smaller; argpartition's indices give such
// a partition and are a permutation.
TEST(Sort, PartitionProperty) {
  for (Dtype dtype : {float32, int32, bfloat16, uint8}) {
    array a = tied_values({4, 33}, dtype, 11);
    const auto order = reference_order(a, 1);
    const auto v = values(a);
    for (const auto& dev : devices()) {
      for (int kth : {0, 5, 32, -1, -33}) {
        const int k = kth < 0 ? kth + 33 : kth;
        const auto p = values(partition(a, kth, 1, dev));
        const auto pi = values_as<uint32_t>(argpartition(a, kth, 1, dev));
        for (int r = 0; r < 4; ++r) {
          const double pivot = v[r * 33 + order[r][k]];
          EXPECT_EQ(p[r * 33 + k], pivot) << dtype_name(dtype) << " kth " << kth;
          std::vector<uint32_t> perm;
          for (int j = 0; j < 33; ++j) {
            const double x = p[r * 33 + j], y = v[r * 33 + pi[r * 33 + j]];
            if (j < k) {
              EXPECT_LE(x, pivot);
              EXPECT_LE(y, pivot);
            } else if (j > k) {
              EXPECT_GE(x, pivot);
              EXPECT_GE(y, pivot);
            }
            perm.push_back(pi[r * 33 + j]);
          }
          EXPECT_EQ(v[r * 33 + pi[r * 33 + k]], pivot);
          std::sort(perm.begin(), perm.end());
          for (uint32_t j = 0; j < 33; ++j) ASSERT_EQ(perm[j], j);
        }
      }
    }
  }
}

// topk gives the k largest (a multiset: order unspecified, as MLX), NaN
// counting as the largest.
TEST(Sort, TopkIsTheKLargest) {
  const float nan = std::nanf("");
  array f = array({3.0f, nan, -1.0f, 7.0f, 3.0f, 0.5f}, {6});
  for (const auto& dev : devices()) {
    auto top = values(sort(topk(f, 2, 0, dev), 0, kCpu));
    EXPECT_EQ(top[0], 7.0);
    EXPECT_TRUE(std::isnan(top[1]));
    for (Dtype dtype : {float32, int64, bool_, float16}) {
      array a = tied_values({5, 12}, dtype, 12);
      for (int axis : {0, 1, -1}) {
        const int n = a.shape(axis < 0 ? axis + 2 : axis);
        for (int k : {0, 1, 3, n}) {
          array t = topk(a, k, axis, dev);
          Shape want = a.shape();
          want[axis < 0 ? axis + 2 : axis] = k;
          ASSERT_EQ(t.shape(), want);
          ASSERT_EQ(t.dtype(), dtype);
          // The k largest of each line: the last k of the sorted line.
          Shape start(2, 0);
          start[axis < 0 ? axis + 2 : axis] = n - k;
          array expect = slice(sort(a, axis, kCpu), start, a.shape(), kCpu);
          EXPECT_EQ(values(sort(t, axis, kCpu)), values(expect))
              << dtype_name(dtype) << " k " << k << " axis " << axis;
        }
      }
    }
    EXPECT_EQ(values(sort(topk(array({1, 9, 4, 7}, int32), 2, dev), kCpu)),
              (std::vector<double>{7, 9}));
  }
}

TEST(Sort, Gradients) {
  using mlx_lite::test::check_grads;
  // Distinct values: the sorting permutation is constant around them.
  array x = random::normal({3, 7}, float32, 0, 1, random::key(13), kCpu);
  for (int axis : {0, 1, -1}) {
    EXPECT_TRUE(check_grads(
        [&](const std::vector<array>& in) { return std::vector<array>{sort(in[0], axis)}; }, {x},
        2));
    EXPECT_TRUE(check_grads(
        [&](const std::vector<array>& in) { return std::vector<array>{topk(in[0], 3, axis)}; }, {x},
        2));
    EXPECT_TRUE(check_grads(
        [&](const std::vector<array>& in) { return std::vector<array>{partition(in[0], 1, axis)}; },
        {x}));
  }
  // The cotangent goes back to where each element came from.
  array v = array({3.0f, 1.0f, 2.0f}, {3});
  auto g = vjp([](const std::vector<array>& in) { return std::vector<array>{sort(in[0])}; }, {v},
               {array({10.0f, 20.0f, 30.0f}, {3})});
  EXPECT_EQ(values(g.second[0]), (std::vector<double>{30, 10, 20}));
  auto ga = grad([](const array& in) { return sum(astype(argsort(in), float32)); })(v);
  EXPECT_EQ(values(ga), (std::vector<double>{0, 0, 0}));
}

TEST(Sort, Errors) {
  array a = tied_values({3, 4}, float32, 14);
  auto starts_with = [](const std::function<void()>& f, const std::string& prefix) {
    const std::string msg = error_of(f);
    EXPECT_EQ(msg.rfind(prefix, 0), 0u) << msg;
  };
  EXPECT_THROW(sort(a, 2), std::invalid_argument);
  EXPECT_THROW(argsort(a, -3), std::invalid_argument);
  EXPECT_THROW(sort(array(1.0f), 0), std::invalid_argument);
  starts_with([&] { sort(a, 2); }, "[sort]");
  starts_with([&] { argsort(a, 5); }, "[argsort]");
  starts_with([&] { partition(a, 4, 1); }, "[partition]");
  starts_with([&] { partition(a, -5, 1); }, "[partition]");
  starts_with([&] { argpartition(a, 3, 0); }, "[argpartition]");
  starts_with([&] { partition(zeros({0}), 0); }, "[partition]");
  starts_with([&] { topk(a, 5, 1); }, "[topk]");
  starts_with([&] { topk(a, -1); }, "[topk]");
  starts_with([&] { topk(a, 1, 2); }, "[topk]");
  EXPECT_NO_THROW(partition(a, -4, 1));
  EXPECT_NO_THROW(topk(a, 12));
}

}  // namespace
