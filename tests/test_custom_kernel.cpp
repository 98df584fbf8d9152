// fast::vulkan_kernel, MLX's custom kernels for Vulkan: the generated shader
// (buffers of every dtype, layouts, NAME_shape/strides/ndim), MLX's thread
// attributes, grid folding, the simd and barrier helpers, template
// arguments, init_value and atomic outputs (native and compare-and-swap),
// GLSL keyword names, compilation errors and the memory and disk caches,
// argument errors, and a kernel inside custom_function under grad. Each
// result is checked against the CPU backend, a plain loop or hand values.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "backend/vulkan/device.h"
#include "env_util.h"
#include "gpu_test_util.h"
#include "test_util.h"

using namespace mlx_lite;
using gpu_test::kCpu;
using gpu_test::kGpu;
using test_util::error_of;
using test_util::nonce;
using test_util::ScopedEnv;
using test_util::values;
using test_util::values_as;

namespace fs = std::filesystem;

namespace {

class CustomKernelTest : public gpu_test::GpuTest {};

// ---- Helpers.

std::tuple<int, int, int> line_of(size_t n) {
  return {static_cast<int>(n), 1, 1};
}

// The message of the exception of type E that f throws ("" if none; an
// exception of another type fails the test).
template <typename E>
std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "unexpected exception type: " << e.what();
    return e.what();
  }
  return "";
}

#define EXPECT_NOT_CONTAINS(text, part)                      \
  EXPECT_EQ(std::string(text).find(part), std::string::npos) \
      << "expected not to find \"" << (part) << "\" in:\n"   \
      << (text)

// What the kernel cache did since construction.
struct CacheDelta {
  fast::KernelCacheStats start = fast::kernel_cache_stats();
  size_t compiled() const { return fast::kernel_cache_stats().compiled - start.compiled; }
  size_t memory_hits() const { return fast::kernel_cache_stats().memory_hits - start.memory_hits; }
  size_t disk_hits() const { return fast::kernel_cache_stats().disk_hits - start.disk_hits; }
};

size_t device_value(const std::string& key) {
  return std::get<size_t>(gpu::device_info().at(key));
}

// The simdgroup width: Metal's 32 on every device (issue 16; these tests
// read the device's subgroup size while simdgroups were the device's
// subgroups, 8 wide on lavapipe). test_simdgroups.cpp covers the emulation.
size_t subgroup_size() {
  return 32;
}

// Restores the device's float32 atomics when a test that forced the
// compare-and-swap path ends, even by a failed assertion.
class ForceFloatAtomics {
 public:
  explicit ForceFloatAtomics(bool use) { vulkan::Device::get().use_float32_atomic_add(use); }
  ~ForceFloatAtomics() { vulkan::Device::get().use_float32_atomic_add(true); }
};

// What f prints to std::cout.
std::string stdout_of(const std::function<void()>& f) {
  ::testing::internal::CaptureStdout();
  try {
    f();
  } catch (...) {
    ::testing::internal::GetCapturedStdout();
    throw;
  }
  return ::testing::internal::GetCapturedStdout();
}

// A float32 array of `shape` holding values(i).
array floats(const Shape& shape, const std::function<float(int)>& value) {
  std::vector<float> v(test_util::numel(shape));
  for (size_t i = 0; i < v.size(); ++i) v[i] = value(static_cast<int>(i));
  return array(v.begin(), shape, float32);
}

array ints(const Shape& shape, const std::function<int(int)>& value) {
  std::vector<int32_t> v(test_util::numel(shape));
  for (size_t i = 0; i < v.size(); ++i) v[i] = value(static_cast<int>(i));
  return array(v.begin(), shape, int32);
}

// The seeds' exp kernel (contiguous): the input indexed by the thread.
const char* kExpSource = R"(
  uint elem = thread_position_in_grid.x;
  T tmp = T(inp[elem]);
  out[elem] = float16_t(exp(tmp));
)";

// The seeds' strided exp kernel, float32 in and out.
const char* kStridedExpSource = R"(
  uint elem = thread_position_in_grid.x;
  uint loc = elem_to_loc(elem, inp_shape, inp_strides, inp_ndim);
  out[elem] = exp(inp[loc]);
)";

// ================================================================
// 1. The generated shader: layouts, dtypes, metadata, several buffers.
// ================================================================

TEST_F(CustomKernelTest, ExpElementwiseFloat16Contiguous) {
  auto kernel = fast::vulkan_kernel("myexp", {"inp"}, {"out"}, kExpSource);
  array a = astype(random::normal({4, 16}, float32, random::key(0), kCpu), float16, kCpu);
  auto outs =
      kernel({a}, {a.shape()}, {a.dtype()}, line_of(a.size()), {256, 1, 1}, {{"T", float32}});
  ASSERT_EQ(outs.size(), 1u);
  EXPECT_EQ(outs[0].shape(), a.shape());
  EXPECT_EQ(outs[0].dtype(), float16);
  gpu_test::expect_close(outs[0], exp(a, kCpu), 1e-3, 0, "exp kernel");
}

TEST_F(CustomKernelTest, ExpStridedSeedSliceReadsThroughElemToLoc) {
  // The seed: a = normal((4, 16)).astype(float16); a = a[::2].
  auto kernel = fast::vulkan_kernel("myexp_strided", {"inp"}, {"out"}, R"(
    uint elem = thread_position_in_grid.x;
    uint loc = elem_to_loc(elem, inp_shape, inp_strides, inp_ndim);
    T tmp = T(inp[loc]);
    out[elem] = float16_t(exp(tmp));
  )",
                                    "", /*ensure_row_contiguous=*/false);
  array base = astype(random::normal({4, 16}, float32, random::key(1), kCpu), float16, kCpu);
  array a = slice(base, {0, 0}, {4, 16}, {2, 1});
  eval(a);
  ASSERT_EQ(a.shape(), (Shape{2, 16}));
  ASSERT_FALSE(a.flags().row_contiguous);
  auto outs =
      kernel({a}, {a.shape()}, {a.dtype()}, line_of(a.size()), {256, 1, 1}, {{"T", float32}});
  gpu_test::expect_close(outs[0], exp(a, kCpu), 1e-3, 0, "exp of a[::2]");
}

// The strided kernel on every layout: views read in place (transposed,
// broadcast, offset) and views the kernel is given a copy of (negative
// steps, offsets off the binding alignment), through elem_to_loc's 32-bit
// and 64-bit overloads.
TEST_F(CustomKernelTest, StridedKernelReadsEveryLayout) {
  auto k32 = fast::vulkan_kernel("strided_exp", {"inp"}, {"out"}, kStridedExpSource, "", false);
  auto k64 = fast::vulkan_kernel("strided_exp64", {"inp"}, {"out"}, R"(
    int64_t elem = int64_t(thread_position_in_grid.x);
    int64_t loc = elem_to_loc(elem, inp_shape, inp_strides, inp_ndim);
    out[uint(elem)] = exp(inp[uint(loc)]);
  )",
                                 "", false);
  std::vector<std::pair<std::string, array>> cases;
  for (auto& l : test_util::layouts(float32, 7, 9, [](int i) { return (i % 13) * 0.25 - 1.5; })) {
    cases.emplace_back(l.name, l.a);
  }
  array base = floats({8, 10}, [](int i) { return std::sin(0.3f * i); });
  array flat = floats({70}, [](int i) { return std::cos(0.2f * i); });
  cases.emplace_back("slice reversed rows (ops)", slice(base, {7, 0}, {-9, 10}, {-1, 1}));
  cases.emplace_back("slice reversed columns step -3", slice(base, {0, 9}, {8, -11}, {1, -3}));
  // Reversed rows starting 7 x 64 floats in (1792 bytes: aligned for every
  // device), so that only the negative stride makes the copy needed.
  array wide = floats({8, 64}, [](int i) { return std::sin(0.01f * i); });
  cases.emplace_back("reversed rows, aligned offset", slice(wide, {7, 0}, {-9, 64}, {-1, 1}));
  cases.emplace_back("slice from element 1 (unaligned offset)", slice(flat, {1}, {70}));
  cases.emplace_back("2-D slice from element 1", slice(base, {0, 1}, {8, 10}));
  cases.emplace_back("slice from element 16", slice(flat, {16}, {70}));
  cases.emplace_back("transposed 3-D", transpose(reshape(flat, {2, 5, 7}), {2, 0, 1}));
  cases.emplace_back("broadcast 3-D",
                     broadcast_to(reshape(slice(flat, {0}, {5}), {5, 1}), {3, 5, 4}));
  for (auto& [what, a] : cases) {
    eval(a);
    array want = exp(a, kCpu);
    for (auto* k : {&k32, &k64}) {
      auto outs = (*k)({a}, {a.shape()}, {float32}, line_of(a.size()), {32, 1, 1});
      gpu_test::expect_close(outs[0], want, 1e-5, 1e-6, what + (k == &k32 ? " uint" : " int64"));
    }
  }
}

TEST_F(CustomKernelTest, EnsureRowContiguousCopiesTransposedInput) {
  // The kernel indexes inp[elem] directly: a transposed input must arrive as
  // a row-contiguous copy, in logical order.
  const char* source = R"(
    uint elem = thread_position_in_grid.x;
    out[elem] = exp(inp[elem]);
  )";
  auto kernel = fast::vulkan_kernel("direct_exp", {"inp"}, {"out"}, source);
  array base = floats({5, 7}, [](int i) { return 0.1f * i - 1.0f; });
  for (auto& [what, a] : std::vector<std::pair<std::string, array>>{
           {"transposed", transpose(base)},
           {"broadcast", broadcast_to(slice(base, {0, 0}, {1, 7}), {4, 7})},
           {"negative step", slice(base, {4, 0}, {-6, 7}, {-1, 2})},
           {"offset 1", slice(reshape(base, {35}), {1}, {35})}}) {
    auto outs = kernel({a}, {a.shape()}, {float32}, line_of(a.size()), {16, 1, 1});
    gpu_test::expect_close(outs[0], exp(a, kCpu), 1e-5, 1e-6, what);
  }
}

// The GLSL that loads element i of buffer `buf` of dtype dt into a value
// to convert, and the GLSL that converts value v into the storage of dt.
std::string load_expr(Dtype dt, const std::string& buf) {
  if (dt == bool_ || dt == uint8) return "uint(" + buf + "[i])";
  if (dt == float16) return "float(" + buf + "[i])";
  if (dt == bfloat16) return "to_float(" + buf + "[i])";
  return buf + "[i]";
}

std::string store_expr(Dtype dt, const std::string& v) {
  if (dt == bool_) return "uint8_t((" + v + ") != 0 ? 1 : 0)";
  if (dt == uint8) return "uint8_t(" + v + ")";
  if (dt == uint32) return "uint(" + v + ")";
  if (dt == int32) return "int(" + v + ")";
  if (dt == int64) return "int64_t(" + v + ")";
  if (dt == float16) return "float16_t(float(" + v + "))";
  if (dt == bfloat16) return "to_bfloat16(float(" + v + "))";
  return "float(" + v + ")";
}

// Every dtype as an input buffer and as an output buffer: one kernel per
// input dtype converts it into all eight, as astype does on the CPU. Unsigned
// outputs convert a non-negative copy of the input (converting negative
// values to unsigned ones is undefined in C++ and GLSL).
TEST_F(CustomKernelTest, EveryDtypeAsInputAndOutputConvertsAsAstype) {
  const std::vector<Dtype> dtypes = {bool_, uint8,   uint32,   int32,
                                     int64, float16, bfloat16, float32};
  std::vector<std::string> output_names;
  for (Dtype d : dtypes) output_names.push_back("o_" + std::string(dtype_name(d)));
  const Shape shape = {3, 37};
  for (Dtype in_dt : dtypes) {
    std::string source = "uint i = thread_position_in_grid.x;\n";
    for (size_t k = 0; k < dtypes.size(); ++k) {
      const std::string src = is_unsigned(dtypes[k]) ? "ax" : "x";
      source += output_names[k] + "[i] = " + store_expr(dtypes[k], load_expr(in_dt, src)) + ";\n";
    }
    auto kernel = fast::vulkan_kernel("convert_" + std::string(dtype_name(in_dt)), {"x", "ax"},
                                      output_names, source);
    const float lo = is_unsigned(in_dt) ? 0.0f : -100.0f;
    array x = gpu_test::test_values(shape, in_dt, 100 + static_cast<int>(in_dt.val), lo, 100.0f);
    array ax = (in_dt == bool_ || is_unsigned(in_dt)) ? x : abs(x, kCpu);
    eval(ax);
    auto outs = kernel({x, ax}, std::vector<Shape>(dtypes.size(), shape), dtypes, line_of(x.size()),
                       {64, 1, 1});
    ASSERT_EQ(outs.size(), dtypes.size());
    for (size_t k = 0; k < dtypes.size(); ++k) {
      const Dtype out_dt = dtypes[k];
      array want = astype(is_unsigned(out_dt) ? ax : x, out_dt, kCpu);
      // float16 conversions may round toward zero on some drivers; the rest is exact.
      const double rtol = out_dt == float16 ? 1e-3 : 0.0;
      gpu_test::expect_close(
          outs[k], want, rtol, 0,
          std::string(dtype_name(in_dt)) + " -> " + std::string(dtype_name(out_dt)));
    }
  }
}

TEST_F(CustomKernelTest, HalfAndBfloat16ConversionsOfSpecialValues) {
  // Infinities, NaN, signed zero, ties (rounded to even), the largest finite
  // values and what overflows them, converted by float16_t() and
  // to_bfloat16() and back by float() and to_float(), against astype.
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> special = {1.0f,           1.00390625f, 1.01171875f, 1.00048828125f,
                                      1.00146484375f, inf,         -inf,        std::nanf(""),
                                      -0.0f,          3.4e38f,     -3.3e38f,    65504.0f,
                                      65520.0f,       1e-8f,       -2.5e-39f,   6.1e-5f};
  array x(special.begin(), {static_cast<int>(special.size())}, float32);
  auto kernel =
      fast::vulkan_kernel("special", {"x", "h", "b"}, {"to_h", "to_b", "from_h", "from_b"},
                          R"(
    uint i = thread_position_in_grid.x;
    to_h[i] = float16_t(x[i]);
    to_b[i] = to_bfloat16(x[i]);
    from_h[i] = float(h[i]);
    from_b[i] = to_float(b[i]);
  )");
  array h = astype(x, float16, kCpu), b = astype(x, bfloat16, kCpu);
  auto outs = kernel({x, h, b}, std::vector<Shape>(4, x.shape()),
                     {float16, bfloat16, float32, float32}, line_of(x.size()), {16, 1, 1});
  gpu_test::expect_close(outs[0], h, 0, 0, "float32 -> float16");
  gpu_test::expect_close(outs[1], b, 0, 0, "float32 -> bfloat16");
  gpu_test::expect_close(outs[2], astype(h, float32, kCpu), 0, 0, "float16 -> float32");
  gpu_test::expect_close(outs[3], astype(b, float32, kCpu), 0, 0, "bfloat16 -> float32");
  // The sign of zero survives.
  EXPECT_TRUE(std::signbit(values(outs[2])[8]));
  EXPECT_TRUE(std::signbit(values(outs[3])[8]));
}

TEST_F(CustomKernelTest, WideIntegersKeepAllTheirBits) {
  // int64 beyond 32 bits and uint32 above 2^31 go through buffers intact.
  std::vector<int64_t> big = {(int64_t{1} << 40) + 3, -(int64_t{1} << 35) - 1,
                              int64_t{1} << 61,       -5,
                              INT64_MIN + 1,          INT64_MAX - 7};
  std::vector<uint32_t> wide = {4000000000u, 2147483648u, 7u, 4294967290u};
  array a(big.begin(), {static_cast<int>(big.size())}, int64);
  array b(wide.begin(), {static_cast<int>(wide.size())}, uint32);
  auto kernel = fast::vulkan_kernel("wide", {"a", "b"}, {"a2", "b2"}, R"(
    uint i = thread_position_in_grid.x;
    if (i < uint(a_shape[0])) a2[i] = a[i] / 2 - 1;
    if (i < uint(b_shape[0])) b2[i] = b[i] + 5u;
  )");
  auto outs = kernel({a, b}, {a.shape(), b.shape()}, {int64, uint32}, {8, 1, 1}, {8, 1, 1});
  auto got_a = values_as<int64_t>(outs[0]);
  auto got_b = values_as<uint32_t>(outs[1]);
  for (size_t i = 0; i < big.size(); ++i) EXPECT_EQ(got_a[i], big[i] / 2 - 1) << i;
  for (size_t i = 0; i < wide.size(); ++i) EXPECT_EQ(got_b[i], wide[i] + 5u) << i;
}

// NAME_ndim, NAME_shape and NAME_strides as the kernel sees them: the view's
// own strides with ensure_row_contiguous=false, the copy's with true.
TEST_F(CustomKernelTest, ShapeStridesAndNdimReachTheKernel) {
  const char* source = R"(
    meta[0] = int64_t(a_ndim);
    for (int d = 0; d < 3; ++d) { meta[1 + d] = a_shape[d]; meta[4 + d] = a_strides[d]; }
    meta[7] = c_ndim;
    for (int d = 0; d < 2; ++d) { meta[8 + d] = c_shape[d]; meta[10 + d] = c_strides[d]; }
    meta[12] = s_ndim;
    meta[13] = int64_t(s[0] * 2.0);
  )";
  array a = transpose(reshape(arange(24, kCpu), {2, 3, 4}), {2, 1, 0});  // (4, 3, 2), (1, 4, 12)
  array c = broadcast_to(reshape(arange(3, kCpu), {3, 1}), {3, 5});      // (3, 5), (1, 0)
  array s(21.0f);
  eval({a, c});
  ASSERT_EQ(a.strides(), (Strides{1, 4, 12}));
  ASSERT_EQ(c.strides(), (Strides{1, 0}));
  for (bool contiguous : {false, true}) {
    auto kernel = fast::vulkan_kernel(contiguous ? "meta_contiguous" : "meta_strided",
                                      {"a", "c", "s"}, {"meta"}, source, "", contiguous);
    auto outs = kernel({a, c, s}, {{14}}, {int64}, {1, 1, 1}, {1, 1, 1});
    std::vector<int64_t> want =
        contiguous ? std::vector<int64_t>{3, 4, 3, 2, 6, 2, 1, 2, 3, 5, 5, 1, 0, 42}
                   : std::vector<int64_t>{3, 4, 3, 2, 1, 4, 12, 2, 3, 5, 1, 0, 0, 42};
    EXPECT_EQ(values_as<int64_t>(outs[0]), want) << "ensure_row_contiguous=" << contiguous;
  }
}

// Metadata up to 128 bytes is a push-constant block; more (here 24 + 4 x (32
// + 16) bytes) is a buffer at binding 0. Both must deliver the same values.
TEST_F(CustomKernelTest, MetadataInPushConstantsOrPastThemInABuffer) {
  const char* source = R"(
    for (int d = 0; d < 4; ++d) {
      meta[d] = a_shape[d];        meta[4 + d] = a_strides[d];
      meta[8 + d] = b_shape[d];    meta[12 + d] = b_strides[d];
      meta[16 + d] = c_shape[d];   meta[20 + d] = c_strides[d];
      meta[24 + d] = e_shape[d];   meta[28 + d] = e_strides[d];
    }
  )";
  array a = zeros({2, 3, 4, 5}, float32, kGpu);
  array b = transpose(zeros({2, 3, 4, 5}, float32, kGpu), {3, 2, 1, 0});
  array c = broadcast_to(zeros({1, 3, 1, 5}, float32, kGpu), {4, 3, 2, 5});
  array e = zeros({7, 1, 2, 1}, float32, kGpu);
  eval({a, b, c, e});
  std::vector<int64_t> want;
  for (const array& x : {a, b, c, e}) {
    want.insert(want.end(), x.shape().begin(), x.shape().end());
    want.insert(want.end(), x.strides().begin(), x.strides().end());
  }
  std::vector<int64_t> got(32);
  auto big = fast::vulkan_kernel("meta_big", {"a", "b", "c", "e"}, {"meta"}, source, "", false);
  std::string glsl = stdout_of([&] {
    got = values_as<int64_t>(
        big({a, b, c, e}, {{32}}, {int64}, {1, 1, 1}, {1, 1, 1}, {}, std::nullopt, true)[0]);
  });
  EXPECT_CONTAINS(glsl, "layout(set = 0, binding = 0, std430) readonly buffer mlx_metadata");
  EXPECT_EQ(got, want);

  // Two inputs: 24 + 2 x 48 = 120 bytes, push constants.
  auto small = fast::vulkan_kernel("meta_small", {"a", "b"}, {"meta"}, R"(
    for (int d = 0; d < 4; ++d) {
      meta[d] = a_shape[d];        meta[4 + d] = a_strides[d];
      meta[8 + d] = b_shape[d];    meta[12 + d] = b_strides[d];
    }
  )",
                                   "", false);
  glsl = stdout_of([&] {
    got = values_as<int64_t>(
        small({a, b}, {{16}}, {int64}, {1, 1, 1}, {1, 1, 1}, {}, std::nullopt, true)[0]);
  });
  EXPECT_CONTAINS(glsl, "layout(push_constant, std430) uniform mlx_metadata");
  EXPECT_EQ(got, std::vector<int64_t>(want.begin(), want.begin() + 16));
}

TEST_F(CustomKernelTest, MetadataIsGeneratedOnlyForNamesTheSourceUses) {
  auto kernel = fast::vulkan_kernel("meta_used", {"a", "b"}, {"out"}, R"(
    uint i = thread_position_in_grid.x;
    out[i] = a[i] * float(b_ndim) + float(b_shape[0]);
  )");
  array a = floats({6}, [](int i) { return float(i); });
  array b = floats({6, 2}, [](int) { return 0.0f; });
  std::vector<array> outs;
  std::string glsl = stdout_of([&] {
    outs = kernel({a, b}, {{6}}, {float32}, {6, 1, 1}, {8, 1, 1}, {}, std::nullopt, true);
  });
  EXPECT_CONTAINS(glsl, "b_shape");
  EXPECT_CONTAINS(glsl, "b_ndim");
  EXPECT_NOT_CONTAINS(glsl, "b_strides");
  EXPECT_NOT_CONTAINS(glsl, "a_shape");
  EXPECT_NOT_CONTAINS(glsl, "a_strides");
  EXPECT_NOT_CONTAINS(glsl, "a_ndim");
  test_util::expect_values(outs[0], {6, 8, 10, 12, 14, 16}, 0, "a * 2 + 6");
}

TEST_F(CustomKernelTest, SeveralInputsAndOutputsOfDifferentShapesAndDtypes) {
  auto kernel = fast::vulkan_kernel("multi", {"a", "b", "w"}, {"sum", "prod_t", "total"}, R"(
    uint i = thread_position_in_grid.x;       // over a's 4 x 5 elements
    uint r = i / 5u, c = i % 5u;
    sum[i] = a[i] + float(b[i]);
    prod_t[c * 4u + r] = b[i] * int(w[0]);    // transposed, int32
    if (i == 0u) {
      float t = 0.0;
      for (int k = 0; k < 20; ++k) t += a[k];
      total[0] = t;
      total[1] = w[0];
    }
  )");
  array a = random::normal({4, 5}, float32, random::key(5), kCpu);
  array b = ints({4, 5}, [](int i) { return i * 3 - 20; });
  array w(3.0f);
  auto outs =
      kernel({a, b, w}, {{4, 5}, {5, 4}, {2}}, {float32, int32, float32}, {20, 1, 1}, {32, 1, 1});
  ASSERT_EQ(outs.size(), 3u);
  EXPECT_EQ(outs[1].shape(), (Shape{5, 4}));
  EXPECT_EQ(outs[1].dtype(), int32);
  gpu_test::expect_close(outs[0], add(a, astype(b, float32, kCpu), kCpu), 1e-6, 0, "sum");
  gpu_test::expect_close(outs[1], transpose(multiply(b, array(3), kCpu), kCpu), 0, 0, "prod_t");
  auto av = values(a);
  double t = 0;
  for (double v : av) t += v;
  test_util::expect_values(outs[2], {t, 3.0}, 1e-5, "total");
}

TEST_F(CustomKernelTest, EmptyAndScalarOutputsAndAnEmptyInput) {
  auto kernel = fast::vulkan_kernel("shapes", {"inp"}, {"out", "empty", "scalar"}, R"(
    uint i = thread_position_in_grid.x;
    if (i < uint(inp_shape[0])) out[i] = inp[i] + 1.0;
    if (i == 0u) scalar[0] = 5.0;
  )");
  array x = floats({8}, [](int i) { return float(i); });
  auto outs = kernel({x}, {{8}, {0}, {}}, {float32, float32, float32}, {8, 1, 1}, {8, 1, 1});
  EXPECT_EQ(outs[1].shape(), (Shape{0}));
  EXPECT_EQ(outs[2].shape(), (Shape{}));
  test_util::expect_values(outs[0], {1, 2, 3, 4, 5, 6, 7, 8}, 0, "out");
  test_util::expect_values(outs[2], {5}, 0, "scalar");
  EXPECT_EQ(values(outs[1]).size(), 0u);
  array none = floats({0}, [](int) { return 0.0f; });
  auto from_empty =
      kernel({none}, {{8}, {0}, {}}, {float32, float32, float32}, {8, 1, 1}, {8, 1, 1}, {}, 3.0f);
  test_util::expect_values(from_empty[0], std::vector<double>(8, 3.0), 0, "nothing read");
  test_util::expect_values(from_empty[2], {5}, 0, "scalar from an empty input");
}

// Kernels and built-in ops in one graph, evaluated once: a kernel reads a
// built-in op's result and a transposed view of another kernel's output.
TEST_F(CustomKernelTest, KernelsAndBuiltInOpsInOneGraph) {
  auto twice = fast::vulkan_kernel("twice", {"inp"}, {"out"},
                                   "uint i = thread_position_in_grid.x;\nout[i] = 2.0 * inp[i];\n");
  auto combine = fast::vulkan_kernel("combine", {"a", "b"}, {"out"}, R"(
    uint i = thread_position_in_grid.x;
    out[i] = a[i] + b[elem_to_loc(i, b_shape, b_strides, b_ndim)];
  )",
                                     "", false);
  array x = random::normal({6, 5}, float32, random::key(30), kCpu);
  array t = twice({x}, {x.shape()}, {float32}, line_of(x.size()), {32, 1, 1})[0];
  array e = exp(t);  // built-in op on a kernel's output
  array u = twice({e}, {e.shape()}, {float32}, line_of(e.size()), {32, 1, 1})[0];
  array tt = transpose(reshape(t, {5, 6}));  // a view of a kernel's output
  array c = combine({u, tt}, {{6, 5}}, {float32}, line_of(30), {32, 1, 1})[0];
  array total = sum(c);
  eval({total, c});
  array tc = multiply(x, array(2.0f), kCpu);
  array want = add(multiply(exp(tc, kCpu), array(2.0f), kCpu),
                   transpose(reshape(tc, {5, 6}, kCpu), kCpu), kCpu);
  gpu_test::expect_close(c, want, 1e-5, 1e-6, "chained kernels");
  gpu_test::expect_close(total, sum(want, kCpu), 1e-5, 1e-4, "sum of the chain");
}

TEST_F(CustomKernelTest, Float16ArithmeticNeedsTheDeviceFeature) {
  // T = float16 computes exp in float16_t: fine where the device has
  // shaderFloat16, else a clear error before any dispatch.
  auto kernel = fast::vulkan_kernel("exp_half", {"inp"}, {"out"}, kExpSource);
  array a = astype(floats({32}, [](int i) { return 0.1f * i - 1.5f; }), float16, kCpu);
  auto call = [&] {
    return kernel({a}, {a.shape()}, {float16}, {32, 1, 1}, {32, 1, 1}, {{"T", float16}});
  };
  if (device_value("float16") != 0) {
    gpu_test::expect_close(call()[0], exp(a, kCpu), 4e-3, 1e-3, "exp in float16");
  } else {
    EXPECT_CONTAINS(message_of<std::runtime_error>([&] { call(); }), "computes in float16_t");
  }
}

// ================================================================
// 2. Thread attributes.
// ================================================================

// A 3-D grid that is a multiple of the threadgroup in no dimension: every
// thread writes its attributes at its place in the dispatch rounded up to
// whole threadgroups; the places past the grid keep init_value.
TEST_F(CustomKernelTest, ThreadAttributesOfA3DGridWithPartialThreadgroups) {
  const int GX = 5, GY = 6, GZ = 3, TX = 2, TY = 4, TZ = 2;
  const int NX = 3, NY = 2, NZ = 2;  // threadgroups per grid
  const int PX = NX * TX, PY = NY * TY, PZ = NZ * TZ;
  const std::vector<std::string> names = {"pos", "group", "local", "index", "tpg", "tptg", "tgpg"};
  auto kernel = fast::vulkan_kernel("attributes", {}, names, R"(
    uvec3 t = thread_position_in_grid;
    uint p = (t.z * uint(PY) + t.y) * uint(PX) + t.x;
    PUT3(pos, t);
    PUT3(group, threadgroup_position_in_grid);
    PUT3(local, thread_position_in_threadgroup);
    index[p] = int(thread_index_in_threadgroup);
    PUT3(tpg, threads_per_grid);
    PUT3(tptg, threads_per_threadgroup);
    PUT3(tgpg, threadgroups_per_grid);
  )",
                                    R"(
#define PUT3(buf, v) buf[3u * p] = int(v.x); buf[3u * p + 1u] = int(v.y); buf[3u * p + 2u] = int(v.z)
)");
  const Shape s3 = {PZ, PY, PX, 3}, s1 = {PZ, PY, PX};
  auto outs = kernel({}, {s3, s3, s3, s1, s3, s3, s3}, std::vector<Dtype>(7, int32), {GX, GY, GZ},
                     {TX, TY, TZ}, {{"PX", PX}, {"PY", PY}}, -1.0f);
  std::vector<std::vector<int32_t>> got;
  for (auto& o : outs) got.push_back(values_as<int32_t>(o));
  int misses = 0;
  for (int z = 0; z < PZ; ++z) {
    for (int y = 0; y < PY; ++y) {
      for (int x = 0; x < PX; ++x) {
        const int p = (z * PY + y) * PX + x;
        const bool in = x < GX && y < GY && z < GZ;
        auto want3 = [&](int a, int b, int c) {
          return in ? std::vector<int>{a, b, c} : std::vector<int>{-1, -1, -1};
        };
        const std::vector<std::vector<int>> want = {
            want3(x, y, z),
            want3(x / TX, y / TY, z / TZ),
            want3(x % TX, y % TY, z % TZ),
            {in ? x % TX + TX * (y % TY + TY * (z % TZ)) : -1},
            want3(GX, GY, GZ),
            want3(TX, TY, TZ),
            want3(NX, NY, NZ)};
        for (size_t k = 0; k < names.size(); ++k) {
          for (size_t c = 0; c < want[k].size(); ++c) {
            const int g = got[k][p * want[k].size() + c];
            if (g != want[k][c] && misses++ < 10) {
              ADD_FAILURE() << names[k] << "[" << c << "] of thread (" << x << ", " << y << ", "
                            << z << ") is " << g << ", expected " << want[k][c];
            }
          }
        }
      }
    }
  }
  EXPECT_EQ(misses, 0);
}

// The simdgroup attributes of every thread agree with one another and with
// simd_sum: threads_per_simdgroup is the device's subgroup size, and the
// threads reporting one (threadgroup, simdgroup) pair are distinct lanes, as
// many as simd_sum(1) counts there. Threadgroups whose x is a multiple of
// the subgroup size (lavapipe forms subgroups along x: a threadgroup of x 4
// makes subgroups of 4 whose gl_SubgroupID still counts by 8), and a 1-D one
// whose last simdgroup is partial.
TEST_F(CustomKernelTest, SimdgroupAttributesAreConsistent) {
  const int n = static_cast<int>(subgroup_size());
  ASSERT_GT(n, 0);
  auto kernel = fast::vulkan_kernel("simd_attributes", {},
                                    {"lane", "sg", "width", "count", "members", "tid", "wg"}, R"(
    uvec3 t = thread_position_in_grid;
    uvec3 grid = threads_per_grid;
    uint p = (t.z * grid.y + t.y) * grid.x + t.x;
    lane[p] = int(thread_index_in_simdgroup);
    sg[p] = int(simdgroup_index_in_threadgroup);
    width[p] = int(threads_per_simdgroup);
    count[p] = int(simdgroups_per_threadgroup);
    members[p] = int(simd_sum(1u));
    tid[p] = int(thread_index_in_threadgroup);
    uvec3 g = threadgroup_position_in_grid;
    uvec3 groups = threadgroups_per_grid;
    wg[p] = int((g.z * groups.y + g.y) * groups.x + g.x);
  )");
  struct Case {
    std::tuple<int, int, int> grid, tg;
  };
  const int partial = n + n / 2;
  for (const auto& c :
       {Case{{2 * n, 2, 4}, {n, 2, 2}}, Case{{3 * partial, 1, 1}, {partial, 1, 1}}}) {
    const auto [gx, gy, gz] = c.grid;
    const auto [tx, ty, tz] = c.tg;
    const int per_group = tx * ty * tz, groups = gx * gy * gz / per_group;
    const int simdgroups = (per_group + n - 1) / n;
    auto outs =
        kernel({}, std::vector<Shape>(7, {gz, gy, gx}), std::vector<Dtype>(7, int32), c.grid, c.tg);
    std::vector<std::vector<int32_t>> v;
    for (auto& o : outs) v.push_back(values_as<int32_t>(o));
    const auto &lane = v[0], &sg = v[1], &width = v[2], &count = v[3], &members = v[4], &tid = v[5],
               &wg = v[6];
    std::map<std::pair<int, int>, std::set<int>> lanes;  // (threadgroup, simdgroup) -> lanes
    std::map<int, std::set<int>> tids;
    int misses = 0;
    for (size_t p = 0; p < lane.size() && misses < 10; ++p) {
      // Counted from the sizes: lavapipe's gl_NumSubgroups leaves a partial
      // last subgroup out.
      const bool count_ok = count[p] == simdgroups;
      const bool ok = width[p] == n && count_ok && lane[p] >= 0 && lane[p] < n && sg[p] >= 0 &&
                      sg[p] < simdgroups && wg[p] >= 0 && wg[p] < groups &&
                      lanes[std::make_pair(wg[p], sg[p])].insert(lane[p]).second &&
                      tids[wg[p]].insert(tid[p]).second;
      if (!ok) {
        ++misses;
        ADD_FAILURE() << "thread " << p << " of threadgroup (" << tx << ", " << ty << ", " << tz
                      << "): threadgroup " << wg[p] << ", simdgroup " << sg[p] << " of " << count[p]
                      << ", lane " << lane[p] << " of " << width[p]
                      << ", thread_index_in_threadgroup " << tid[p] << " (a repeat?)";
      }
    }
    ASSERT_EQ(misses, 0);
    EXPECT_EQ(tids.size(), static_cast<size_t>(groups));
    for (auto& [g, t] : tids) {
      EXPECT_EQ(t.size(), static_cast<size_t>(per_group)) << "threadgroup " << g;
      EXPECT_EQ(*t.rbegin(), per_group - 1) << "threadgroup " << g;
    }
    for (size_t p = 0; p < lane.size(); ++p) {
      const size_t reporting = lanes[std::make_pair(wg[p], sg[p])].size();
      EXPECT_EQ(static_cast<size_t>(members[p]), reporting)
          << "simd_sum(1) of thread " << p << " against the threads of simdgroup " << sg[p];
    }
    EXPECT_EQ(lanes.size(), static_cast<size_t>(groups * simdgroups));
  }
}

// ================================================================
// 3. Grids beyond the device's workgroup counts are folded.
// ================================================================

// 65537 threadgroups of 256 in x, more than 65535 can be dispatched: every
// thread runs once, with the attributes of its place in the unfolded grid.
TEST_F(CustomKernelTest, OneDimensionalGridAbove65535Threadgroups) {
  const int groups = 65537, grid = 256 * (groups - 1) + 7;
  auto kernel = fast::vulkan_kernel("fold_x", {}, {"count", "hits"}, R"(
    uint g = thread_position_in_grid.x;
    bool ok = g / 256u == threadgroup_position_in_grid.x &&
              g % 256u == thread_position_in_threadgroup.x &&
              threadgroup_position_in_grid.yz == uvec2(0) &&
              threads_per_grid == uvec3(GRID, 1, 1) &&
              threadgroups_per_grid == uvec3(GROUPS, 1, 1);
    uint n = simd_sum(1u);
    uint bad = simd_sum(ok ? 0u : 1u);
    if (subgroupElect()) {
      atomicAdd(count[0], int(n));
      atomicAdd(count[1], int(bad));
      atomicAdd(hits[threadgroup_position_in_grid.x], int(n));
    }
    if (g == uint(GRID) - 1u) atomicAdd(count[2], int(g));
  )",
                                    "", true, /*atomic_outputs=*/true,
                                    // Counts per subgroup (subgroupElect): the device's own.
                                    /*native_simdgroups=*/true);
  auto outs = kernel({}, {{3}, {groups}}, {int32, int32}, {grid, 1, 1}, {256, 1, 1},
                     {{"GRID", grid}, {"GROUPS", groups}}, 0.0f);
  auto count = values_as<int32_t>(outs[0]);
  EXPECT_EQ(count[0], grid) << "threads that ran";
  EXPECT_EQ(count[1], 0) << "threads whose attributes disagree with their place";
  EXPECT_EQ(count[2], grid - 1) << "the last thread";
  auto hits = values_as<int32_t>(outs[1]);
  int wrong = 0;
  for (int g = 0; g < groups; ++g) {
    const int want = g == groups - 1 ? 7 : 256;
    if (hits[g] != want && wrong++ < 5) {
      ADD_FAILURE() << "threadgroup " << g << " ran " << hits[g] << " threads, expected " << want;
    }
  }
}

// Grids folded because y or z needs more than 65535 threadgroups (also with
// partial threadgroups in x): each thread counts itself once at its place.
TEST_F(CustomKernelTest, GridsFoldedInYAndZ) {
  const auto max_y = device_value("max_workgroup_count_y");
  const auto max_z = device_value("max_workgroup_count_z");
  auto kernel = fast::vulkan_kernel("fold_yz", {}, {"cnt"}, R"(
    uvec3 t = thread_position_in_grid;
    uvec3 grid = threads_per_grid;
    uvec3 tg = threads_per_threadgroup;
    uint p = (t.z * grid.y + t.y) * grid.x + t.x;
    bool ok = threadgroup_position_in_grid == t / tg && thread_position_in_threadgroup == t % tg &&
              threadgroups_per_grid == (grid + tg - 1u) / tg;
    atomicAdd(cnt[p], ok ? 1 : 1000);
  )",
                                    "", true, true);
  struct Case {
    std::tuple<int, int, int> grid, tg;
  };
  const int big_y = static_cast<int>(std::min<size_t>(max_y, 65535)) + 3;
  const int big_z = static_cast<int>(std::min<size_t>(max_z, 65535)) + 2;
  for (const auto& c : {Case{{4, big_y, 1}, {3, 1, 1}}, Case{{2, 3, big_z}, {1, 2, 1}}}) {
    const auto [gx, gy, gz] = c.grid;
    auto outs = kernel({}, {{gz, gy, gx}}, {int32}, c.grid, c.tg, {}, 0.0f);
    auto cnt = values_as<int32_t>(outs[0]);
    size_t wrong = 0, first = 0;
    for (size_t i = 0; i < cnt.size(); ++i) {
      if (cnt[i] != 1 && wrong++ == 0) first = i;
    }
    EXPECT_EQ(wrong, 0u) << "grid (" << gx << ", " << gy << ", " << gz << "): element " << first
                         << " is " << cnt[first];
  }
}

// ================================================================
// 4. Helpers: simd_*, ceildiv, threadgroup_barrier with shared memory.
// ================================================================

TEST_F(CustomKernelTest, SimdHelpersMatchAPerSimdgroupReference) {
  const int n = static_cast<int>(subgroup_size());
  const int tg = std::max(64, n);
  if (tg % n != 0) GTEST_SKIP() << "subgroup size " << n << " does not divide " << tg;
  const int size = 2 * tg;
  const std::vector<std::string> names = {"lane", "sg",   "sum",  "mx", "mn",
                                          "pre",  "shuf", "down", "up", "xr"};
  auto kernel = fast::vulkan_kernel("simd_helpers", {"x"}, names, R"(
    uint i = thread_position_in_grid.x;
    float v = x[i];
    uint l = thread_index_in_simdgroup;
    uint n = threads_per_simdgroup;
    lane[i] = float(l);
    sg[i] = float(simdgroup_index_in_threadgroup);
    sum[i] = simd_sum(v);
    mx[i] = simd_max(v);
    mn[i] = simd_min(v);
    pre[i] = simd_prefix_exclusive_sum(v);
    shuf[i] = simd_shuffle(v, (l + 3u) % n);
    float d = simd_shuffle_down(v, 1u);
    if (l + 1u < n) down[i] = d;
    float u = simd_shuffle_up(v, 2u);
    if (l >= 2u) up[i] = u;
    xr[i] = simd_shuffle_xor(v, 1u);
  )");
  array x = floats({size}, [](int i) { return float((i * 37 + 11) % 61 - 30); });
  const float kUnset = -1000.0f;
  auto outs =
      kernel({x}, std::vector<Shape>(names.size(), {size}),
             std::vector<Dtype>(names.size(), float32), {size, 1, 1}, {tg, 1, 1}, {}, kUnset);
  std::vector<std::vector<double>> got;
  for (auto& o : outs) got.push_back(values(o));
  auto xv = values(x);
  // Threads of each simdgroup by lane, from the kernel's own report.
  std::map<std::pair<int, int>, std::map<int, int>> members;  // (threadgroup, sg) -> lane -> i
  for (int i = 0; i < size; ++i) {
    const int l = static_cast<int>(got[0][i]), s = static_cast<int>(got[1][i]);
    ASSERT_TRUE(l >= 0 && l < n) << i;
    const bool fresh = members[std::make_pair(i / tg, s)].emplace(l, i).second;
    ASSERT_TRUE(fresh) << "lane " << l << " twice";
  }
  for (auto& [key, lanes] : members) ASSERT_EQ(lanes.size(), static_cast<size_t>(n));
  int misses = 0;
  auto check = [&](int k, int i, double want) {
    if (got[k][i] != want && misses++ < 10) {
      ADD_FAILURE() << names[k] << " at thread " << i << " is " << got[k][i] << ", expected "
                    << want;
    }
  };
  for (auto& [key, lanes] : members) {
    double sum = 0, mx = -1e9, mn = 1e9;
    for (auto& [l, i] : lanes) sum += xv[i], mx = std::max(mx, xv[i]), mn = std::min(mn, xv[i]);
    double prefix = 0;
    for (auto& [l, i] : lanes) {
      check(2, i, sum);
      check(3, i, mx);
      check(4, i, mn);
      check(5, i, prefix);
      prefix += xv[i];
      check(6, i, xv[lanes.at((l + 3) % n)]);
      check(7, i, l + 1 < n ? xv[lanes.at(l + 1)] : kUnset);
      check(8, i, l >= 2 ? xv[lanes.at(l - 2)] : kUnset);
      check(9, i, xv[lanes.at(l ^ 1)]);
    }
  }
  EXPECT_EQ(misses, 0);
}

TEST_F(CustomKernelTest, CeildivForIntAndUint) {
  const int n = 40;
  auto outs = fast::vulkan_kernel("ceildiv", {}, {"out", "pad"}, R"(
    uint i = thread_position_in_grid.x;
    out[2u * i] = ceildiv(int(i), 3);
    out[2u * i + 1u] = int(ceildiv(i + 1u, 4u));
    // The seed's padding of C to whole simdgroups.
    int C = int(i) + 1;
    int C_padded = ceildiv(C, int(threads_per_simdgroup)) * int(threads_per_simdgroup);
    pad[i] = C_padded;
  )")({}, {{2 * n}, {n}}, {int32, int32}, {n, 1, 1}, {16, 1, 1});
  auto got = values_as<int32_t>(outs[0]);
  auto pad = values_as<int32_t>(outs[1]);
  const int w = static_cast<int>(subgroup_size());
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(got[2 * i], (i + 2) / 3) << i;
    EXPECT_EQ(got[2 * i + 1], (i + 4) / 4) << i;
    EXPECT_EQ(pad[i], (i + w) / w * w) << i;
  }
}

// A `shared` array declared in the header, filled, then read after
// threadgroup_barrier (MLX's spelling with mem_flags) by other threads: a
// reversal within each threadgroup and a tree sum over it.
TEST_F(CustomKernelTest, ThreadgroupBarrierWithSharedArrays) {
  auto kernel = fast::vulkan_kernel("barrier", {"x"}, {"rev", "sums"}, R"(
    uint t = thread_index_in_threadgroup;
    uint i = thread_position_in_grid.x;
    tile[t] = x[i];
    acc[t] = x[i];
    threadgroup_barrier(mem_flags::mem_threadgroup);
    rev[i] = tile[63u - t];
    for (uint s = 32u; s > 0u; s >>= 1) {
      if (t < s) acc[t] += acc[t + s];
      threadgroup_barrier(mem_flags::mem_threadgroup);
    }
    if (t == 0u) sums[threadgroup_position_in_grid.x] = acc[0];
  )",
                                    R"(
shared float tile[64];
shared float acc[64];
)");
  const int groups = 5;
  array x = floats({groups * 64}, [](int i) { return float((i * 13) % 29 - 14); });
  auto outs =
      kernel({x}, {{groups * 64}, {groups}}, {float32, float32}, {groups * 64, 1, 1}, {64, 1, 1});
  auto xv = values(x);
  std::vector<double> rev(xv.size()), sums(groups, 0.0);
  for (int i = 0; i < groups * 64; ++i) {
    rev[i] = xv[(i / 64) * 64 + 63 - i % 64];
    sums[i / 64] += xv[i];
  }
  test_util::expect_values(outs[0], rev, 0, "reversed threadgroups");
  test_util::expect_values(outs[1], sums, 0, "threadgroup sums");
}

TEST_F(CustomKernelTest, ThreadgroupBarrierInAFoldedGrid) {
  // 65537 threadgroups of 8: folded, and the workgroups the fold adds past
  // the grid return as a whole, before the barrier.
  const int groups = 65537, size = 8 * groups;
  auto kernel = fast::vulkan_kernel("barrier_folded", {}, {"rev"}, R"(
    uint t = thread_index_in_threadgroup;
    tile[t] = int(thread_position_in_grid.x);
    threadgroup_barrier(mem_flags::mem_threadgroup);
    rev[thread_position_in_grid.x] = tile[7u - t];
  )",
                                    "shared int tile[8];\n");
  auto rev = values_as<int32_t>(kernel({}, {{size}}, {int32}, {size, 1, 1}, {8, 1, 1})[0]);
  int wrong = 0;
  for (int i = 0; i < size; ++i) {
    const int want = i / 8 * 8 + 7 - i % 8;
    if (rev[i] != want && wrong++ < 5) ADD_FAILURE() << i << ": " << rev[i] << " != " << want;
  }
}

// ================================================================
// 5. Template arguments.
// ================================================================

TEST_F(CustomKernelTest, TemplateArgumentsAreCompileTimeDefinitions) {
  ScopedEnv no_disk("MLX_LITE_KERNEL_CACHE", "off");
  auto kernel = fast::vulkan_kernel("templated", {"inp"}, {"out"}, R"(
    uint i = thread_position_in_grid.x;
    T v = T(inp[i]);
    out[i] = float(v * T(SCALE) + (ADD_ONE ? T(1) : T(0)));
  )");
  array x = floats({33}, [](int i) { return 0.75f * i - 9.3f; });
  auto xv = values(x);
  auto run = [&](Dtype t, int scale, bool add_one) {
    return kernel({x}, {x.shape()}, {float32}, line_of(x.size()), {32, 1, 1},
                  {{"T", t}, {"SCALE", scale}, {"ADD_ONE", add_one}})[0];
  };
  auto want = [&](bool integer, int scale, bool add_one) {
    std::vector<double> w;
    for (double v : xv) {
      const double t = integer ? std::trunc(static_cast<float>(v)) : static_cast<float>(v);
      w.push_back(static_cast<float>(t * scale + (add_one ? 1 : 0)));
    }
    return w;
  };
  CacheDelta delta;
  test_util::expect_values(run(float32, 3, true), want(false, 3, true), 1e-6, "float32 3 true");
  EXPECT_EQ(delta.compiled(), 1u);
  test_util::expect_values(run(float32, 3, true), want(false, 3, true), 1e-6, "again");
  EXPECT_EQ(delta.compiled(), 1u) << "the same template arguments compile nothing";
  test_util::expect_values(run(float32, 3, false), want(false, 3, false), 1e-6, "bool false");
  EXPECT_EQ(delta.compiled(), 2u) << "a different bool is a different kernel";
  test_util::expect_values(run(float32, -4, true), want(false, -4, true), 1e-6, "int -4");
  EXPECT_EQ(delta.compiled(), 3u) << "a different int is a different kernel";
  test_util::expect_values(run(int32, 3, true), want(true, 3, true), 0, "T = int32");
  EXPECT_EQ(delta.compiled(), 4u) << "a different dtype is a different kernel";
  // Another kernel object with the same source finds the compiled kernels.
  auto same = fast::vulkan_kernel("templated", {"inp"}, {"out"}, R"(
    uint i = thread_position_in_grid.x;
    T v = T(inp[i]);
    out[i] = float(v * T(SCALE) + (ADD_ONE ? T(1) : T(0)));
  )");
  auto o = same({x}, {x.shape()}, {float32}, line_of(x.size()), {32, 1, 1},
                {{"T", int32}, {"SCALE", 3}, {"ADD_ONE", true}});
  test_util::expect_values(o[0], want(true, 3, true), 0, "same source, new object");
  EXPECT_EQ(delta.compiled(), 4u);
  EXPECT_EQ(delta.memory_hits(), 1u);
}

TEST_F(CustomKernelTest, DtypeTemplateArgumentsNameTheirGlslType) {
  // uint32 -> uint (wraps below zero), float16 -> float16_t, bfloat16 ->
  // float, int64 -> int64_t: checked through values each type alone gives.
  auto kernel = fast::vulkan_kernel("dtype_names", {}, {"out"}, R"(
    U u = U(0) - U(1);                // 4294967295 only for a 32-bit unsigned type
    out[0] = float(u == 4294967295u);
    W w = W(1) << 40;                 // needs 64 bits
    out[1] = float(w == (int64_t(1) << 40));
    B b = B(1.0) / B(3.0);            // bfloat16 computes in float
    out[2] = float(b);
    H h = H(2049.0);                  // float16_t rounds 2049 to 2048
    out[3] = float(h);
    out[4] = float(F);                // bool true
  )");
  auto outs = kernel({}, {{5}}, {float32}, {1, 1, 1}, {1, 1, 1},
                     {{"U", uint32}, {"W", int64}, {"B", bfloat16}, {"H", float16}, {"F", true}});
  test_util::expect_values(outs[0], {1, 1, 1.0f / 3.0f, 2048, 1}, 1e-7, "types");
}

// ================================================================
// 6. init_value and atomic outputs.
// ================================================================

TEST_F(CustomKernelTest, InitValueFillsEveryOutputBeforeTheKernel) {
  // The kernel writes the even elements of the first two outputs only and
  // nothing into the others.
  const std::vector<Dtype> dtypes = {float32, int32, float16, bfloat16, uint8};
  auto kernel = fast::vulkan_kernel("init", {}, {"a", "b", "c", "d", "e"}, R"(
    uint i = thread_position_in_grid.x;
    if (i % 2u == 0u) { a[i] = -float(i); b[i] = -int(i); }
  )");
  const int n = 37;
  auto outs = kernel({}, std::vector<Shape>(5, {n}), dtypes, {n, 1, 1}, {16, 1, 1}, {}, 7.5f);
  std::vector<double> a, b;
  for (int i = 0; i < n; ++i) {
    a.push_back(i % 2 == 0 ? -i : 7.5);
    b.push_back(i % 2 == 0 ? -i : 7);  // 7.5 as int32
  }
  test_util::expect_values(outs[0], a, 0, "float32");
  test_util::expect_values(outs[1], b, 0, "int32");
  test_util::expect_values(outs[2], std::vector<double>(n, 7.5), 0, "float16");
  test_util::expect_values(outs[3], std::vector<double>(n, 7.5), 0, "bfloat16");
  test_util::expect_values(outs[4], std::vector<double>(n, 7), 0, "uint8");
  // Values each dtype holds exactly are written by a transfer fill (odd byte
  // counts rounded up to words), others converted as astype does.
  auto untouched = fast::vulkan_kernel("untouched", {}, {"a", "b", "c", "d", "e", "f"}, "");
  const std::vector<Dtype> more = {int32, uint8, uint32, bool_, int64, int64};
  for (float value : {3.0f, 0.0f, -1.0f}) {
    auto filled = untouched({}, std::vector<Shape>(6, {n}), more, {1, 1, 1}, {1, 1, 1}, {}, value);
    for (size_t k = 0; k < more.size(); ++k) {
      double want = more[k] == bool_ ? (value != 0) : value;
      if (value < 0 && (more[k] == uint8 || more[k] == uint32)) {
        want = test_util::values(astype(array(value), more[k], kCpu))[0];
      }
      test_util::expect_values(filled[k], std::vector<double>(n, want), 0,
                               fmt::format("{} filled with {}", dtype_name(more[k]), value));
    }
  }
}

// A histogram: many threads add into the same few bins, with GLSL's
// atomicAdd and MLX's atomic_fetch_add_explicit, into int32, uint32 and
// float32 outputs, with the device's float atomics and with the
// compare-and-swap fallback forced. init_value is where the counts start.
TEST_F(CustomKernelTest, AtomicHistogramNativeAndCompareAndSwap) {
  const int n = 3000, bins = 7;
  auto kernel =
      fast::vulkan_kernel("histogram", {"bin", "w"}, {"count", "ucount", "total", "total2"},
                          R"(
    uint i = thread_position_in_grid.x;
    int b = bin[i];
    atomicAdd(count[b], 1);
    atomicAdd( ucount [ uint(b) ] , 2u);
    atomicAdd(total[b], w[i]);
    atomic_fetch_add_explicit(&total2[b], 2.0 * w[i], memory_order_relaxed);
  )",
                          "", true, /*atomic_outputs=*/true);
  array bin = ints({n}, [](int i) { return (i * i + 3 * i) % bins; });
  array w = random::uniform(-1.0f, 1.0f, {n}, float32, random::key(9), kCpu);
  auto bv = values_as<int32_t>(bin);
  auto wv = values(w);
  std::vector<double> count(bins, 10), ucount(bins, 10), total(bins, 10), total2(bins, 10);
  for (int i = 0; i < n; ++i) {
    count[bv[i]] += 1;
    ucount[bv[i]] += 2;
    total[bv[i]] += wv[i];
    total2[bv[i]] += 2 * wv[i];
  }
  auto& device = vulkan::Device::get();
  const bool native = device.float32_atomic_add();
  for (bool use_native : {true, false}) {
    if (use_native && !native) continue;  // the device has no float atomics
    ForceFloatAtomics force(use_native);
    const std::string what = use_native ? "float atomics" : "compare-and-swap";
    std::vector<array> outs;
    const std::string glsl = stdout_of([&] {
      outs = kernel({bin, w}, std::vector<Shape>(4, {bins}), {int32, uint32, float32, float32},
                    {n, 1, 1}, {64, 1, 1}, {}, 10.0f, true);
    });
    if (use_native) {
      EXPECT_CONTAINS(glsl, "GL_EXT_shader_atomic_float");
      EXPECT_NOT_CONTAINS(glsl, "atomicCompSwap");
    } else {
      EXPECT_CONTAINS(glsl, "atomicCompSwap");
      EXPECT_NOT_CONTAINS(glsl, "GL_EXT_shader_atomic_float");
    }
    test_util::expect_values(outs[0], count, 0, what + " int32");
    test_util::expect_values(outs[1], ucount, 0, what + " uint32");
    test_util::expect_values(outs[2], total, 1e-4, what + " float32 atomicAdd");
    test_util::expect_values(outs[3], total2, 1e-4, what + " float32 atomic_fetch_add_explicit");
  }
  EXPECT_EQ(device.float32_atomic_add(), native);
}

// ================================================================
// 7. Buffers named with GLSL keywords.
// ================================================================

TEST_F(CustomKernelTest, KeywordNamesWorkAsWritten) {
  const std::vector<std::string> inputs = {"in", "input", "buffer", "shared", "sample", "filter"};
  auto kernel = fast::vulkan_kernel("keywords", inputs, {"out", "output"}, R"(
    uint i = thread_position_in_grid.x;
    out[i] = in[i] + 2.0 * input[i] + 4.0 * buffer[i] + 8.0 * shared[i] + 16.0 * sample[i] +
             32.0 * filter[i];
    output[i] = in_shape[0] * 100 + int(in_ndim) * 10 + int(filter[i]);
  )");
  std::vector<array> arrays;
  for (int k = 0; k < 6; ++k)
    arrays.push_back(floats({9}, [k](int i) { return float((i + k) % 2); }));
  auto outs = kernel(arrays, {{9}, {9}}, {float32, int32}, {9, 1, 1}, {8, 1, 1});
  std::vector<double> want_out, want_output;
  for (int i = 0; i < 9; ++i) {
    double v = 0;
    for (int k = 0; k < 6; ++k) v += (1 << k) * ((i + k) % 2);
    want_out.push_back(v);
    want_output.push_back(900 + 10 + (i + 5) % 2);
  }
  test_util::expect_values(outs[0], want_out, 0, "out");
  test_util::expect_values(outs[1], want_output, 0, "output");
}

TEST_F(CustomKernelTest, AtomicOutputsNamedWithKeywords) {
  auto kernel = fast::vulkan_kernel("keyword_atomics", {"in"}, {"out", "output"}, R"(
    uint i = thread_position_in_grid.x;
    atomicAdd(out[in[i] % 4], 1);
    atomic_fetch_add_explicit(&out[4 + in[i] % 4], 2, memory_order_relaxed);
    atomicAdd(output[in[i] % 2], 0.5);
  )",
                                    "", true, true);
  array in = ints({100}, [](int i) { return i; });
  const bool native = vulkan::Device::get().float32_atomic_add();
  for (bool use_native : {true, false}) {
    if (use_native && !native) continue;
    ForceFloatAtomics force(use_native);
    auto outs = kernel({in}, {{8}, {2}}, {int32, float32}, {100, 1, 1}, {32, 1, 1}, {}, 0.0f);
    test_util::expect_values(outs[0], {25, 25, 25, 25, 50, 50, 50, 50}, 0, "out");
    test_util::expect_values(outs[1], {25, 25}, 0,
                             use_native ? "output, float atomics" : "output, compare-and-swap");
  }
}

// atomicAdd returns the value before the add, natively and by
// compare-and-swap: adding 1 from every thread hands out each count once.
TEST_F(CustomKernelTest, AtomicAddReturnsThePreviousValue) {
  const int n = 500;
  auto kernel =
      fast::vulkan_kernel("tickets", {}, {"counter", "fcounter", "by_ticket", "by_fticket"},
                          R"(
    uint i = thread_position_in_grid.x;
    int ticket = atomicAdd(counter[0], 1);
    float fticket = atomic_fetch_add_explicit(&fcounter[0], 1.0, memory_order_relaxed);
    by_ticket[ticket] = int(i);
    by_fticket[int(fticket)] = int(i);
  )",
                          "", true, true);
  const bool native = vulkan::Device::get().float32_atomic_add();
  for (bool use_native : {true, false}) {
    if (use_native && !native) continue;
    ForceFloatAtomics force(use_native);
    const std::string what = use_native ? "float atomics" : "compare-and-swap";
    auto outs = kernel({}, {{1}, {1}, {n}, {n}}, {int32, float32, int32, int32}, {n, 1, 1},
                       {64, 1, 1}, {}, 0.0f);
    test_util::expect_values(outs[0], {double(n)}, 0, what + " counter");
    test_util::expect_values(outs[1], {double(n)}, 0, what + " float counter");
    for (int k : {2, 3}) {
      // Each ticket 0 .. n - 1 went to exactly one thread.
      auto owners = values_as<int32_t>(outs[k]);
      std::set<int> distinct(owners.begin(), owners.end());
      EXPECT_EQ(distinct.size(), static_cast<size_t>(n)) << what << " output " << k;
      EXPECT_EQ(*distinct.begin(), 0);
      EXPECT_EQ(*distinct.rbegin(), n - 1);
    }
  }
}

// ================================================================
// 8. Compilation errors, caches, verbose.
// ================================================================

TEST_F(CustomKernelTest, CompileErrorNamesAndQuotesTheSourceLine) {
  auto bad = fast::vulkan_kernel("bad_source", {"inp"}, {"out"},
                                 "uint i = thread_position_in_grid.x;\n"
                                 "float y = inp[i] * 2.0;\n"
                                 "out[i] = undefined_function(y);\n");
  array x = floats({8}, [](int i) { return float(i); });
  const std::string msg = message_of<std::runtime_error>([&] {
    bad({x}, {{8}}, {float32}, {8, 1, 1}, {8, 1, 1});
  });
  EXPECT_CONTAINS(msg, "bad_source");
  EXPECT_CONTAINS(msg, "source line 3");
  EXPECT_CONTAINS(msg, "undefined_function");
  EXPECT_CONTAINS(msg, "| out[i] = undefined_function(y);");
  EXPECT_NOT_CONTAINS(msg, "mlx_kw_");
  EXPECT_NOT_CONTAINS(msg, "source line 1:");
  // The library keeps working.
  auto good = fast::vulkan_kernel("good_after_error", {"inp"}, {"out"},
                                  "uint i = thread_position_in_grid.x;\nout[i] = inp[i] + 1.0;\n");
  test_util::expect_values(good({x}, {{8}}, {float32}, {8, 1, 1}, {8, 1, 1})[0],
                           {1, 2, 3, 4, 5, 6, 7, 8}, 0, "after a compile error");
}

TEST_F(CustomKernelTest, CompileErrorInTheHeaderNamesTheHeaderLine) {
  auto bad = fast::vulkan_kernel("bad_header", {"inp"}, {"out"},
                                 "uint i = thread_position_in_grid.x;\nout[i] = twice(inp[i]);\n",
                                 "float twice(float v) {\n"
                                 "  return v * 2.0;\n"
                                 "}\n"
                                 "float broken(float v) { return v + missing_name; }\n");
  array x = floats({8}, [](int i) { return float(i); });
  const std::string msg = message_of<std::runtime_error>([&] {
    bad({x}, {{8}}, {float32}, {8, 1, 1}, {8, 1, 1});
  });
  EXPECT_CONTAINS(msg, "header line 4");
  EXPECT_CONTAINS(msg, "missing_name");
  EXPECT_CONTAINS(msg, "| float broken(float v) { return v + missing_name; }");
  EXPECT_NOT_CONTAINS(msg, "source line");
}

TEST_F(CustomKernelTest, ASecondCallCompilesNothing) {
  ScopedEnv no_disk("MLX_LITE_KERNEL_CACHE", "off");
  const std::string source =
      "uint i = thread_position_in_grid.x;\nout[i] = inp[i] * 3.0; // " + nonce() + "\n";
  auto kernel = fast::vulkan_kernel("cached", {"inp"}, {"out"}, source);
  array x = floats({100}, [](int i) { return float(i); });
  array x2 = floats({4, 25}, [](int i) { return float(i); });
  std::vector<double> want;
  for (int i = 0; i < 100; ++i) want.push_back(3 * i);
  CacheDelta delta;
  test_util::expect_values(kernel({x}, {{100}}, {float32}, {100, 1, 1}, {32, 1, 1})[0], want, 0,
                           "first");
  EXPECT_EQ(delta.compiled(), 1u);
  EXPECT_EQ(delta.memory_hits(), 0u);
  // Same kernel again, then another grid and threadgroup size: no compile
  // (the workgroup size is a specialization constant).
  test_util::expect_values(kernel({x}, {{100}}, {float32}, {100, 1, 1}, {32, 1, 1})[0], want, 0,
                           "second");
  test_util::expect_values(kernel({x}, {{100}}, {float32}, {100, 1, 1}, {128, 1, 1})[0], want, 0,
                           "threadgroup 128");
  EXPECT_EQ(delta.compiled(), 1u);
  EXPECT_EQ(delta.memory_hits(), 0u);
  // Another rank is another variant, but this source uses no shape: the
  // same GLSL, found in memory.
  test_util::expect_values(kernel({x2}, {{100}}, {float32}, {100, 1, 1}, {32, 1, 1})[0], want, 0,
                           "rank 2");
  EXPECT_EQ(delta.compiled(), 1u);
  EXPECT_EQ(delta.memory_hits(), 1u);
  // Another input dtype is another kernel.
  array xi = astype(x, int32, kCpu);
  test_util::expect_values(kernel({xi}, {{100}}, {float32}, {100, 1, 1}, {32, 1, 1})[0], want, 0,
                           "int32 input");
  EXPECT_EQ(delta.compiled(), 2u);
  test_util::expect_values(kernel({xi}, {{100}}, {float32}, {100, 1, 1}, {32, 1, 1})[0], want, 0,
                           "int32 input again");
  EXPECT_EQ(delta.compiled(), 2u);
  EXPECT_EQ(delta.memory_hits(), 1u);
  EXPECT_EQ(delta.disk_hits(), 0u);
}

// The child half of the disk-cache test: in a fresh process (the parent
// runs this binary again with the variables set), builds the parent's
// kernel and reports what the cache did.
TEST_F(CustomKernelTest, DiskCacheChildProcess) {
  const char* tag = std::getenv("MLX_LITE_TEST_CHILD_NONCE");
  const char* report = std::getenv("MLX_LITE_TEST_CHILD_REPORT");
  if (!tag || !report) GTEST_SKIP() << "run by DiskCacheServesANewProcess";
  auto kernel = fast::vulkan_kernel(
      "disk_cached", {"inp"}, {"out"},
      std::string("uint i = thread_position_in_grid.x;\nout[i] = inp[i] * 5.0 + 1.0; // ") + tag +
          "\n");
  array x = floats({64}, [](int i) { return float(i); });
  auto v = values(kernel({x}, {{64}}, {float32}, {64, 1, 1}, {32, 1, 1})[0]);
  bool ok = true;
  for (int i = 0; i < 64; ++i) ok = ok && v[i] == 5.0 * i + 1.0;
  const auto stats = fast::kernel_cache_stats();
  std::ofstream(report) << "compiled=" << stats.compiled << " disk_hits=" << stats.disk_hits
                        << " correct=" << ok << "\n";
  EXPECT_TRUE(ok);
}

struct ChildReport {
  int status = -1;
  std::string text;
};

// Runs DiskCacheChildProcess in a new process of this binary (`count` of
// them at once), with the disk cache in `dir`.
std::vector<ChildReport> run_children(const fs::path& dir, const std::string& tag, int count) {
  const fs::path self = fs::read_symlink("/proc/self/exe");
  std::string command = "(";
  for (int k = 0; k < count; ++k) {
    const fs::path report = dir.parent_path() / ("report" + std::to_string(k));
    fs::remove(report);
    command += "MLX_LITE_KERNEL_CACHE='" + dir.string() + "' MLX_LITE_TEST_CHILD_NONCE='" + tag +
               "' MLX_LITE_TEST_CHILD_REPORT='" + report.string() + "' '" + self.string() +
               "' --gtest_filter=CustomKernelTest.DiskCacheChildProcess > '" + report.string() +
               ".log' 2>&1; echo $? > '" + report.string() + ".status' &\n";
  }
  command += "wait)";
  EXPECT_EQ(std::system(command.c_str()), 0);
  std::vector<ChildReport> reports;
  for (int k = 0; k < count; ++k) {
    const fs::path report = dir.parent_path() / ("report" + std::to_string(k));
    ChildReport r;
    std::ifstream(report.string() + ".status") >> r.status;
    std::getline(std::ifstream(report), r.text);
    if (r.status != 0 || r.text.empty()) {
      std::stringstream log;
      log << std::ifstream(report.string() + ".log").rdbuf();
      ADD_FAILURE() << "child " << k << " exited " << r.status << ":\n" << log.str();
    }
    reports.push_back(r);
  }
  return reports;
}

size_t spv_files(const fs::path& dir) {
  size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    EXPECT_NE(e.path().extension(), ".tmp") << "a temporary file was left: " << e.path();
    n += e.path().extension() == ".spv";
  }
  return n;
}

TEST_F(CustomKernelTest, DiskCacheServesANewProcess) {
  char tmpl[] = "/tmp/mlx_lite_kernel_cache_XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const fs::path root = tmpl, dir = root / "kernels";  // the cache makes its directory
  struct Cleanup {
    fs::path p;
    ~Cleanup() { fs::remove_all(p); }
  } cleanup{root};
  const std::string tag = nonce();
  {
    // This process: a never-seen kernel is compiled once and written.
    ScopedEnv cache("MLX_LITE_KERNEL_CACHE", dir.string());
    CacheDelta delta;
    auto kernel = fast::vulkan_kernel(
        "disk_cached", {"inp"}, {"out"},
        "uint i = thread_position_in_grid.x;\nout[i] = inp[i] * 5.0 + 1.0; // " + tag + "\n");
    array x = floats({64}, [](int i) { return float(i); });
    auto v = values(kernel({x}, {{64}}, {float32}, {64, 1, 1}, {32, 1, 1})[0]);
    EXPECT_EQ(v[63], 5.0 * 63 + 1.0);
    EXPECT_EQ(delta.compiled(), 1u);
    EXPECT_EQ(delta.disk_hits(), 0u);
    ASSERT_TRUE(fs::exists(dir));
    EXPECT_EQ(spv_files(dir), 1u);
  }
  // A new process with the warm cache compiles nothing.
  auto warm = run_children(dir, tag, 1);
  EXPECT_EQ(warm[0].text, "compiled=0 disk_hits=1 correct=1");
  // A damaged entry is not used: the kernel is compiled again and rewritten.
  for (const auto& e : fs::directory_iterator(dir)) {
    fs::resize_file(e.path(), fs::file_size(e.path()) - 3);
  }
  auto damaged = run_children(dir, tag, 1);
  EXPECT_EQ(damaged[0].text, "compiled=1 disk_hits=0 correct=1");
  auto repaired = run_children(dir, tag, 1);
  EXPECT_EQ(repaired[0].text, "compiled=0 disk_hits=1 correct=1");
  // Two processes compiling into one cold cache at once leave one whole entry.
  const fs::path cold = root / "cold";
  const std::string tag2 = nonce();
  auto racing = run_children(cold, tag2, 2);
  for (const auto& r : racing) {
    EXPECT_TRUE(r.text == "compiled=1 disk_hits=0 correct=1" ||
                r.text == "compiled=0 disk_hits=1 correct=1")
        << r.text;
  }
  EXPECT_EQ(spv_files(cold), 1u);
  auto after = run_children(cold, tag2, 1);
  EXPECT_EQ(after[0].text, "compiled=0 disk_hits=1 correct=1");
}

TEST_F(CustomKernelTest, VerbosePrintsTheGeneratedGlsl) {
  const std::string body =
      "uint elem = thread_position_in_grid.x;\nT tmp = T(values[elem]);\nresult[elem] = "
      "float16_t(exp(tmp));";
  auto kernel = fast::vulkan_kernel("verbose_exp", {"values"}, {"result"}, body);
  array a = astype(floats({16}, [](int i) { return 0.1f * i; }), float16, kCpu);
  auto print = [&](bool verbose) {
    return stdout_of([&] {
      auto outs = kernel({a}, {a.shape()}, {float16}, {16, 1, 1}, {16, 1, 1}, {{"T", float32}},
                         std::nullopt, verbose);
      gpu_test::expect_close(outs[0], exp(a, kCpu), 1e-3, 0, "verbose exp");
    });
  };
  const std::string glsl = print(true);
  EXPECT_CONTAINS(glsl, "#version 450");
  EXPECT_CONTAINS(glsl, "readonly buffer");
  EXPECT_CONTAINS(glsl, "float16_t values[]");
  EXPECT_CONTAINS(glsl, "float16_t result[]");
  EXPECT_CONTAINS(glsl, "#define T float");
  EXPECT_CONTAINS(glsl, "void main()");
  EXPECT_CONTAINS(glsl, body);
  // Printed again when the kernel is already compiled; nothing without verbose.
  EXPECT_EQ(print(true), glsl);
  EXPECT_EQ(print(false), "");
}

// ================================================================
// 9. Argument errors: each a clear std::invalid_argument, after which the
// library keeps working.
// ================================================================

const char* kCopySource = "uint i = thread_position_in_grid.x;\nout[i] = inp[i];\n";

TEST_F(CustomKernelTest, WrongNumbersOfInputsOutputShapesAndDtypes) {
  auto kernel = fast::vulkan_kernel("copy", {"inp"}, {"out"}, kCopySource);
  array x = floats({8}, [](int i) { return float(i); });
  EXPECT_CONTAINS(error_of([&] {
                    kernel({x, x}, {{8}}, {float32}, {8, 1, 1}, {8, 1, 1});
                  }),
                  "called with 2 inputs; it has 1");
  EXPECT_CONTAINS(error_of([&] {
                    kernel({}, {{8}}, {float32}, {8, 1, 1}, {8, 1, 1});
                  }),
                  "called with 0 inputs; it has 1");
  EXPECT_CONTAINS(error_of([&] {
                    kernel({x}, {{8}, {8}}, {float32}, {8, 1, 1}, {8, 1, 1});
                  }),
                  "called with 2 output shapes; it has 1");
  EXPECT_CONTAINS(error_of([&] {
                    kernel({x}, {{8}}, {}, {8, 1, 1}, {8, 1, 1});
                  }),
                  "called with 0 output dtypes; it has 1");
  EXPECT_CONTAINS(error_of([&] {
                    kernel({x}, {{8, -1}}, {float32}, {8, 1, 1}, {8, 1, 1});
                  }),
                  "negative dimension");
  EXPECT_CONTAINS(error_of([&] { fast::vulkan_kernel("no_outputs", {"inp"}, {}, kCopySource); }),
                  "at least one output");
  test_util::expect_values(kernel({x}, {{8}}, {float32}, {8, 1, 1}, {8, 1, 1})[0],
                           {0, 1, 2, 3, 4, 5, 6, 7}, 0, "after the errors");
}

TEST_F(CustomKernelTest, BadNamesAreRejected) {
  auto names_error = [](std::vector<std::string> in, std::vector<std::string> out) {
    return error_of([&] { fast::vulkan_kernel("names", in, out, kCopySource); });
  };
  for (const std::string bad : {"", "1abc", "a-b", "a b", "a.b", "x[0]", "é"}) {
    EXPECT_CONTAINS(names_error({bad}, {"out"}), "is not an identifier") << "input " << bad;
    EXPECT_CONTAINS(names_error({"inp"}, {bad}), "is not an identifier") << "output " << bad;
  }
  for (const std::string reserved : {"gl_Position", "gl_x", "mlx_groups", "mlx_kw_out", "a__b"}) {
    EXPECT_CONTAINS(names_error({reserved}, {"out"}), "is reserved") << reserved;
    EXPECT_CONTAINS(names_error({"inp"}, {reserved}), "is reserved") << reserved;
  }
  EXPECT_CONTAINS(names_error({"a", "a"}, {"out"}), "'a' is given twice");
  EXPECT_CONTAINS(names_error({"a"}, {"a"}), "'a' is given twice");
  EXPECT_CONTAINS(names_error({"inp"}, {"o", "o"}), "'o' is given twice");
  for (const std::string generated :
       {"elem_to_loc", "thread_position_in_grid", "threads_per_simdgroup", "simd_sum", "ceildiv",
        "threadgroup_barrier", "main", "to_float", "memory_order_relaxed"}) {
    EXPECT_CONTAINS(names_error({generated}, {"out"}), "collides with a name the generated code")
        << generated;
    EXPECT_CONTAINS(names_error({"inp"}, {generated}), "collides with a name the generated code")
        << generated;
  }
  EXPECT_CONTAINS(names_error({"a"}, {"a_shape"}), "'a_shape' collides with the shape");
  EXPECT_CONTAINS(names_error({"a", "a_strides"}, {"out"}), "'a_strides' collides");
  EXPECT_CONTAINS(names_error({"a"}, {"a_ndim"}), "'a_ndim' collides");
  EXPECT_CONTAINS(names_error({"inp"}, {"o", "o_atomic_add"}), "'o_atomic_add' collides");
  // Names that only look like the reserved ones are fine.
  EXPECT_EQ(names_error({"glx", "mlx", "a_b"}, {"out_shape"}), "");
}

// The kernel's name is pasted into a comment of the generated code: a name
// with a newline would have ended the comment and become code.
TEST_F(CustomKernelTest, BadKernelNamesAreRejected) {
  auto name_error = [](const std::string& name) {
    return message_of<std::invalid_argument>(
        [&] { fast::vulkan_kernel(name, {"inp"}, {"out"}, kCopySource); });
  };
  for (const std::string bad : {"x\nvoid main() {}", "", "1abc", "a-b", "a b", "k*/"}) {
    const std::string msg = name_error(bad);
    EXPECT_CONTAINS(msg, "[vulkan_kernel] The kernel name ") << bad;
    EXPECT_CONTAINS(msg, "is not an identifier") << bad;
  }
  // The newline is shown escaped, so the message stays one line.
  EXPECT_CONTAINS(name_error("x\nvoid main() {}"), "\"x\\nvoid main() {}\"");
  // Kernel names are not buffer names: "barrier" or "main" name kernels fine.
  EXPECT_EQ(name_error("barrier"), "");
  EXPECT_EQ(name_error("main"), "");
}

// GLSL built-ins the generated code calls cannot name a buffer or a template
// argument: a buffer `barrier` hid barrier() and was taken for a barrier call.
TEST_F(CustomKernelTest, NamesOfBuiltinsTheGeneratedCodeCallsAreRejected) {
  for (const std::string builtin : {"barrier", "memoryBarrier", "subgroupAdd", "atomicAdd",
                                    "atomicCompSwap", "uintBitsToFloat"}) {
    const std::string want = "is reserved: it names the GLSL built-in " + builtin + "()";
    EXPECT_CONTAINS(message_of<std::invalid_argument>(
                        [&] { fast::vulkan_kernel("k", {builtin}, {"out"}, kCopySource); }),
                    want);
    EXPECT_CONTAINS(message_of<std::invalid_argument>(
                        [&] { fast::vulkan_kernel("k", {"inp"}, {builtin}, kCopySource); }),
                    want);
  }
  auto kernel = fast::vulkan_kernel("templ", {"inp"}, {"out"},
                                    "uint i = thread_position_in_grid.x;\nout[i] = inp[i];\n");
  array x = floats({8}, [](int i) { return float(i); });
  EXPECT_CONTAINS(message_of<std::invalid_argument>([&] {
                    kernel({x}, {{8}}, {float32}, {8, 1, 1}, {8, 1, 1}, {{"barrier", 1}});
                  }),
                  "template argument name 'barrier' is reserved");
}

// The atomic helpers' parameters cannot hide an output: outputs named `v`
// and `i` (the helper's parameters were once called so) add correctly.
TEST_F(CustomKernelTest, AtomicOutputsNamedLikeHelperParameters) {
  auto kernel = fast::vulkan_kernel("atomic_names", {"inp"}, {"v", "i"}, R"(
    uint k = thread_position_in_grid.x;
    atomicAdd(v[0], inp[k]);
    atomic_fetch_add_explicit(&i[k % 2u], int(k), memory_order_relaxed);
  )",
                                    "", true, /*atomic_outputs=*/true);
  array x = floats({64}, [](int k) { return float(k); });
  auto outs = kernel({x}, {{1}, {2}}, {float32, int32}, {64, 1, 1}, {32, 1, 1}, {}, 0.0f);
  test_util::expect_values(outs[0], {63.0 * 64 / 2}, 0, "sum of 0..63");
  test_util::expect_values(outs[1], {31.0 * 32, 32.0 * 32}, 0, "even and odd sums");
}

TEST_F(CustomKernelTest, BadTemplateArgumentsAreRejected) {
  auto kernel = fast::vulkan_kernel("templ", {"inp"}, {"out"},
                                    "uint i = thread_position_in_grid.x;\nout[i] = inp[i] * N;\n");
  array x = floats({8}, [](int i) { return float(i); });
  auto call = [&](std::vector<std::pair<std::string, fast::TemplateArg>> t) {
    return error_of([&] { kernel({x}, {{8}}, {float32}, {8, 1, 1}, {8, 1, 1}, t); });
  };
  EXPECT_CONTAINS(call({{"inp", 2}}), "template argument 'inp' has the name of an input or output");
  EXPECT_CONTAINS(call({{"out", float32}}), "has the name of an input or output");
  EXPECT_CONTAINS(call({{"N", 2}, {"N", 3}}), "template argument 'N' is given twice");
  EXPECT_CONTAINS(call({{"2N", 2}}), "is not an identifier");
  EXPECT_CONTAINS(call({{"gl_N", 2}}), "is reserved");
  EXPECT_CONTAINS(call({{"simd_sum", 2}}), "collides with a name the generated code");
  test_util::expect_values(kernel({x}, {{8}}, {float32}, {8, 1, 1}, {8, 1, 1}, {{"N", 2}})[0],
                           {0, 2, 4, 6, 8, 10, 12, 14}, 0, "after the errors");
}

TEST_F(CustomKernelTest, BadGridsAndThreadgroupsAreRejected) {
  auto kernel = fast::vulkan_kernel("copy_launch", {"inp"}, {"out"}, kCopySource);
  array x = floats({8}, [](int i) { return float(i); });
  auto launch = [&](std::tuple<int, int, int> grid, std::tuple<int, int, int> tg) {
    return error_of([&] { kernel({x}, {{8}}, {float32}, grid, tg); });
  };
  EXPECT_CONTAINS(launch({0, 1, 1}, {8, 1, 1}), "grid (0, 1, 1) must be positive");
  EXPECT_CONTAINS(launch({8, 0, 1}, {8, 1, 1}), "grid (8, 0, 1) must be positive");
  EXPECT_CONTAINS(launch({8, 1, -2}, {8, 1, 1}), "grid (8, 1, -2) must be positive");
  EXPECT_CONTAINS(launch({8, 1, 1}, {0, 1, 1}), "threadgroup (0, 1, 1) must be positive");
  EXPECT_CONTAINS(launch({8, 1, 1}, {8, 1, 0}), "threadgroup (8, 1, 0) must be positive");
  // More threads per threadgroup than the device allows.
  const int max_invocations = static_cast<int>(device_value("max_workgroup_invocations"));
  EXPECT_CONTAINS(launch({8, 1, 1}, {max_invocations + 1, 1, 1}),
                  "threadgroup (" + std::to_string(max_invocations + 1) + ", 1, 1)");
  const int z = max_invocations / 4096 + 1;  // 64 x 64 x z > max_invocations
  ASSERT_LE(z, 64);
  EXPECT_CONTAINS(launch({8, 1, 1}, {64, 64, z}),
                  "threadgroup (64, 64, " + std::to_string(z) + ")");
  // More threadgroups than even folding can launch.
  EXPECT_CONTAINS(launch({INT_MAX, INT_MAX, 1}, {1, 1, 1}), "even folded");
  // The largest threadgroup is fine.
  test_util::expect_values(kernel({x}, {{8}}, {float32}, {8, 1, 1}, {max_invocations, 1, 1})[0],
                           {0, 1, 2, 3, 4, 5, 6, 7}, 0, "largest threadgroup");
}

TEST_F(CustomKernelTest, CpuStreamIsRejected) {
  auto kernel = fast::vulkan_kernel("copy_cpu", {"inp"}, {"out"}, kCopySource);
  array x = floats({8}, [](int i) { return float(i); });
  EXPECT_CONTAINS(
      error_of([&] {
        kernel({x}, {{8}}, {float32}, {8, 1, 1}, {8, 1, 1}, {}, std::nullopt, false, kCpu);
      }),
      "CPU stream");
  test_util::expect_values(
      kernel({x}, {{8}}, {float32}, {8, 1, 1}, {8, 1, 1}, {}, std::nullopt, false, kGpu)[0],
      {0, 1, 2, 3, 4, 5, 6, 7}, 0, "GPU stream");
}

TEST_F(CustomKernelTest, BarrierNeedsWholeThreadgroups) {
  auto kernel = fast::vulkan_kernel("barrier_partial", {"inp"}, {"out"}, R"(
    uint t = thread_index_in_threadgroup;
    tile[t] = inp[thread_position_in_grid.x];
    threadgroup_barrier(mem_flags::mem_threadgroup);
    out[thread_position_in_grid.x] = tile[(t + 1u) % 16u];
  )",
                                    "shared float tile[16];\n");
  array x = floats({40}, [](int i) { return float(i); });
  EXPECT_CONTAINS(error_of([&] {
                    kernel({x}, {{40}}, {float32}, {40, 1, 1}, {16, 1, 1});
                  }),
                  "must be a multiple of its threadgroup");
  auto ok = kernel({slice(x, {0}, {32})}, {{32}}, {float32}, {32, 1, 1}, {16, 1, 1});
  std::vector<double> want;
  for (int i = 0; i < 32; ++i) want.push_back((i / 16) * 16 + (i % 16 + 1) % 16);
  test_util::expect_values(ok[0], want, 0, "whole threadgroups");
}

TEST_F(CustomKernelTest, AtomicOutputsNeed32BitTypes) {
  auto kernel = fast::vulkan_kernel("atomic_half", {"inp"}, {"out"},
                                    "uint i = thread_position_in_grid.x;\nout[i] = inp[i];\n", "",
                                    true, true);
  array x = astype(floats({8}, [](int i) { return float(i); }), float16, kCpu);
  for (Dtype d : {float16, bfloat16, int64, uint8, bool_}) {
    EXPECT_CONTAINS(error_of([&] {
                      kernel({x}, {{8}}, {d}, {8, 1, 1}, {8, 1, 1});
                    }),
                    "atomic_outputs needs float32, int32 or uint32 outputs; output 'out' is " +
                        std::string(dtype_name(d)));
  }
  auto ok = kernel({x}, {{8}}, {float32}, {8, 1, 1}, {8, 1, 1});
  test_util::expect_values(ok[0], {0, 1, 2, 3, 4, 5, 6, 7}, 0, "float32 atomic output");
}

TEST_F(CustomKernelTest, MoreBuffersThanCanBeBoundAreRejected) {
  std::vector<std::string> names;
  for (int i = 0; i < 33; ++i) names.push_back(std::string(1, 'i').append(std::to_string(i)));
  auto kernel = fast::vulkan_kernel("many_buffers", names, {"out"}, "out[0] = i0[0] + i32[0];\n");
  array x = floats({1}, [](int) { return 1.0f; });
  const std::string msg = message_of<std::runtime_error>([&] {
    kernel(std::vector<array>(33, x), {{1}}, {float32}, {1, 1, 1}, {1, 1, 1});
  });
  EXPECT_CONTAINS(msg, "'many_buffers' has 35 buffers");
  EXPECT_CONTAINS(msg, "at most 32");
  // 30 inputs, one output and the metadata fit.
  names.resize(30);
  auto fits = fast::vulkan_kernel("thirty_inputs", names, {"out"}, "out[0] = i0[0] + i29[0];\n");
  test_util::expect_values(
      fits(std::vector<array>(30, x), {{1}}, {float32}, {1, 1, 1}, {1, 1, 1})[0], {2}, 0,
      "32 buffers");
}

TEST_F(CustomKernelTest, SharedMemoryBeyondTheDeviceIsRejected) {
  auto kernel = fast::vulkan_kernel("big_shared", {"inp"}, {"out"}, R"(
    uint t = thread_index_in_threadgroup;
    big[t * 1024u] = inp[thread_position_in_grid.x];
    out[thread_position_in_grid.x] = big[t * 1024u] + 1.0;
  )",
                                    "shared float big[1 << 20];\n");
  array x = floats({8}, [](int i) { return float(i); });
  const std::string msg = message_of<std::runtime_error>([&] {
    kernel({x}, {{8}}, {float32}, {8, 1, 1}, {8, 1, 1});
  });
  EXPECT_CONTAINS(msg, "big_shared");
  EXPECT_CONTAINS(msg, "declares 4194304 bytes of shared memory");
  EXPECT_CONTAINS(msg, std::to_string(device_value("max_shared_memory")) + " bytes");
  // Shared memory that fits is fine.
  auto fits = fast::vulkan_kernel("small_shared", {"inp"}, {"out"}, R"(
    uint t = thread_index_in_threadgroup;
    small[t] = inp[thread_position_in_grid.x];
    out[thread_position_in_grid.x] = small[t] + 1.0;
  )",
                                  "shared float small[1024];\n");
  test_util::expect_values(fits({x}, {{8}}, {float32}, {8, 1, 1}, {8, 1, 1})[0],
                           {1, 2, 3, 4, 5, 6, 7, 8}, 0, "1024 floats of shared memory");
}

// ================================================================
// 10. A kernel as the forward of custom_function, its vjp another kernel.
// ================================================================

TEST_F(CustomKernelTest, KernelsInCustomFunctionUnderGrad) {
  // f(x, y) = x^2 sin(y), elementwise; its vjp (2 x sin(y) c, x^2 cos(y) c).
  auto forward = fast::vulkan_kernel("f_fwd", {"x", "y"}, {"out"}, R"(
    uint i = thread_position_in_grid.x;
    out[i] = x[i] * x[i] * sin(y[i]);
  )");
  auto backward = fast::vulkan_kernel("f_vjp", {"x", "y", "cot"}, {"gx", "gy"}, R"(
    uint i = thread_position_in_grid.x;
    gx[i] = 2.0 * x[i] * sin(y[i]) * cot[i];
    gy[i] = x[i] * x[i] * cos(y[i]) * cot[i];
  )");
  int vjp_calls = 0;
  auto f = custom_function(
      [&](const std::vector<array>& in) {
        return forward({in[0], in[1]}, {in[0].shape()}, {float32}, line_of(in[0].size()),
                       {32, 1, 1});
      },
      [&](const std::vector<array>& primals, const std::vector<array>& cotangents,
          const std::vector<array>&) {
        ++vjp_calls;
        const array& x = primals[0];
        return backward({x, primals[1], cotangents[0]}, {x.shape(), x.shape()}, {float32, float32},
                        line_of(x.size()), {32, 1, 1});
      });
  array x = random::normal({5, 7}, float32, random::key(20), kCpu);
  array y = random::normal({5, 7}, float32, random::key(21), kCpu);
  array w = random::normal({5, 7}, float32, random::key(22), kCpu);
  std::function<array(const std::vector<array>&)> loss = [&](const std::vector<array>& in) {
    return sum(multiply(f(in)[0], w));
  };
  auto [value, grads] = value_and_grad(loss, std::vector<int>{0, 1})({x, y});
  ASSERT_EQ(grads.size(), 2u);
  EXPECT_EQ(vjp_calls, 1);
  // References by ops on the CPU: autodiff of the same function, and the
  // derivative written out.
  std::function<array(const std::vector<array>&)> loss_ops = [&](const std::vector<array>& in) {
    return sum(multiply(multiply(multiply(in[0], in[0], kCpu), sin(in[1], kCpu), kCpu), w, kCpu),
               kCpu);
  };
  auto [value_ops, grads_ops] = value_and_grad(loss_ops, std::vector<int>{0, 1})({x, y});
  gpu_test::expect_close(value, value_ops, 1e-5, 1e-5, "value");
  gpu_test::expect_close(grads[0], grads_ops[0], 1e-5, 1e-6, "d/dx");
  gpu_test::expect_close(grads[1], grads_ops[1], 1e-5, 1e-6, "d/dy");
  array dx = multiply(multiply(multiply(array(2.0f), x, kCpu), sin(y, kCpu), kCpu), w, kCpu);
  array dy = multiply(multiply(multiply(x, x, kCpu), cos(y, kCpu), kCpu), w, kCpu);
  gpu_test::expect_close(grads[0], dx, 1e-5, 1e-6, "d/dx by hand");
  gpu_test::expect_close(grads[1], dy, 1e-5, 1e-6, "d/dy by hand");
}

// NAME_vec2 / NAME_vec4: the same memory as vectors, for wide loads and stores.
TEST_F(CustomKernelTest, Vec4AndVec2MoveTheSameElementsAsScalars) {
  // Each thread scales 4 floats through x_vec4 and writes 2 pairs through out_vec2.
  auto kernel = fast::vulkan_kernel(
      "scale4", {"x"}, {"out"}, R"(
    uint i = thread_position_in_grid.x;
    vec4 v = vec4(x_vec4[i]) * 2.0;
    out_vec2[2 * i] = PAIR(v.xy);
    out_vec2[2 * i + 1] = PAIR(v.zw);
  )",
      /*header=*/"#if HALF\n#define PAIR f16vec2\n#else\n#define PAIR vec2\n#endif\n");
  for (Dtype dtype : {float32, float16}) {
    array x = gpu_test::test_values({6, 8}, dtype, 3);
    auto out = kernel({x}, {x.shape()}, {dtype}, {12, 1, 1}, {8, 1, 1},
                      {{"HALF", dtype == float16 ? 1 : 0}});
    gpu_test::expect_close(out[0], multiply(x, array(2.0f, dtype), kCpu), 1e-3, 0,
                           std::string(dtype_name(dtype)));
  }
  array ints = gpu_test::test_values({16}, int32, 4);
  auto copy =
      fast::vulkan_kernel("copy4", {"a"}, {"b"},
                          "b_vec4[thread_position_in_grid.x] = a_vec4[thread_position_in_grid.x];");
  gpu_test::expect_close(copy({ints}, {{16}}, {int32}, {4, 1, 1}, {4, 1, 1})[0], ints, 0, 0,
                         "int32");
}

TEST_F(CustomKernelTest, ViewNamesCollideWithBuffersOfThatName) {
  EXPECT_THROW(fast::vulkan_kernel("k", {"x", "x_vec4"}, {"out"}, ""), std::invalid_argument);
  EXPECT_THROW(fast::vulkan_kernel("k", {"x"}, {"out", "out_vec2"}, ""), std::invalid_argument);
}

}  // namespace
