// Differential tests: the GPU kernels of Select, Concatenate, Pad,
// SliceUpdate, Arange, Eye and RandomBits against the CPU backend, bit for
// bit (each is data movement or exactly specified arithmetic), for every
// dtype, on dense, transposed, reversed-strided and broadcast inputs.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <random>

#include "gpu_test_util.h"

using namespace mlx_lite;
using namespace gpu_test;

namespace {

std::string name_of(Dtype t) {
  return std::string(dtype_name(t));
}

// GPU and CPU results have one shape and dtype and the same bytes, element
// by element (read densely on the CPU).
void expect_same_bits(const array& gpu_result, const array& cpu_result, const std::string& what) {
  ASSERT_EQ(gpu_result.shape(), cpu_result.shape()) << what;
  ASSERT_EQ(gpu_result.dtype(), cpu_result.dtype()) << what;
  array g = contiguous(gpu_result, false, kCpu);
  array c = contiguous(cpu_result, false, kCpu);
  eval({g, c});
  const size_t item = g.itemsize();
  const auto* gp = static_cast<const uint8_t*>(g.raw_data());
  const auto* cp = static_cast<const uint8_t*>(c.raw_data());
  if (g.size() == 0 || std::memcmp(gp, cp, g.nbytes()) == 0) return;
  for (size_t i = 0; i < g.size(); ++i) {
    if (std::memcmp(gp + i * item, cp + i * item, item) != 0) {
      uint64_t gv = 0, cv = 0;  // little-endian bits of each element
      std::memcpy(&gv, gp + i * item, item);
      std::memcpy(&cv, cp + i * item, item);
      FAIL() << what << ": first difference at element " << i << " of " << g.size() << ": gpu 0x"
             << std::hex << gv << ", cpu 0x" << cv;
    }
  }
}

// The layouts the kernels must read, each of `shape` (2-D or 3-D): dense, a
// transpose, a negative-step slice with an offset, and broadcasts.
const std::vector<std::string> kLayouts = {"dense", "transposed", "reversed", "broadcast_row",
                                           "broadcast_col"};

array make_layout(const std::string& kind, const Shape& shape, Dtype dtype, uint64_t seed) {
  const int nd = static_cast<int>(shape.size());
  if (kind == "dense") return test_values(shape, dtype, seed);
  if (kind == "transposed") {
    // Stored with the axes rotated; transposed back into `shape`.
    Shape stored(shape.begin() + 1, shape.end());
    stored.push_back(shape[0]);
    std::vector<int> axes = {nd - 1};
    for (int i = 0; i < nd - 1; ++i) axes.push_back(i);
    return transpose(test_values(stored, dtype, seed), axes, kCpu);
  }
  if (kind == "reversed") {
    // Every axis walked backwards, the second one in steps of 3.
    Shape stored = shape, start(nd), stop(nd), step(nd, -1);
    stored[1] = 3 * shape[1];
    for (int i = 0; i < nd; ++i) {
      start[i] = stored[i] - 1;
      stop[i] = -stored[i] - 1;
    }
    step[1] = -3;
    return slice(test_values(stored, dtype, seed), start, stop, step, kCpu);
  }
  Shape stored = shape;
  stored[kind == "broadcast_row" ? 0 : nd - 1] = 1;
  return broadcast_to(test_values(stored, dtype, seed), shape, kCpu);
}

class GpuShape : public gpu_test::GpuTest {};

}  // namespace

// ---- Select.

TEST_F(GpuShape, SelectEveryDtypeEveryLayout) {
  const Shape shape = {5, 7};
  const size_t n = kLayouts.size();
  for (auto dtype : gpu_test::gpu_dtypes) {
    for (size_t i = 0; i < n; ++i) {
      // Each layout of the condition, with two other layouts for x and y.
      array cond = make_layout(kLayouts[i], shape, bool_, 10 + i);
      array x = make_layout(kLayouts[(i + 1) % n], shape, dtype, 20 + i);
      array y = make_layout(kLayouts[(i + 3) % n], shape, dtype, 30 + i);
      expect_same_bits(where(cond, x, y, kGpu), where(cond, x, y, kCpu),
                       "where " + name_of(dtype) + " cond " + kLayouts[i]);
    }
  }
}

TEST_F(GpuShape, SelectKeepsNanPayloadsAndBroadcastsScalars) {
  array cond = test_values({3, 4}, bool_, 1);
  array nans = astype(array(std::numeric_limits<float>::quiet_NaN()), float32, kCpu);
  array x = test_values({3, 4}, float32, 2);
  expect_same_bits(where(cond, x, nans, kGpu), where(cond, x, nans, kCpu), "NaN scalar y");
  expect_same_bits(where(array(true), x, array(2.5f), kGpu),
                   where(array(true), x, array(2.5f), kCpu), "scalar condition");
}

TEST_F(GpuShape, SelectOddSizes) {
  for (int n : {1, 7, 1000003}) {
    array cond = test_values({n}, bool_, 3);
    array x = test_values({n}, float32, 4);
    array y = test_values({n}, float32, 5);
    expect_same_bits(where(cond, x, y, kGpu), where(cond, x, y, kCpu), "n=" + std::to_string(n));
    // A strided y (every other element of a longer array).
    array y2 = slice(test_values({2 * n}, float32, 6), {0}, {2 * n}, {2}, kCpu);
    expect_same_bits(where(cond, x, y2, kGpu), where(cond, x, y2, kCpu),
                     "strided n=" + std::to_string(n));
  }
}

// ---- Concatenate.

TEST_F(GpuShape, ConcatenateEveryAxisEveryDtype) {
  for (auto dtype : gpu_test::gpu_dtypes) {
    for (int axis = 0; axis < 3; ++axis) {
      // Three inputs of different layouts and extents along the axis.
      std::vector<array> parts;
      for (int k = 0; k < 3; ++k) {
        Shape shape = {4, 5, 6};
        shape[axis] = k + 2;
        parts.push_back(make_layout(kLayouts[(axis + k) % kLayouts.size()], shape, dtype, 40 + k));
      }
      const std::string what = "concatenate " + name_of(dtype) + " axis " + std::to_string(axis);
      expect_same_bits(concatenate(parts, axis, kGpu), concatenate(parts, axis, kCpu), what);
      expect_same_bits(concatenate({parts[1]}, axis, kGpu), concatenate({parts[1]}, axis, kCpu),
                       what + " one input");
    }
  }
}

TEST_F(GpuShape, ConcatenateNegativeAxisAndEmptyParts) {
  array a = make_layout("reversed", {3, 4}, int32, 1);
  array empty = zeros({3, 0}, int32, kCpu);
  array b = make_layout("transposed", {3, 2}, int32, 2);
  expect_same_bits(concatenate({a, empty, b}, -1, kGpu), concatenate({a, empty, b}, -1, kCpu),
                   "with an empty part");
  expect_same_bits(concatenate({empty, empty}, 1, kGpu), concatenate({empty, empty}, 1, kCpu),
                   "all empty");
  expect_same_bits(stack({a, a}, 1, kGpu), stack({a, a}, 1, kCpu), "stack");
}

// ---- Pad.

TEST_F(GpuShape, PadEveryDtypeEveryLayout) {
  const std::vector<std::vector<std::pair<int, int>>> widths = {
      {{2, 1}, {0, 3}}, {{0, 0}, {4, 1}}, {{0, 0}, {0, 0}}, {{3, 0}, {0, 0}}};
  for (auto dtype : gpu_test::gpu_dtypes) {
    for (size_t i = 0; i < kLayouts.size(); ++i) {
      array a = make_layout(kLayouts[i], {5, 7}, dtype, 50 + i);
      array value = astype(array(3.0f), dtype, kCpu);
      for (const auto& w : widths) {
        const std::string what = "pad " + name_of(dtype) + " " + kLayouts[i] + " (" +
                                 std::to_string(w[0].first) + "," + std::to_string(w[0].second) +
                                 ")(" + std::to_string(w[1].first) + "," +
                                 std::to_string(w[1].second) + ")";
        expect_same_bits(pad(a, w, value, "constant", kGpu), pad(a, w, value, "constant", kCpu),
                         what);
      }
    }
  }
}

TEST_F(GpuShape, PadSomeAxesOfThreeAndEdgeMode) {
  array a = make_layout("transposed", {3, 4, 5}, float16, 1);
  expect_same_bits(pad(a, {0, 2}, {1, 0}, {2, 3}, array(-1.5f), "constant", kGpu),
                   pad(a, {0, 2}, {1, 0}, {2, 3}, array(-1.5f), "constant", kCpu), "axes 0, 2");
  expect_same_bits(pad(a, {{1, 2}, {0, 0}, {3, 1}}, array(0), "edge", kGpu),
                   pad(a, {{1, 2}, {0, 0}, {3, 1}}, array(0), "edge", kCpu), "edge");
  array empty = zeros({0, 3}, float32, kCpu);
  expect_same_bits(pad(empty, {{1, 1}, {2, 0}}, array(7.0f), "constant", kGpu),
                   pad(empty, {{1, 1}, {2, 0}}, array(7.0f), "constant", kCpu), "empty input");
}

// ---- SliceUpdate.

TEST_F(GpuShape, SliceUpdateEveryDtypeWithNegativeSteps) {
  struct Region {
    Shape start, stop, strides;
  };
  const std::vector<Region> regions = {
      {{7, 8}, {0, -10}, {-2, -3}},  // backwards in both axes
      {{1, 0}, {8, 9}, {3, 2}},      // forward steps
      {{0, 8}, {8, 0}, {1, -1}},     // one axis reversed
      {{0, 0}, {8, 9}, {1, 1}},      // the whole array
  };
  for (auto dtype : gpu_test::gpu_dtypes) {
    for (size_t i = 0; i < kLayouts.size(); ++i) {
      array src = make_layout(kLayouts[i], {8, 9}, dtype, 60 + i);
      for (const auto& r : regions) {
        Shape region = slice(src, r.start, r.stop, r.strides, kCpu).shape();
        array update = make_layout(kLayouts[(i + 2) % kLayouts.size()], region, dtype, 70 + i);
        const std::string what = "slice_update " + name_of(dtype) + " src " + kLayouts[i];
        expect_same_bits(slice_update(src, update, r.start, r.stop, r.strides, kGpu),
                         slice_update(src, update, r.start, r.stop, r.strides, kCpu), what);
      }
      // A scalar update broadcast over the region.
      array one = astype(array(1.0f), dtype, kCpu);
      expect_same_bits(slice_update(src, one, {6, 1}, {0, 9}, {-3, 4}, kGpu),
                       slice_update(src, one, {6, 1}, {0, 9}, {-3, 4}, kCpu), "scalar update");
    }
  }
}

TEST_F(GpuShape, SliceUpdateThreeDimsAndEmptyRegion) {
  array src = make_layout("reversed", {4, 6, 5}, int64, 1);
  array update = make_layout("transposed", {2, 3, 5}, int64, 2);
  expect_same_bits(slice_update(src, update, {3, 5, 0}, {0, 0, 5}, {-2, -2, 1}, kGpu),
                   slice_update(src, update, {3, 5, 0}, {0, 0, 5}, {-2, -2, 1}, kCpu), "3-D");
  array none = zeros({0, 6, 5}, int64, kCpu);
  expect_same_bits(slice_update(src, none, {2, 0, 0}, {2, 6, 5}, kGpu),
                   slice_update(src, none, {2, 0, 0}, {2, 6, 5}, kCpu), "empty region");
}

// ---- Arange.

TEST_F(GpuShape, ArangeEveryDtypeBitForBit) {
  struct Range {
    double start, stop, step;
  };
  const std::vector<Range> ranges = {
      {0, 10, 1},
      {-3, 5, 0.5},
      {0, 1, 0.1},                    // inexact steps: the double roundings must match
      {1, -2, -0.3},                  // negative step, negative values (wrap in unsigned types)
      {0.1, 301.7, 0.37},             // uint8 wraps past 255
      {-1e-3, 1e-3, 3.3e-5},          // float16 subnormals
      {0, 70000, 7.3},                // float16 overflows to inf past 65504
      {1e15 + 0.25, 1e15 + 50, 0.7},  // large values with fractions
      {9007199254740992.0, 9007199254741012.0, 1},  // 2^53 + i: ties to even
      {0, 1e-38, 1.1e-41},                          // float32 subnormals
      {0, 1e-321, 4.9406564584124654e-324},         // double subnormals (start + i * 2^-1074)
      {1e19, 2e19, 1e18},                           // past int64: INT64_MIN as the CPU's conversion
      {-5e307, 1.2e308, 4e307},                     // near double's largest: inf in float
  };
  for (auto dtype : gpu_test::gpu_dtypes) {
    if (dtype == bool_) continue;
    for (const auto& r : ranges) {
      const std::string what = "arange " + name_of(dtype) + " " + std::to_string(r.start) + " " +
                               std::to_string(r.stop) + " " + std::to_string(r.step);
      expect_same_bits(arange(r.start, r.stop, r.step, dtype, kGpu),
                       arange(r.start, r.stop, r.step, dtype, kCpu), what);
    }
  }
}

TEST_F(GpuShape, ArangeRandomStartsAndSteps) {
  // Starts and steps of every magnitude and sign, so that the products and
  // sums round in every way (the shader does double arithmetic on the bits).
  std::mt19937_64 gen(12345);
  std::uniform_real_distribution<double> mantissa(-1, 1);
  std::uniform_int_distribution<int> exponent(-60, 60);
  for (int t = 0; t < 40; ++t) {
    const double start = std::ldexp(mantissa(gen), exponent(gen));
    double step = std::ldexp(mantissa(gen), exponent(gen));
    if (step == 0) step = 1;
    const double stop = start + 97.5 * step;
    for (auto dtype : {float32, int64, int32, bfloat16}) {
      expect_same_bits(arange(start, stop, step, dtype, kGpu),
                       arange(start, stop, step, dtype, kCpu),
                       "arange " + name_of(dtype) + " try " + std::to_string(t));
    }
  }
}

TEST_F(GpuShape, ArangeOddSizes) {
  for (int n : {1, 7, 1000003}) {
    expect_same_bits(arange(0.5, 0.5 + n * 0.25, 0.25, float32, kGpu),
                     arange(0.5, 0.5 + n * 0.25, 0.25, float32, kCpu), "n=" + std::to_string(n));
    expect_same_bits(arange(-7, n - 7, kGpu), arange(-7, n - 7, kCpu),
                     "int n=" + std::to_string(n));
  }
  EXPECT_EQ(arange(0, 0, kGpu).size(), 0u);
}

// ---- Eye.

TEST_F(GpuShape, EyeEveryDtypeAndDiagonal) {
  struct Case {
    int n, m, k;
  };
  const std::vector<Case> cases = {{5, 5, 0},  {4, 7, 2},  {7, 4, -3}, {3, 5, 5}, {3, 5, 4},
                                   {3, 5, -3}, {6, 3, -5}, {1, 1, 0},  {0, 3, 0}, {4, 4, -100}};
  for (auto dtype : gpu_test::gpu_dtypes) {
    for (const auto& c : cases) {
      expect_same_bits(eye(c.n, c.m, c.k, dtype, kGpu), eye(c.n, c.m, c.k, dtype, kCpu),
                       "eye " + name_of(dtype) + " " + std::to_string(c.n) + "x" +
                           std::to_string(c.m) + " k=" + std::to_string(c.k));
    }
  }
}

TEST_F(GpuShape, ManyEyesInOneEvalSpanSeveralBatches) {
  // Each eye records two dispatches reading scalars it makes itself; over
  // the encoder's batches of 256 dispatches those must stay alive.
  array gpu = zeros({5, 6}, float32, kCpu), cpu = gpu;
  for (int i = 0; i < 300; ++i) {
    const float scale = static_cast<float>(i % 7);
    gpu = add(gpu, multiply(eye(5, 6, i % 9 - 4, float32, kGpu), array(scale), kGpu), kGpu);
    cpu = add(cpu, multiply(eye(5, 6, i % 9 - 4, float32, kCpu), array(scale), kCpu), kCpu);
  }
  expect_same_bits(gpu, cpu, "300 eyes");
}

// ---- RandomBits.

TEST_F(GpuShape, RandomBitsMatchTheCpuForKeyBatchesAndWidths) {
  const array k0 = random::key(7);
  const array keys3 = random::split(k0, 3, kCpu);  // (3, 2)
  const array keys23 = reshape(random::split(random::key(8), 6, kCpu), {2, 3, 2}, kCpu);
  // Keys read through strides: every other key of six, backwards.
  const array strided =
      slice(random::split(random::key(9), 6, kCpu), {5, 0}, {-7, 2}, {-2, 1}, kCpu);
  const array transposed =
      transpose(reshape(random::split(random::key(10), 1, kCpu), {2, 1}, kCpu));
  const std::vector<std::pair<std::string, array>> keys = {{"one", k0},
                                                           {"batch3", keys3},
                                                           {"batch2x3", keys23},
                                                           {"strided", strided},
                                                           {"transposed", transposed}};
  for (const auto& [name, key] : keys) {
    Shape lead(key.shape().begin(), key.shape().end() - 1);
    for (const Shape& tail : {Shape{}, Shape{1}, Shape{5}, Shape{6}, Shape{7}, Shape{3, 11}}) {
      Shape shape = lead;
      shape.insert(shape.end(), tail.begin(), tail.end());
      for (int width : {1, 2, 4}) {
        expect_same_bits(random::bits(shape, width, key, kGpu),
                         random::bits(shape, width, key, kCpu),
                         "bits " + name + " width " + std::to_string(width) + " of " +
                             std::to_string(tail.empty() ? 1 : tail[0]));
      }
    }
  }
  for (int width : {1, 2, 4}) {
    expect_same_bits(random::bits({1000003}, width, k0, kGpu),
                     random::bits({1000003}, width, k0, kCpu),
                     "a million, width " + std::to_string(width));
  }
}

TEST_F(GpuShape, RandomBitsKnownValues) {
  // MLX's published values (tests/test_random.cpp's BitsKnownValues), on the GPU.
  auto u32 = [](const array& a) {
    array c = astype(a, uint32, kCpu);
    eval(c);
    return std::vector<uint32_t>(c.data<uint32_t>(), c.data<uint32_t>() + c.size());
  };
  auto k0 = random::key(0), k1 = random::key(1);
  EXPECT_EQ(random::bits({}, 4, k0, kGpu).item<uint32_t>(), 1797259609u);
  EXPECT_EQ(random::bits({}, 2, k0, kGpu).item<uint16_t>(), 345u);
  EXPECT_EQ(random::bits({}, 1, k0, kGpu).item<uint8_t>(), 89u);
  EXPECT_EQ(random::bits({}, 4, k1, kGpu).item<uint32_t>(), 507451445u);
  EXPECT_EQ(random::bits({}, 2, k1, kGpu).item<uint16_t>(), 6197u);
  EXPECT_EQ(random::bits({}, 1, k1, kGpu).item<uint8_t>(), 53u);
  EXPECT_EQ(u32(random::bits({3, 1}, 4, k0, kGpu)),
            (std::vector<uint32_t>{4146024105u, 1351547692u, 2718843009u}));
  EXPECT_EQ(u32(random::bits({5}, 2, k0, kGpu)),
            (std::vector<uint32_t>{20137, 63263, 64300, 20622, 16513}));
  EXPECT_EQ(u32(random::bits({7}, 2, k0, kGpu)),
            (std::vector<uint32_t>{20137, 63263, 1497, 14756, 16513, 41486, 44591}));
  EXPECT_EQ(u32(random::bits({8}, 2, k0, kGpu)),
            (std::vector<uint32_t>{20137, 63263, 1497, 14756, 16513, 41486, 44591, 19423}));
  EXPECT_EQ(random::bits({0}, 4, k0, kGpu).size(), 0u);
}

// ---- Grids wider than the workgroup-count limit.

TEST_F(GpuShape, GridPastTheWorkgroupCountLimitIsFolded) {
  // 65535 workgroups of 256 threads cover 16,776,960 elements: the strided
  // copy of the first part needs the second grid dimension.
  const int n = 65535 * 256 + 1;
  array big = astype(arange(n, kCpu), uint8, kCpu);
  array tail = astype(array({1, 2, 3}), uint8, kCpu);
  eval({big, tail});
  expect_same_bits(concatenate({big, tail}, 0, kGpu), concatenate({big, tail}, 0, kCpu),
                   "concatenate past 65535 workgroups");
}
