// Metal's 32-wide simdgroups in custom kernels, on every device (native
// subgroups of 32, or emulated where they are narrower, as on lavapipe): every
// simd_ helper and simdgroup attribute against a host model of Metal's
// simdgroups (threads 32 s .. 32 s + 31 of the threadgroup; shuffles from a
// lane that does not exist return the caller's value), the threadgroup_
// helpers for any threadgroup size, the seed guide's patterns against the
// composed ops, native_simdgroups, device_info, and extensions checked against
// the device's features.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "backend/vulkan/device.h"
#include "backend/vulkan/kernel_extensions.h"
#include "gpu_test_util.h"
#include "test_util.h"

using namespace mlx_lite;
using gpu_test::kCpu;
using gpu_test::kGpu;
using test_util::error_of;
using test_util::values_as;

namespace {

class SimdgroupTest : public gpu_test::GpuTest {};

struct Threadgroup {
  int x, y, z;
  int threads() const { return x * y * z; }
};

// Threadgroups of whole, partial and several simdgroups, and 2D/3D ones
// whose x is narrower than lavapipe's subgroups.
const std::vector<Threadgroup> kThreadgroups = {{32, 1, 1}, {64, 1, 1}, {48, 1, 1}, {20, 1, 1},
                                                {4, 8, 1},  {8, 4, 2},  {256, 1, 1}};

// The functions the kernel below writes, one column each.
const std::vector<std::string> kColumns = {
    "simd_sum(x)",
    "simd_product(p)",
    "simd_max(x)",
    "simd_min(x)",
    "simd_and(x)",
    "simd_or(x)",
    "simd_xor(x)",
    "simd_prefix_exclusive_sum(x)",
    "simd_prefix_inclusive_sum(x)",
    "simd_prefix_exclusive_product(p)",
    "simd_prefix_inclusive_product(p)",
    "simd_shuffle(x, (thread_index_in_simdgroup * 5u + 3u) % 32u)",
    "simd_broadcast(x, 7u)",
    "simd_broadcast_first(x)",
    "simd_shuffle_down(x, 3u)",
    "simd_shuffle_up(x, 5u)",
    "simd_shuffle_xor(x, 6u)",
    "int(simd_all(x > -3))",
    "int(simd_any(x == 2))",
    "int(thread_index_in_simdgroup)",
    "int(simdgroup_index_in_threadgroup)",
    "int(threads_per_simdgroup)",
    "int(simdgroups_per_threadgroup)",
};

// Metal's result of column `c` for thread t of a threadgroup of n threads.
int expected(size_t c, const std::vector<int>& x, const std::vector<int>& p, int t, int n) {
  const int base = t / 32 * 32, lane = t % 32, lanes = std::min(32, n - base);
  auto from = [&](int l, bool valid) { return valid && l < lanes ? x[base + l] : x[t]; };
  auto fold = [&](const std::vector<int>& v, int end, int init, auto op) {
    for (int l = 0; l < end; ++l) init = op(init, v[base + l]);
    return init;
  };
  auto plus = [](int a, int b) { return a + b; };
  auto times = [](int a, int b) { return a * b; };
  auto all = [&](auto pred) {
    return std::all_of(x.begin() + base, x.begin() + base + lanes, pred);
  };
  switch (c) {
    case 0:
      return fold(x, lanes, 0, plus);
    case 1:
      return fold(p, lanes, 1, times);
    case 2:
      return fold(x, lanes, INT32_MIN, [](int a, int b) { return std::max(a, b); });
    case 3:
      return fold(x, lanes, INT32_MAX, [](int a, int b) { return std::min(a, b); });
    case 4:
      return fold(x, lanes, -1, [](int a, int b) { return a & b; });
    case 5:
      return fold(x, lanes, 0, [](int a, int b) { return a | b; });
    case 6:
      return fold(x, lanes, 0, [](int a, int b) { return a ^ b; });
    case 7:
      return fold(x, lane, 0, plus);
    case 8:
      return fold(x, lane + 1, 0, plus);
    case 9:
      return fold(p, lane, 1, times);
    case 10:
      return fold(p, lane + 1, 1, times);
    case 11:
      return from((lane * 5 + 3) % 32, true);
    case 12:
      return from(7, true);
    case 13:
      return x[base];
    case 14:
      return from(lane + 3, true);
    case 15:
      return from(lane - 5, lane >= 5);
    case 16:
      return from(lane ^ 6, true);
    case 17:
      return all([](int v) { return v > -3; });
    case 18:
      return !all([](int v) { return v != 2; });
    case 19:
      return lane;
    case 20:
      return t / 32;
    case 21:
      return 32;
    case 22:
      return (n + 31) / 32;
  }
  return 0;
}

// x in [-3, 3] and p in {1, -1, 2} (products of 32 stay in int32).
std::vector<int> pattern(int n, int a, int b, int m, int offset) {
  std::vector<int> v(n);
  for (int i = 0; i < n; ++i) v[i] = (i * a + b) % m + offset;
  return v;
}

std::string columns_source() {
  std::string s =
      "uint t = threadgroup_position_in_grid.x * (threads_per_threadgroup.x * "
      "threads_per_threadgroup.y * threads_per_threadgroup.z) + thread_index_in_threadgroup;\n"
      "int x = xs[t];\nint p = ps[t];\n";
  for (size_t c = 0; c < kColumns.size(); ++c) {
    s += fmt::format("out[t * {}u + {}u] = {};\n", kColumns.size(), c, kColumns[c]);
  }
  return s;
}

TEST_F(SimdgroupTest, EveryHelperActsAsMetals32WideSimdgroups) {
  auto kernel = fast::vulkan_kernel("simd_columns", {"xs", "ps"}, {"out"}, columns_source());
  for (const auto& tg : kThreadgroups) {
    const int groups = 2, n = tg.threads(), total = groups * n;
    const auto x = pattern(total, 7, 3, 7, -3);
    const auto p = pattern(total, 5, 1, 4, 0);
    std::vector<int> p_mapped(p.size());
    std::ranges::transform(p, p_mapped.begin(), [](int v) { return v == 0 ? -1 : v == 3 ? 1 : v; });
    const array xs(x.begin(), {total}, int32), ps(p_mapped.begin(), {total}, int32);
    auto out = kernel({xs, ps}, {{total * static_cast<int>(kColumns.size())}}, {int32},
                      {tg.x * groups, tg.y, tg.z}, {tg.x, tg.y, tg.z})[0];
    const auto got = values_as<int>(out);
    for (int t = 0; t < total; ++t) {
      const int w = t / n;
      const std::vector<int> xg(x.begin() + w * n, x.begin() + (w + 1) * n);
      const std::vector<int> pg(p_mapped.begin() + w * n, p_mapped.begin() + (w + 1) * n);
      for (size_t c = 0; c < kColumns.size(); ++c) {
        ASSERT_EQ(got[t * kColumns.size() + c], expected(c, xg, pg, t % n, n))
            << kColumns[c] << " thread " << t % n << " of threadgroup (" << tg.x << ", " << tg.y
            << ", " << tg.z << ")";
      }
    }
  }
}

TEST_F(SimdgroupTest, FloatVectorAndFloat16OverloadsReduceComponentwise) {
  const bool f16 = vulkan::Device::get().features().float16;
  std::string src =
      "uint t = thread_position_in_grid.x;\n"
      "vec2 v = vec2(xs[t], -xs[t]);\n"
      "vec2 s = simd_sum(v);\n"
      "out[3u * t] = s.x; out[3u * t + 1u] = s.y;\n";
  src += f16 ? "out[3u * t + 2u] = float(simd_max(float16_t(xs[t])));\n"
             : "out[3u * t + 2u] = simd_max(xs[t]);\n";
  auto kernel = fast::vulkan_kernel("simd_vec", {"xs"}, {"out"}, src);
  std::vector<float> x(64);
  for (int i = 0; i < 64; ++i) x[i] = static_cast<float>((i * 13) % 17) / 8.0f;
  auto out =
      kernel({array(x.begin(), {64}, float32)}, {{192}}, {float32}, {64, 1, 1}, {64, 1, 1})[0];
  const auto got = values_as<float>(out);
  for (int t = 0; t < 64; ++t) {
    const int base = t / 32 * 32;
    float sum = 0, max = x[base];
    for (int l = 0; l < 32; ++l) sum += x[base + l], max = std::max(max, x[base + l]);
    EXPECT_EQ(got[3 * t], sum) << t;  // eighths: exact in any order
    EXPECT_EQ(got[3 * t + 1], -sum) << t;
    EXPECT_EQ(got[3 * t + 2], max) << t;
  }
}

// The seed guide's RMSNorm: one simdgroup per row, `for (i = sid; i < D; i +=
// 32)` then simd_sum (wrong in every element on lavapipe before simdgroups
// were 32 wide there).
TEST_F(SimdgroupTest, GuideRmsNormSnippetMatchesComposedOps) {
  const std::string src = R"(
uint row = threadgroup_position_in_grid.x;
uint sid = thread_index_in_simdgroup;
float acc = 0.0;
for (uint i = sid; i < D; i += 32u) acc += float(x[row * D + i]) * float(x[row * D + i]);
acc = simd_sum(acc);
float rms = inversesqrt(acc / float(D) + 1e-5);
for (uint i = sid; i < D; i += 32u) out[row * D + i] = float(x[row * D + i]) * rms * float(w[i]);
)";
  auto kernel = fast::vulkan_kernel("guide_rms_norm", {"x", "w"}, {"out"}, src);
  const int rows = 8, d = 600;
  array x = random::normal({rows, d}, float32, 0, 1, random::key(1), kCpu);
  array w = random::uniform(0.5f, 1.5f, {d}, float32, random::key(2), kCpu);
  auto out = kernel({x, w}, {{rows, d}}, {float32}, {rows * 32, 1, 1}, {32, 1, 1},
                    {{"D", static_cast<int>(d)}})[0];
  array ref = multiply(
      multiply(x, rsqrt(add(mean(square(x, kCpu), {-1}, true, kCpu), array(1e-5f), kCpu), kCpu),
               kCpu),
      w, kCpu);
  gpu_test::expect_close(out, ref, 1e-5, 1e-6, "guide RMSNorm");
}

// The guide's threadgroup reduction: simd_sum, lane 0 of each simdgroup
// writes buf[32], and simdgroup 0 alone sums those (MLX's own kernels'
// pattern: divergent across simdgroups, uniform within one).
TEST_F(SimdgroupTest, GuideBuf32PatternIsRightForEveryThreadgroupSize) {
  const std::string header = "shared float buf[32];\n";
  const std::string src = R"(
uint row = threadgroup_position_in_grid.x;
uint tid = thread_index_in_threadgroup;
float v = 0.0;
for (uint i = tid; i < D; i += threads_per_threadgroup.x) v += x[row * D + i];
v = simd_sum(v);
if (thread_index_in_simdgroup == 0u) buf[simdgroup_index_in_threadgroup] = v;
threadgroup_barrier(mem_threadgroup);
if (simdgroup_index_in_threadgroup == 0u) {
  v = thread_index_in_simdgroup < simdgroups_per_threadgroup ? buf[thread_index_in_simdgroup] : 0.0;
  v = simd_sum(v);
  if (thread_index_in_simdgroup == 0u) out[row] = v;
}
)";
  auto kernel = fast::vulkan_kernel("guide_buf32", {"x"}, {"out"}, src, header);
  const int rows = 3, d = 3000;
  array x = random::uniform(-1.0f, 1.0f, {rows, d}, float32, random::key(3), kCpu);
  array ref = sum(x, {-1}, false, kCpu);
  for (int tg : {32, 96, 256, 512, 1024}) {
    auto out = kernel({x}, {{rows}}, {float32}, {rows * tg, 1, 1}, {tg, 1, 1},
                      {{"D", static_cast<int>(d)}})[0];
    gpu_test::expect_close(out, ref, 1e-5, 1e-4, fmt::format("threadgroup {}", tg));
  }
}

// A helper called thousands of times in a loop: the emulation is straight-line
// code, so lavapipe's cap on loop iterations is not reached by it.
TEST_F(SimdgroupTest, ManyCallsInALoopStayExact) {
  auto kernel = fast::vulkan_kernel("simd_loop", {"xs"}, {"out"}, R"(
int acc = 0;
for (int i = 0; i < 3000; ++i) acc += simd_sum(xs[thread_position_in_grid.x] + i % 3);
out[thread_position_in_grid.x] = acc;
)");
  std::vector<int> x(64);
  for (int i = 0; i < 64; ++i) x[i] = i % 5;
  auto out = kernel({array(x.begin(), {64}, int32)}, {{64}}, {int32}, {64, 1, 1}, {64, 1, 1})[0];
  const auto got = values_as<int>(out);
  for (int t = 0; t < 64; ++t) {
    int64_t lanes = 0;
    for (int l = 0; l < 32; ++l) lanes += x[t / 32 * 32 + l];
    int64_t want = 0;
    for (int i = 0; i < 3000; ++i) want += lanes + 32 * (i % 3);
    EXPECT_EQ(got[t], want) << t;
  }
}

// threadgroup_sum, _max, _min and the prefix sums over every thread of the
// threadgroup, for sizes from 1 to 1024 and 2D ones.
TEST_F(SimdgroupTest, ThreadgroupHelpersAreRightForAnySize) {
  auto kernel = fast::vulkan_kernel("tg_helpers", {"xs", "fs"}, {"out", "fout"}, R"(
uint n = threads_per_threadgroup.x * threads_per_threadgroup.y * threads_per_threadgroup.z;
uint t = threadgroup_position_in_grid.x * n + thread_index_in_threadgroup;
int x = xs[t];
out[5u * t] = threadgroup_sum(x);
out[5u * t + 1u] = threadgroup_max(x);
out[5u * t + 2u] = threadgroup_min(x);
out[5u * t + 3u] = threadgroup_prefix_exclusive_sum(x);
out[5u * t + 4u] = threadgroup_prefix_inclusive_sum(x);
fout[t] = threadgroup_sum(fs[t]);
)");
  for (const Threadgroup tg : std::vector<Threadgroup>{
           {1, 1, 1}, {7, 1, 1}, {32, 1, 1}, {100, 1, 1}, {256, 1, 1}, {1024, 1, 1}, {16, 16, 1}}) {
    const int groups = 2, n = tg.threads(), total = groups * n;
    const auto x = pattern(total, 37, 11, 101, -50);
    std::vector<float> f(total);
    for (int i = 0; i < total; ++i) f[i] = static_cast<float>(x[i]) / 4.0f;
    auto outs = kernel({array(x.begin(), {total}, int32), array(f.begin(), {total}, float32)},
                       {{5 * total}, {total}}, {int32, float32}, {tg.x * groups, tg.y, tg.z},
                       {tg.x, tg.y, tg.z});
    const auto got = values_as<int>(outs[0]);
    const auto fgot = values_as<float>(outs[1]);
    for (int w = 0; w < groups; ++w) {
      const auto first = x.begin() + w * n, last = first + n;
      const int sum = std::accumulate(first, last, 0);
      int prefix = 0;
      for (int t = 0; t < n; ++t) {
        const int i = w * n + t;
        const std::string where = fmt::format("thread {} of {} threads", t, n);
        ASSERT_EQ(got[5 * i], sum) << where;
        ASSERT_EQ(got[5 * i + 1], *std::max_element(first, last)) << where;
        ASSERT_EQ(got[5 * i + 2], *std::min_element(first, last)) << where;
        ASSERT_EQ(got[5 * i + 3], prefix) << where;
        prefix += x[i];
        ASSERT_EQ(got[5 * i + 4], prefix) << where;
        ASSERT_EQ(fgot[i], static_cast<float>(sum) / 4.0f) << where;  // quarters: exact
      }
    }
  }
}

// Threads past the grid do not run (Metal's non-uniform threadgroups): the
// simdgroups of a partial threadgroup have only the lanes that run, in 1-D
// and 2-D grids; threadgroup_* helpers, which contain barriers, need whole
// threadgroups.
TEST_F(SimdgroupTest, PartialThreadgroupsCombineTheLanesThatRun) {
  auto kernel = fast::vulkan_kernel("simd_partial", {"xs"}, {"out"}, R"(
uvec3 p = thread_position_in_grid;
uint i = p.y * threads_per_grid.x + p.x;
int x = xs[i];
out[3u * i] = simd_sum(x);
out[3u * i + 1u] = simd_prefix_exclusive_sum(x);
out[3u * i + 2u] = simd_shuffle_down(x, 1u);
)");
  for (const auto& [grid, tg] : std::vector<std::pair<std::array<int, 2>, std::array<int, 2>>>{
           {{40, 1}, {32, 1}}, {{100, 1}, {64, 1}}, {{10, 6}, {8, 4}}}) {
    const int total = grid[0] * grid[1];
    std::vector<int> x(total);
    for (int i = 0; i < total; ++i) x[i] = i % 7 + 1;
    const auto got = values_as<int>(kernel({array(x.begin(), {total}, int32)}, {{3 * total}},
                                           {int32}, {grid[0], grid[1], 1}, {tg[0], tg[1], 1})[0]);
    // The model: the threads of each threadgroup by thread_index_in_threadgroup,
    // simdgroups of 32 of those, lanes past the grid absent.
    for (int i = 0; i < total; ++i) {
      const int gx = i % grid[0], gy = i / grid[0];
      const int origin_x = gx / tg[0] * tg[0], origin_y = gy / tg[1] * tg[1];
      const int t = (gy - origin_y) * tg[0] + (gx - origin_x);
      auto element = [&](int u) -> int {  // the grid element of thread u, or -1
        const int ex = origin_x + u % tg[0], ey = origin_y + u / tg[0];
        return ex < grid[0] && ey < grid[1] ? ey * grid[0] + ex : -1;
      };
      int sum = 0, prefix = 0;
      for (int u = t / 32 * 32; u < std::min(t / 32 * 32 + 32, tg[0] * tg[1]); ++u) {
        if (element(u) < 0) continue;
        sum += x[element(u)];
        if (u < t) prefix += x[element(u)];
      }
      const int down = t % 32 < 31 && element(t + 1) >= 0 ? x[element(t + 1)] : x[i];
      const std::string where = fmt::format("element {} of grid ({}, {})", i, grid[0], grid[1]);
      ASSERT_EQ(got[3 * i], sum) << where;
      ASSERT_EQ(got[3 * i + 1], prefix) << where;
      ASSERT_EQ(got[3 * i + 2], down) << where;
    }
  }
  auto tg = fast::vulkan_kernel("tg_partial", {"xs"}, {"out"},
                                "out[thread_position_in_grid.x] = threadgroup_sum(xs[0]);");
  const array x = array({1.0f, 2.0f});
  const std::string message = error_of([&] { tg({x}, {{40}}, {float32}, {40, 1, 1}, {32, 1, 1}); });
  EXPECT_NE(message.find("must be a multiple of its threadgroup"), std::string::npos) << message;
  const auto& limits = vulkan::Device::get().limits();
  if (limits.max_workgroup_invocations > 1024) {
    EXPECT_NE(error_of([&] {
                tg({x}, {{2048}}, {float32}, {2048, 1, 1}, {2048, 1, 1});
              }).find("at most 1024 threads"),
              std::string::npos);
  }
}

// native_simdgroups: simd_* are the device's subgroups, whatever their width.
TEST_F(SimdgroupTest, NativeSimdgroupsAreTheDevicesSubgroups) {
  const auto native = static_cast<int>(vulkan::Device::get().features().subgroup_size);
  auto kernel = fast::vulkan_kernel("simd_native", {"xs"}, {"out"},
                                    "uint t = thread_position_in_grid.x;\n"
                                    "out[2u * t] = int(threads_per_simdgroup);\n"
                                    "out[2u * t + 1u] = simd_sum(xs[t]);\n",
                                    "", true, false, /*native_simdgroups=*/true);
  std::vector<int> x(64);
  for (int i = 0; i < 64; ++i) x[i] = i;
  const auto got = values_as<int>(
      kernel({array(x.begin(), {64}, int32)}, {{128}}, {int32}, {64, 1, 1}, {64, 1, 1})[0]);
  for (int t = 0; t < 64; ++t) {
    EXPECT_EQ(got[2 * t], native);
    const int base = t / native * native;
    int sum = 0;
    for (int l = 0; l < native; ++l) sum += x[base + l];
    EXPECT_EQ(got[2 * t + 1], sum) << t;
  }
}

TEST_F(SimdgroupTest, DeviceInfoSaysHowSimdgroupsRun) {
  auto info = gpu::device_info();
  const auto size = std::get<size_t>(info.at("subgroup_size"));
  const auto how = std::get<std::string>(info.at("simdgroup_32"));
  if (size == 32) {
    EXPECT_EQ(how, "native");
  } else {
    EXPECT_TRUE(how == "required" || how == "emulated") << how;
  }
  for (const char* key : {"float16", "subgroup_extended_types", "int64_atomics",
                          "float32_atomic_add", "float32_atomics", "cooperative_matrix"}) {
    EXPECT_TRUE(info.contains(key)) << key;
  }
}

// Subgroup operations on float16 need shaderSubgroupExtendedTypes, now enabled
// where the device has it (the validation layer reported VUID-RuntimeSpirv-
// None-06275 when it was not); an extension the device lacks is refused
// before anything runs, naming it and the device.
// The #extension lines of a header or source, as the preprocessor reads them.
TEST(KernelExtensions, RequestedExtensionsAreTheDirectiveLines) {
  const std::string text =
      "  #  extension GL_A : require\n"
      "#extension GL_B:enable\n"
      "// #extension GL_C : require\n"
      "#extensionGL_D : require\n"
      "#extension GL_E require\n"
      "float f; #extension GL_F : require\n"
      "\t#extension\tGL_G\t: warn";
  EXPECT_EQ(vulkan::requested_extensions(text), (std::vector<std::string>{"GL_A", "GL_B", "GL_G"}));
  EXPECT_TRUE(vulkan::requested_extensions("").empty());
}

TEST_F(SimdgroupTest, ExtensionsAreCheckedAgainstTheDevice) {
  const auto& f = vulkan::Device::get().features();
  auto kernel = fast::vulkan_kernel(
      "f16_subgroup", {"xs"}, {"out"},
      "out[thread_position_in_grid.x] = "
      "float(subgroupAdd(float16_t(xs[thread_position_in_grid.x])));",
      "#extension GL_EXT_shader_subgroup_extended_types_float16 : require\n", true, false, true);
  const array x = full({64}, 1.0f);
  if (f.subgroup_extended_types && f.float16) {
    const auto got = values_as<float>(kernel({x}, {{64}}, {float32}, {64, 1, 1}, {64, 1, 1})[0]);
    for (float v : got) EXPECT_EQ(v, static_cast<float>(f.subgroup_size));
  } else {
    EXPECT_NE(error_of<std::runtime_error>([&] {
                kernel({x}, {{64}}, {float32}, {64, 1, 1}, {64, 1, 1});
              }).find("GL_EXT_shader_subgroup_extended_types_float16"),
              std::string::npos);
  }
  if (!f.cooperative_matrix) {
    auto coop = fast::vulkan_kernel("coop", {"xs"}, {"out"}, "out[0] = xs[0];",
                                    "#extension GL_NV_cooperative_matrix : require\n");
    const std::string message = error_of<std::runtime_error>([&] {
      coop({x}, {{1}}, {float32}, {1, 1, 1}, {1, 1, 1});
    });
    EXPECT_NE(message.find("GL_NV_cooperative_matrix"), std::string::npos) << message;
    EXPECT_NE(message.find(vulkan::Device::get().name()), std::string::npos) << message;
    EXPECT_NE(message.find("[vulkan_kernel] Kernel 'coop'"), std::string::npos) << message;
  }
  auto khr = fast::vulkan_kernel("coop_khr", {"xs"}, {"out"}, "out[0] = xs[0];",
                                 "#extension GL_KHR_cooperative_matrix : require\n");
  EXPECT_NE(error_of<std::runtime_error>([&] {
              khr({x}, {{1}}, {float32}, {1, 1, 1}, {1, 1, 1});
            }).find("GL_KHR_cooperative_matrix"),
            std::string::npos);
}

}  // namespace
