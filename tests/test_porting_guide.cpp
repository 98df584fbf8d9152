// docs/porting_metal_kernels.md's table: each row's GLSL form compiled and,
// where it computes something, run and checked against hand values or
// composed ops. DocRowsAreTested keeps the document and this file in sync:
// every code span of the table's GLSL column must appear in this file.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "backend/vulkan/device.h"
#include "gpu_test_util.h"
#include "mlx_lite/mlx_lite.h"
#include "mlx_lite/testing.h"
#include "test_util.h"

using namespace mlx_lite;

namespace {

class PortingGuide : public gpu_test::GpuTest {};

std::string read(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const array& inputs() {
  static const array x = array({-2.0f, -0.5f, 0.25f, 1.0f, 1.5f, 2.0f, 3.0f, -1.0f}, {8});
  return x;
}

// The body (after `uint i = thread_position_in_grid.x;`) over x, one thread
// per element, writing `result`.
array run(const std::string& body, const std::string& header = "",
          std::vector<std::pair<std::string, fast::TemplateArg>> template_args = {}) {
  auto kernel = fast::vulkan_kernel("port", {"x"}, {"result"},
                                    "uint i = thread_position_in_grid.x;\n" + body, header);
  return kernel({inputs()}, {{8}}, {float32}, {8, 1, 1}, {8, 1, 1}, template_args)[0];
}

TEST_F(PortingGuide, DocRowsAreTested) {
  const std::filesystem::path here(__FILE__);
  const std::string doc = read(here.parent_path().parent_path() / "docs/porting_metal_kernels.md");
  const std::string self = read(here);
  ASSERT_FALSE(doc.empty());
  ASSERT_FALSE(self.empty());
  static const std::regex span("`([^`]+)`");
  int rows = 0;
  std::istringstream lines(doc);
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("| ") || line.starts_with("| Metal") || line.starts_with("| ---")) {
      continue;
    }
    ++rows;
    // The second column: between the first two cell separators.
    const size_t a = line.find(" | ");
    const size_t b = line.find(" | ", a + 3);
    ASSERT_NE(b, std::string::npos) << line;
    const std::string glsl = line.substr(a + 3, b - a - 3);
    for (std::sregex_iterator it(glsl.begin(), glsl.end(), span), end; it != end; ++it) {
      EXPECT_NE(self.find((*it)[1].str()), std::string::npos)
          << "docs/porting_metal_kernels.md's `" << (*it)[1].str() << "` is not tested here";
    }
  }
  EXPECT_GE(rows, 18);
}

// y = f(x) elementwise, checked against a double-precision reference.
void expect_map(const array& y, double (*f)(double), double tol = 1e-5) {
  const auto got = test_util::values(y);
  const auto in = test_util::values(inputs());
  for (size_t k = 0; k < in.size(); ++k) {
    const double want = f(in[k]);
    if (std::isinf(want)) {
      EXPECT_EQ(got[k], want) << "at " << k;
    } else {
      EXPECT_NEAR(got[k], want, tol * (1 + std::abs(want))) << "at " << k;
    }
  }
}

TEST_F(PortingGuide, ThreadgroupArrayAndBarrier) {
  auto y = run(R"(
    buf[i] = x[i];
    threadgroup_barrier(mem_flags::mem_threadgroup);
    result[i] = buf[7u - i];
  )",
               "shared float buf[32];");
  const auto got = test_util::values(y);
  const auto in = test_util::values(inputs());
  for (size_t k = 0; k < 8; ++k) EXPECT_EQ(got[k], in[7 - k]);
  // Sized by the threadgroup.
  auto z =
      run("tile[i] = x[i]; threadgroup_barrier(mem_flags::mem_threadgroup); result[i] = "
          "tile[i] * 2.0;",
          "shared float tile[gl_WorkGroupSize.x];");
  expect_map(z, [](double v) { return 2 * v; });
}

TEST_F(PortingGuide, Casts) {
  expect_map(run("int n = int(x[i]); result[i] = float(n);"),
             [](double v) { return std::trunc(v); });
  expect_map(run("float v = x[i] * 2.0; result[i] = T(v);", "", {{"T", float32}}),
             [](double v) { return 2 * v; });
}

TEST_F(PortingGuide, MetalMath) {
  expect_map(run("float v = x[i]; result[i] = exp(v);"), [](double v) { return std::exp(v); });
  expect_map(run("float v = abs(x[i]) + 1.0; result[i] = inversesqrt(v);"),
             [](double v) { return 1 / std::sqrt(std::abs(v) + 1); });
}

TEST_F(PortingGuide, Half) {
  if (!vulkan::Device::get().float16()) GTEST_SKIP() << "no float16 arithmetic";
  auto y =
      run("float v = x[i]; float16_t h = float16_t(v); f16vec4 h4 = f16vec4(h); result[i] = "
          "float(h4.w + h);");
  expect_map(
      y, [](double v) { return 2 * v; }, 1e-3);
}

TEST_F(PortingGuide, VectorTypes) {
  auto y =
      run("uvec3 p = uvec3(1u, 2u, 3u); ivec2 q = ivec2(-1, 4); vec4 v = vec4(x[i]); "
          "result[i] = v.w + float(p.z) + float(q.x);");
  expect_map(y, [](double v) { return v + 2; });
  if (vulkan::Device::get().float16()) {
    expect_map(run("f16vec4 h = f16vec4(x[i]); result[i] = float(h.y);"),
               [](double v) { return v; });
  }
}

TEST_F(PortingGuide, InfinityAndSelect) {
  expect_map(run("result[i] = x[i] > 0.0 ? uintBitsToFloat(0x7f800000u) : "
                 "-uintBitsToFloat(0x7f800000u);"),
             [](double v) -> double { return v > 0 ? INFINITY : -INFINITY; });
  expect_map(run("float a = 0.0, b = x[i]; bool c = x[i] > 0.0; result[i] = mix(a, b, c);"),
             [](double v) { return v > 0 ? v : 0.0; });
  expect_map(run("float a = 0.0, b = x[i]; bool c = x[i] < 0.0; result[i] = c ? b : a;"),
             [](double v) { return v < 0 ? v : 0.0; });
}

TEST_F(PortingGuide, AsType) {
  auto y = run("float f = x[i]; result[i] = float(floatBitsToUint(f) >> 31);");
  expect_map(y, [](double v) { return v < 0 ? 1.0 : 0.0; });
}

TEST_F(PortingGuide, AddressSpaces) {
  // `x[i]`: buffers by name; constants; plain locals.
  expect_map(run("const float eps = 1e-5; float acc = 0.0; acc += x[i]; result[i] = acc + eps;"),
             [](double v) { return v + 1e-5; });
  expect_map(run("result[i] = x[i] * float(EPS);", "", {{"EPS", 5}}),
             [](double v) { return 5 * v; });
}

TEST_F(PortingGuide, Atomics) {
  auto kernel = fast::vulkan_kernel("sum", {"x"}, {"out"}, R"(
    uint i = thread_position_in_grid.x;
    float v = x[i];
    atomic_fetch_add_explicit(&out[i], v, memory_order_relaxed);
    atomicAdd(out[i], v);
  )",
                                    "", true, /*atomic_outputs=*/true);
  auto y = kernel({inputs()}, {{8}}, {float32}, {8, 1, 1}, {8, 1, 1}, {}, 1.0f)[0];
  expect_map(y, [](double v) { return 1 + 2 * v; });
}

TEST_F(PortingGuide, SimdFunctions) {
  // The same names; a sum of ones over a simdgroup counts its threads: 32, or
  // the threadgroup's where it has fewer (this one's 8).
  auto y =
      run("float v = 1.0; float s = simd_sum(v); float m = simd_max(v); "
          "result[i] = (s == float(min(threads_per_simdgroup, threads_per_threadgroup.x)) && "
          "threads_per_simdgroup == 32u && m == 1.0 && "
          "thread_index_in_simdgroup < threads_per_simdgroup) ? 1.0 : 0.0;");
  expect_map(y, [](double) { return 1.0; });
}

// Metal's simdgroup_matrix: 16 x 16 tiles of float16, float32 accumulators.
TEST_F(PortingGuide, SimdgroupMatrix) {
  auto kernel = fast::vulkan_kernel("port_matrix", {"x"}, {"result"}, R"(
    simdgroup_half16x16 a, b;
    simdgroup_float16x16 c;
    simdgroup_fill(c, 0.0);
    simdgroup_load(a, x, 0, 16, false);
    simdgroup_load(b, x, 0, 16, true);
    simdgroup_multiply_accumulate(c, a, b, c);
    simdgroup_store(c, result, 0, 16, false);
  )");
  // Integers: the products and sums are exact, on the matrix units or not.
  array x = astype(reshape(remainder(arange(256), array(7)), {16, 16}), float16);
  array got = kernel({x}, {{16, 16}}, {float32}, {32, 1, 1}, {32, 1, 1})[0];
  const Device cpu(Device::cpu);
  array x32 = astype(x, float32, cpu);
  EXPECT_ALLCLOSE(got, matmul(x32, transpose(x32, cpu), cpu), 0.0, 0.0);
}

TEST_F(PortingGuide, ZeroDimensionalInput) {
  auto kernel = fast::vulkan_kernel("scale0d", {"x", "d"}, {"result"}, R"(
    uint i = thread_position_in_grid.x;
    result[i] = x[i] * d[0];
  )");
  auto y = kernel({inputs(), array(3.0f)}, {{8}}, {float32}, {8, 1, 1}, {8, 1, 1})[0];
  expect_map(y, [](double v) { return 3 * v; });
}

TEST_F(PortingGuide, Bfloat16) {
  auto kernel = fast::vulkan_kernel("bf16", {"b"}, {"out"}, R"(
    uint i = thread_position_in_grid.x;
    bfloat16_t e = b[i];
    float f = to_float(e) * 2.0;
    out[i] = to_bfloat16(f);
  )");
  array b = astype(inputs(), bfloat16);
  auto y = kernel({b}, {{8}}, {bfloat16}, {8, 1, 1}, {8, 1, 1})[0];
  EXPECT_ALLCLOSE(astype(y, float32), astype(b, float32) * 2.0f);
}

// The generic body of the guide's last row, over the three floating dtypes.
TEST_F(PortingGuide, OneBodyEveryFloatingDtype) {
  auto kernel = fast::vulkan_kernel("sq", {"x"}, {"out"}, R"(
    uint i = thread_position_in_grid.x;
    float s = 0.5;
    out_store(i, x_load(i) * s);
    out_store(i, x_load(i) * x_load(i));
  )");
  for (Dtype t : {float32, float16, bfloat16}) {
    array x = astype(inputs(), t);
    auto y = kernel({x}, {{8}}, {t}, {8, 1, 1}, {8, 1, 1})[0];
    array xf = astype(x, float32);
    EXPECT_ALLCLOSE(astype(y, float32), astype(astype(xf * xf, t), float32)) << dtype_name(t);
  }
}

}  // namespace
