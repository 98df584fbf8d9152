// Simdgroup matrices in custom kernels (docs/custom_kernels.md, "Matrix
// units"): loads, stores, fills and products of 16 x 16 tiles against the
// CPU's matmul, and the guide's matmul example (examples/kernels/simdgroup_matmul.h).
// Operands are small integers, so every product and sum is exact in float32
// and both implementations (the matrix units on the H100, the library's
// fallback on lavapipe, or on the H100 with MLX_LITE_MATRIX_UNITS=0) must
// match the CPU bit for bit; the example's random operands get float32
// tolerances.
#include <gtest/gtest.h>

#include <string>

#include "backend/vulkan/device.h"
#include "examples/kernels/simdgroup_matmul.h"
#include "gpu_test_util.h"
#include "mlx_lite/gpu.h"
#include "mlx_lite/testing.h"
#include "test_util.h"

using namespace mlx_lite;
using gpu_test::kCpu;
using test_util::error_of;

namespace {

class SimdgroupMatrix : public gpu_test::GpuTest {};

// Integers in [-4, 4) as `dtype`, evaluated.
array small_integers(const Shape& shape, Dtype dtype, uint64_t seed) {
  array out = astype(gpu_test::test_values(shape, int32, seed), dtype, kCpu);
  eval(out);
  return out;
}

array cpu_matmul(const array& a, const array& b) {
  return matmul(astype(a, float32, kCpu), astype(b, float32, kCpu), kCpu);
}

std::string info(const char* key) {
  return std::get<std::string>(gpu::device_info().at(key));
}

TEST_F(SimdgroupMatrix, MultiplyAccumulateOneTile) {
  auto kernel = fast::vulkan_kernel("mma_tile", {"a", "b", "c"}, {"out"}, R"(
    simdgroup_half16x16 x, y;
    simdgroup_float16x16 z;
    simdgroup_load(x, a, 0, 16, false);
    simdgroup_load(y, b, 0, 16, false);
    simdgroup_load(z, c, 0, 16, false);
    simdgroup_multiply_accumulate(z, x, y, z);
    simdgroup_store(z, out, 0, 16, false);
  )");
  array a = small_integers({16, 16}, float16, 1);
  array b = small_integers({16, 16}, float16, 2);
  array c = small_integers({16, 16}, float32, 3);
  auto out = kernel({a, b, c}, {{16, 16}}, {float32}, {32, 1, 1}, {32, 1, 1})[0];
  EXPECT_ALLCLOSE(out, add(cpu_matmul(a, b), c, kCpu), 0.0, 0.0);
}

// Tiles inside larger matrices (an element offset and a row stride), loaded
// transposed from column-major storage, stored transposed; several
// simdgroups per threadgroup and several threadgroups, each simdgroup its
// own tile of the product.
TEST_F(SimdgroupMatrix, OffsetsStridesAndTransposes) {
  auto kernel = fast::vulkan_kernel("mma_strided", {"at", "bt"}, {"out"}, R"(
    // at is A^T (K x M), bt is B^T (N x K), both 48 wide; out is C^T (N x M).
    uint tile = threadgroup_position_in_grid.x * simdgroups_per_threadgroup +
                simdgroup_index_in_threadgroup;  // 0..3: tile (tile / 2, tile % 2) of C
    uint ti = tile / 2u, tj = tile % 2u;
    simdgroup_float16x16 acc;
    simdgroup_fill(acc, 0.0);
    for (uint k0 = 0u; k0 < 48u; k0 += 16u) {
      simdgroup_half16x16 x, y;
      simdgroup_load(x, at, k0 * 48u + ti * 16u, 48u, true);  // A[ti*16.., k0..]
      simdgroup_load(y, bt, tj * 16u * 48u + k0, 48u, true);  // B[k0.., tj*16..]
      simdgroup_multiply_accumulate(acc, x, y, acc);
    }
    simdgroup_store(acc, out, tj * 16u * 32u + ti * 16u, 32u, true);
  )");
  array a = small_integers({32, 48}, float16, 4);  // M x K
  array b = small_integers({48, 32}, float16, 5);  // K x N
  // Only 32 of at's 48 columns are A's rows; the others must not be read.
  array at = concatenate({transpose(a, kCpu), small_integers({48, 16}, float16, 6)}, 1, kCpu);
  array bt = transpose(b, kCpu);
  for (int threads : {32, 64, 128}) {
    auto out = kernel({at, contiguous(bt, false, kCpu)}, {{32, 32}}, {float32}, {128, 1, 1},
                      {threads, 1, 1})[0];
    EXPECT_ALLCLOSE(out, transpose(cpu_matmul(a, b), kCpu), 0.0, 0.0) << threads << " threads";
  }
}

TEST_F(SimdgroupMatrix, FillMultiplyAndHalfTiles) {
  auto kernel = fast::vulkan_kernel("mma_misc", {"a", "b"}, {"prod", "copy", "copy_t", "filled"},
                                    R"(
    simdgroup_half16x16 x, y, h;
    simdgroup_float16x16 z;
    simdgroup_load(x, a, 0, 16, false);
    simdgroup_load(y, b, 0, 16, false);
    simdgroup_multiply(z, x, y);
    simdgroup_store(z, prod, 0, 16, false);
    simdgroup_store(x, copy, 0, 16, false);
    simdgroup_store(x, copy_t, 0, 16, true);
    simdgroup_fill(h, 1.5);
    simdgroup_store(h, filled, 0, 16, false);
  )");
  array a = small_integers({16, 16}, float16, 7);
  array b = small_integers({16, 16}, float16, 8);
  auto out = kernel({a, b}, {{16, 16}, {16, 16}, {16, 16}, {16, 16}},
                    {float32, float16, float16, float16}, {64, 1, 1}, {64, 1, 1});
  EXPECT_ALLCLOSE(out[0], cpu_matmul(a, b), 0.0, 0.0);
  EXPECT_ALLCLOSE(out[1], a, 0.0, 0.0);
  EXPECT_ALLCLOSE(out[2], transpose(a, kCpu), 0.0, 0.0);
  EXPECT_ALLCLOSE(out[3], full({16, 16}, 1.5f, float16, kCpu), 0.0, 0.0);
}

// A tile that is both factors of a product: a KHR cooperative-matrix type
// has one use (A or B), so on devices whose matrices are KHR ones
// (MLX_LITE_MATRIX_UNITS=khr on the H100) this kernel runs on the library's
// fallback; the result is the same everywhere.
TEST_F(SimdgroupMatrix, ATileThatIsBothFactors) {
  auto kernel = fast::vulkan_kernel("mma_square", {"a"}, {"out"}, R"(
    simdgroup_half16x16 x;
    simdgroup_float16x16 z;
    simdgroup_fill(z, 0.0);
    simdgroup_load(x, a, 0, 16, false);
    simdgroup_multiply_accumulate(z, x, x, z);
    simdgroup_store(z, out, 0, 16, false);
  )");
  array a = small_integers({16, 16}, float16, 9);
  auto out = kernel({a}, {{16, 16}}, {float32}, {32, 1, 1}, {32, 1, 1})[0];
  EXPECT_ALLCLOSE(out, cpu_matmul(a, a), 0.0, 0.0);
}

// What the device info says is what the kernel compiles to.
TEST_F(SimdgroupMatrix, DeviceInfoNamesTheImplementation) {
  const std::string how = info("simdgroup_matrix");
  const bool units = how.rfind("matrix units", 0) == 0;
  EXPECT_TRUE(units || how.rfind("fallback (", 0) == 0) << how;
  const auto& features = vulkan::Device::get().features();
  if (!features.cooperative_matrix && !features.khr_cooperative_matrix) {
    EXPECT_FALSE(units) << how;
  }
  auto kernel = fast::vulkan_kernel("mma_info", {"a"}, {"out"}, R"(
    simdgroup_float16x16 z;
    simdgroup_fill(z, 2.0);
    simdgroup_store(z, out, 0, 16, false);
  )");
  testing::internal::CaptureStdout();
  auto out = kernel({ones({1})}, {{16, 16}}, {float32}, {32, 1, 1}, {32, 1, 1}, {}, std::nullopt,
                    /*verbose=*/true)[0];
  const std::string glsl = testing::internal::GetCapturedStdout();
  EXPECT_EQ(glsl.find("fcoopmatNV") != std::string::npos, units) << how;
  EXPECT_ALLCLOSE(out, full({16, 16}, 2.0f), 0.0, 0.0);
}

TEST_F(SimdgroupMatrix, PartialSimdgroupsAreRefused) {
  auto kernel = fast::vulkan_kernel("mma_partial", {"a"}, {"out"}, R"(
    simdgroup_float16x16 z;
    simdgroup_fill(z, 0.0);
    simdgroup_store(z, out, 0, 16, false);
  )");
  array a = ones({1});
  const std::string odd_group = error_of<std::invalid_argument>([&] {
    kernel({a}, {{16, 16}}, {float32}, {48, 1, 1}, {48, 1, 1});
  });
  EXPECT_CONTAINS(odd_group, "Kernel 'mma_partial' uses simdgroup matrices");
  EXPECT_CONTAINS(odd_group, "multiple of 32 threads (it has 48)");
  const std::string partial_grid = error_of<std::invalid_argument>([&] {
    kernel({a}, {{16, 16}}, {float32}, {40, 1, 1}, {32, 1, 1});
  });
  EXPECT_CONTAINS(partial_grid, "grid (40, 1, 1) must be a multiple of the threadgroup");
}

// A tile loads and stores memory of its own dtype only (float16 for
// simdgroup_half16x16, float32 for simdgroup_float16x16): the matrix units'
// loads and stores would reinterpret other memory's bits, so each
// combination is a compile error whose hint says so, on both paths (the
// fallback checks where the device computes in float16).
TEST_F(SimdgroupMatrix, TilesOfAnotherDtypeThanTheMemoryDoNotCompile) {
  if (!vulkan::Device::get().float16()) GTEST_SKIP() << "no float16 arithmetic";
  struct Case {
    const char* tile;
    Dtype in, out;
    int bad_line;
  };
  for (const Case c : {Case{"simdgroup_half16x16", float32, float16, 3},
                       Case{"simdgroup_float16x16", float16, float32, 3},
                       Case{"simdgroup_half16x16", float16, float32, 4},
                       Case{"simdgroup_float16x16", float32, float16, 4},
                       Case{"simdgroup_float16x16", int32, float32, 3}}) {
    auto kernel = fast::vulkan_kernel("mma_dtype", {"a"}, {"out"},
                                      fmt::format(R"(
    {} x;
    simdgroup_load(x, a, 0, 16, false);
    simdgroup_store(x, out, 0, 16, false);
  )",
                                                  c.tile));
    const std::string message = error_of<std::runtime_error>([&] {
      kernel({ones({256}, c.in)}, {{256}}, {c.out}, {32, 1, 1}, {32, 1, 1});
    });
    const std::string what =
        fmt::format("{} from {} to {}", c.tile, dtype_name(c.in), dtype_name(c.out));
    EXPECT_CONTAINS(message, "Kernel 'mma_dtype' does not compile") << what;
    EXPECT_CONTAINS(message, fmt::format("source line {}", c.bad_line)) << what;
    EXPECT_CONTAINS(message, "loads from and stores to float16 memory") << what;
  }
  // Metal's form of the call: the hint gives this API's.
  auto metal = fast::vulkan_kernel("mma_metal", {"a"}, {"out"}, R"(
    simdgroup_float16x16 z;
    simdgroup_load(z, a);
  )");
  const std::string metal_message = error_of<std::runtime_error>([&] {
    metal({ones({256})}, {{256}}, {float32}, {32, 1, 1}, {32, 1, 1});
  });
  EXPECT_CONTAINS(metal_message, "16 x 16 tiles here");
}

// The matrix units take a tile's layout at compile time (SPIR-V requires a
// constant, which glslang does not check): a run-time transpose is a compile
// error on both paths, not invalid SPIR-V on one.
TEST_F(SimdgroupMatrix, TransposeMustBeAConstant) {
  auto kernel = fast::vulkan_kernel("mma_layout", {"a"}, {"out"}, R"(
    simdgroup_half16x16 x;
    simdgroup_load(x, a, 0, 16, FLIP);
    simdgroup_load(x, a, 0, 16, a[0] > float16_t(0.0));
    simdgroup_store(x, out, 0, 16, false);
  )");
  const std::string message = error_of<std::runtime_error>([&] {
    kernel({ones({256}, float16)}, {{256}}, {float16}, {32, 1, 1}, {32, 1, 1}, {{"FLIP", true}});
  });
  EXPECT_CONTAINS(message, "source line 4");
  EXPECT_EQ(message.find("source line 3"), std::string::npos)
      << message;  // a template argument is constant
  EXPECT_CONTAINS(message, "must be a constant");
}

TEST_F(SimdgroupMatrix, NativeSimdgroupsOfAnotherWidthAreRefused) {
  if (vulkan::Device::get().features().subgroup_size == 32) GTEST_SKIP() << "subgroups of 32";
  auto kernel = fast::vulkan_kernel("mma_native", {"a"}, {"out"}, R"(
    simdgroup_float16x16 z;
    simdgroup_fill(z, 0.0);
    simdgroup_store(z, out, 0, 16, false);
  )",
                                    "", true, false, /*native_simdgroups=*/true);
  const std::string message = error_of<std::invalid_argument>([&] {
    kernel({ones({1})}, {{16, 16}}, {float32}, {32, 1, 1}, {32, 1, 1});
  });
  EXPECT_CONTAINS(message, "native_simdgroups=true");
}

// ---- The guide's matmul, ported (examples/kernels/simdgroup_matmul.h).

TEST_F(SimdgroupMatrix, MatmulExampleAgainstTheCpu) {
  struct Case {
    int m, k, n;
  };
  // Whole tiles, odd sizes (MLX's 129 x 65 @ 65 x 33), k past several panels.
  for (const Case c : {Case{64, 64, 64}, Case{129, 65, 33}, Case{37, 200, 150}, Case{1, 16, 1}}) {
    array a = random::normal({c.m, c.k}, float16, random::key(c.m), kCpu);
    array b = random::normal({c.k, c.n}, float16, random::key(c.n + 1), kCpu);
    eval({a, b});
    const array want = cpu_matmul(a, b);
    const std::string what = fmt::format("{}x{} @ {}x{}", c.m, c.k, c.k, c.n);
    // float32 sums of k float16 products: the order of the additions differs.
    EXPECT_ALLCLOSE(examples::simdgroup_matmul(a, b), want, 1e-4, 1e-4) << what;
    EXPECT_ALLCLOSE(examples::simdgroup_matmul(a, b, float16), astype(want, float16, kCpu), 2e-3,
                    2e-3)
        << what;
  }
}

TEST_F(SimdgroupMatrix, MatmulExampleExactOnIntegers) {
  array a = small_integers({70, 90}, float16, 9);
  array b = small_integers({90, 66}, float16, 10);
  EXPECT_ALLCLOSE(examples::simdgroup_matmul(a, b), cpu_matmul(a, b), 0.0, 0.0);
}

TEST_F(SimdgroupMatrix, MatmulExampleRejectsBadInput) {
  array a = ones({4, 8}, float16);
  EXPECT_CONTAINS(error_of<std::invalid_argument>([&] {
                    examples::simdgroup_matmul(a, ones({7, 4}, float16));
                  }),
                  "got a (4, 8) float16, b (7, 4) float16");
  EXPECT_CONTAINS(error_of<std::invalid_argument>([&] {
                    examples::simdgroup_matmul(a, ones({8, 4}));
                  }),
                  "b (8, 4) float32");
  EXPECT_CONTAINS(error_of<std::invalid_argument>([&] {
                    examples::simdgroup_matmul(a, ones({8, 4}, float16), int32);
                  }),
                  "result int32");
}

}  // namespace
