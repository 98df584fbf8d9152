// Differential tests: the GPU Gather and Scatter kernels against the CPU
// backend, for every data dtype and index dtype, over axes, slice sizes,
// layouts of sources, indices and updates, indices that wrap, clamp or drop,
// many repeated positions in sums (through atomics and through
// compare-and-swap), and more threads than one grid dimension holds.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <numeric>
#include <random>

#include "backend/vulkan/device.h"
#include "gpu_test_util.h"

using namespace mlx_lite;
using namespace gpu_test;

namespace {

const Dtype kIndexDtypes[] = {uint8, uint32, int32, int64};

class GpuIndexing : public gpu_test::GpuTest {};

// The op on the GPU and on the CPU; every kernel here moves or adds small
// integers, so results agree exactly.
void expect_same(const std::function<array(StreamOrDevice)>& op, const std::string& what) {
  expect_close(op(kGpu), op(kCpu), 0, 0, what);
}

// `n` indices for an axis of `extent`, of `dtype`: in range, plus (where the
// dtype holds them) negative ones that wrap and ones past either end.
array indices(int64_t n, int64_t extent, Dtype dtype, uint32_t seed, const Shape& shape = {}) {
  std::mt19937 rng(seed);
  const bool is_signed = dtype == int32 || dtype == int64;
  const int64_t lo = is_signed ? -extent - 2 : 0;
  const int64_t hi = extent + 2;
  std::vector<int64_t> v(n);
  for (auto& x : v) x = lo + static_cast<int64_t>(rng() % (hi - lo));
  if (!is_signed && n > 0) v[0] = dtype == uint8 ? 255 : 4000000000LL;  // far past the end
  array out(v.begin(), shape.empty() ? Shape{static_cast<int>(n)} : shape, dtype);
  eval(out);
  return out;
}

// `n` distinct positions of an axis of `extent` (n <= extent), some written
// as negative indices when the dtype holds them.
array distinct_indices(int n, int extent, Dtype dtype, uint32_t seed) {
  std::vector<int64_t> v(extent);
  std::iota(v.begin(), v.end(), 0);
  std::shuffle(v.begin(), v.end(), std::mt19937(seed));
  v.resize(n);
  if (dtype == int32 || dtype == int64) {
    for (size_t i = 0; i < v.size(); i += 2) v[i] -= extent;
  }
  array out(v.begin(), {n}, dtype);
  eval(out);
  return out;
}

// Integers in [lo, hi) of `dtype` (0 and 1 for bool), so that sums of them are
// exact in floats and halves whatever the order.
array small_ints(const Shape& shape, Dtype dtype, uint64_t seed, float lo, float hi) {
  if (dtype == bool_) return test_values(shape, dtype, seed);
  array out = astype(test_values(shape, int32, seed, lo, hi), dtype, kCpu);
  eval(out);
  return out;
}

std::string label(const std::string& what, Dtype dtype, Dtype index_dtype) {
  return fmt::format("{} {} indices {}", what, dtype_name(dtype), dtype_name(index_dtype));
}

}  // namespace

TEST_F(GpuIndexing, TakeEveryDtypeIndexDtypeAndAxis) {
  for (auto dtype : gpu_test::gpu_dtypes) {
    array a = test_values({5, 6, 7}, dtype, 1);
    for (auto it : kIndexDtypes) {
      array idx = indices(12, 7, it, 2, {3, 4});
      for (int axis = 0; axis < 3; ++axis) {
        expect_same([&](StreamOrDevice s) { return take(a, idx, axis, s); },
                    label("take axis " + std::to_string(axis), dtype, it));
      }
      expect_same([&](StreamOrDevice s) { return take(a, idx, s); }, label("flat take", dtype, it));
    }
  }
}

TEST_F(GpuIndexing, TakeAlongAxisWithBroadcast) {
  for (auto dtype : gpu_test::gpu_dtypes) {
    array a = test_values({4, 5, 6}, dtype, 3);
    for (auto it : {uint8, int32}) {
      for (int axis = 0; axis < 3; ++axis) {
        Shape shape = {4, 1, 6};  // broadcasts along dim 1 (unless that is the axis)
        shape[axis] = 3;
        int64_t n = 1;
        for (auto d : shape) n *= d;
        array idx = indices(n, a.shape(axis), it, 4 + axis, shape);
        expect_same([&](StreamOrDevice s) { return take_along_axis(a, idx, axis, s); },
                    label("take_along_axis " + std::to_string(axis), dtype, it));
      }
    }
  }
}

TEST_F(GpuIndexing, GatherSlicesMixedIndexDtypesAndLayouts) {
  array base = test_values({4, 6, 5}, float32, 5);
  const std::vector<std::pair<std::string, array>> sources = {
      {"dense", base},
      {"transposed", transpose(base, {2, 0, 1})},
      {"reversed", slice(base, {3, 5, 4}, {-5, -7, -6}, {-1, -2, -1})},
      {"broadcast", broadcast_to(slice(base, {0, 0, 0}, {1, 6, 5}), {3, 6, 5})},
      {"offset and steps", slice(base, {1, 1, 0}, {4, 6, 5}, {2, 1, 2})}};
  for (const auto& [layout, a] : sources) {
    const Shape& sh = a.shape();
    // A transposed int64 index array and a broadcast uint8 one, on axes 0 and 2.
    array i0 = transpose(indices(6, sh[0], int64, 6, {2, 3}));
    array i1 = indices(2, sh[2], uint8, 7, {1, 2});
    // Reversed (negative stride, offset) int32 indices.
    array i2 = slice(indices(7, sh[1], int32, 8), {6}, {-8}, {-2});
    for (const Shape& slice_sizes : {Shape{1, sh[1] - 1, 1}, Shape{2, 1, 2}, Shape{1, 1, 1}}) {
      expect_same(
          [&](StreamOrDevice s) {
            return gather(a, {i0, i1}, {0, 2}, slice_sizes, s);
          },
          layout + " two index arrays");
      expect_same([&](StreamOrDevice s) { return gather(a, i2, 1, slice_sizes, s); },
                  layout + " reversed indices");
    }
    expect_same(
        [&](StreamOrDevice s) {
          return gather(a, std::vector<array>{}, std::vector<int>{}, {2, 3, 1}, s);
        },
        layout + " no index arrays");
  }
}

TEST_F(GpuIndexing, EmptyAndScalar) {
  array a = test_values({3, 4}, int32, 9);
  expect_same([&](StreamOrDevice s) { return take(a, indices(0, 3, int32, 1), 0, s); },
              "empty take");
  expect_same([&](StreamOrDevice s) { return gather(a, array(-1), 1, {3, 1}, s); }, "scalar index");
  array upd = zeros({0, 1, 4}, int32, kCpu);
  expect_same([&](StreamOrDevice s) { return scatter_add(a, indices(0, 3, int32, 1), upd, 0, s); },
              "empty scatter_add");
}

TEST_F(GpuIndexing, ScatterDistinctPositionsEveryDtype) {
  for (auto dtype : gpu_test::gpu_dtypes) {
    array a = test_values({7, 5}, dtype, 10);
    for (auto it : kIndexDtypes) {
      // 5 distinct rows, whole-row slices; transposed source, reversed updates.
      array idx = distinct_indices(5, 7, it, 11);
      array upd = test_values({5, 1, 5}, dtype, 12);
      expect_same([&](StreamOrDevice s) { return scatter(a, idx, upd, 0, s); },
                  label("scatter rows", dtype, it));
      array at = transpose(test_values({5, 7}, dtype, 13));
      array rev = slice(upd, {4, 0, 4}, {-6, 1, -6}, {-1, 1, -1});
      expect_same([&](StreamOrDevice s) { return scatter(at, idx, rev, 0, s); },
                  label("scatter strided", dtype, it));
      // Slices smaller than the array along the other dim.
      array part = test_values({5, 1, 3}, dtype, 14);
      expect_same([&](StreamOrDevice s) { return scatter(a, idx, part, 0, s); },
                  label("scatter partial slices", dtype, it));
    }
    // put_along_axis: a permutation along axis 1, values broadcast.
    array perm = distinct_indices(5, 5, int32, 15);
    array idx2 = broadcast_to(reshape(perm, {1, 5}), {7, 5});
    array vals = test_values({1, 5}, dtype, 16);
    expect_same([&](StreamOrDevice s) { return put_along_axis(a, idx2, vals, 1, s); },
                label("put_along_axis", dtype, int32));
  }
}

TEST_F(GpuIndexing, ScatterDropsOutOfRangeSlices) {
  array a = test_values({6, 4}, float32, 17);
  // -7 and 6 are out of range and 4 would overrun with 3-row slices: dropped.
  std::vector<int64_t> v = {-7, 6, 4, 3, -6};
  array idx(v.begin(), {5}, int64);
  array upd = test_values({5, 3, 4}, float32, 18);
  expect_same([&](StreamOrDevice s) { return scatter(a, idx, upd, 0, s); }, "scatter drop");
  expect_same([&](StreamOrDevice s) { return scatter_add(a, idx, upd, 0, s); }, "scatter_add drop");
}

TEST_F(GpuIndexing, ScatterAddManyDuplicatesEveryDtype) {
  for (auto dtype : gpu_test::gpu_dtypes) {
    // Small integers, so float and half sums are exact in any order.
    array a = small_ints({5, 3}, dtype, 19, -2, 3);
    for (auto it : kIndexDtypes) {
      array idx = indices(300, 5, it, 20);
      array upd = small_ints({300, 1, 3}, dtype, 21, -2, 3);
      expect_same([&](StreamOrDevice s) { return scatter_add(a, idx, upd, 0, s); },
                  label("scatter_add", dtype, it));
      // Several index arrays, broadcast updates, one element per update.
      array i0 = indices(200, 5, it, 22);
      array i1 = indices(200, 3, it, 23);
      array ub = broadcast_to(small_ints({1, 1, 1}, dtype, 24, 1, 2), {200, 1, 1});
      expect_same(
          [&](StreamOrDevice s) {
            return scatter_add(a, {i0, i1}, ub, {0, 1}, s);
          },
          label("scatter_add points", dtype, it));
    }
  }
}

TEST_F(GpuIndexing, ScatterAddFloat32AtomicsAndCompareAndSwap) {
  auto& device = vulkan::Device::get();
  const bool had_atomics = device.float32_atomic_add();
  array a = small_ints({10, 2}, float32, 25, -3, 4);
  array idx = indices(20000, 10, int32, 26);
  array upd = small_ints({20000, 1, 2}, float32, 27, -3, 4);
  for (bool use : {true, false}) {
    device.use_float32_atomic_add(use);
    if (use && !device.float32_atomic_add()) continue;  // the device has none
    expect_same([&](StreamOrDevice s) { return scatter_add(a, idx, upd, 0, s); },
                use ? "float atomics" : "compare-and-swap");
  }
  device.use_float32_atomic_add(true);
  EXPECT_EQ(device.float32_atomic_add(), had_atomics);
}

TEST_F(GpuIndexing, MoreIndexArraysThanTheKernelBinds) {
  // take_along_axis over 9 dims uses 9 index arrays: the CPU kernel runs.
  Shape shape(9, 2);
  array a = test_values(shape, int32, 28);
  array idx = indices(512, 2, int32, 29, shape);
  expect_same([&](StreamOrDevice s) { return take_along_axis(a, idx, 4, s); }, "9 index arrays");
  expect_same([&](StreamOrDevice s) { return put_along_axis(a, idx, array(7), 4, s); },
              "9 index arrays scatter");
}

TEST_F(GpuIndexing, MoreThreadsThanOneGridDimension) {
  // 4 slices of 4194305 elements: 16777220 threads, more than 65535
  // workgroups of 256, so the grid folds into y. Values and comparison are
  // plain loops: at this size the element-wise helpers dominate the time.
  constexpr int kLen = 4194305;
  auto pattern = [](size_t n, unsigned mul) {
    std::vector<uint8_t> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(i * mul % 251);
    return v;
  };
  auto expect_bytes_equal = [](array gpu, array cpu, const char* what) {
    gpu = contiguous(gpu, false, kCpu);
    cpu = contiguous(cpu, false, kCpu);
    eval({gpu, cpu});
    ASSERT_EQ(gpu.shape(), cpu.shape()) << what;
    EXPECT_EQ(std::memcmp(gpu.data<uint8_t>(), cpu.data<uint8_t>(), cpu.nbytes()), 0) << what;
  };
  const auto a_values = pattern(size_t{3} * kLen, 7);
  const auto u_values = pattern(size_t{4} * kLen, 13);
  array a(a_values.begin(), {3, kLen}, uint8);
  array upd(u_values.begin(), {4, 1, kLen}, uint8);
  array idx = indices(4, 3, int32, 31);
  expect_bytes_equal(take(a, idx, 0, kGpu), take(a, idx, 0, kCpu), "folded gather");
  expect_bytes_equal(scatter_add(a, idx, upd, 0, kGpu), scatter_add(a, idx, upd, 0, kCpu),
                     "folded scatter_add");
}
