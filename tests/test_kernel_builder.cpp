// The custom-kernel builder's regressions (issue 16): shared arrays sized by
// the workgroup size, template arguments named like the generated code's
// parameters, every GLSL keyword as a buffer name (in the source and the
// header), SPIRV-Cross's errors with context, the hints for Metal idioms,
// NAME_load / NAME_store over every floating dtype, and zero grids. Results
// are checked against hand values and composed ops.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "backend/vulkan/device.h"
#include "backend/vulkan/glsl_keywords.h"
#include "gpu_test_util.h"
#include "mlx_lite/mlx_lite.h"
#include "mlx_lite/testing.h"
#include "test_util.h"

using namespace mlx_lite;
using test_util::error_of;
using test_util::values;

namespace {

class KernelBuilder : public gpu_test::GpuTest {};

std::vector<float> iota_values(int n) {
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i) v[i] = static_cast<float>(i) * 0.5f - 3.0f;
  return v;
}

// ---- 1. A shared array sized by gl_WorkGroupSize.

// Each thread stores its value in buf[lane] and reads its neighbour's: the
// array holds exactly one threadgroup, whatever its size.
TEST_F(KernelBuilder, SharedArraySizedByTheWorkgroupSize) {
  auto kernel = fast::vulkan_kernel("rotate", {"x"}, {"y"}, R"(
    uint lane = thread_position_in_threadgroup.x;
    buf[lane] = x[thread_position_in_grid.x];
    threadgroup_barrier(mem_flags::mem_threadgroup);
    uint n = threads_per_threadgroup.x;
    y[thread_position_in_grid.x] = buf[(lane + 1u) % n];
  )",
                                    "shared float buf[gl_WorkGroupSize.x];");
  const int size = 128;
  array x(iota_values(size).begin(), {size}, float32);
  for (int group : {32, 64}) {
    auto y = kernel({x}, {{size}}, {float32}, {size, 1, 1}, {group, 1, 1})[0];
    const auto got = values(y);
    const auto in = values(x);
    for (int i = 0; i < size; ++i) {
      const int base = i / group * group;
      ASSERT_EQ(got[i], in[base + (i - base + 1) % group])
          << "threadgroup " << group << " at " << i;
    }
  }
}

// Past the device's shared memory at one threadgroup, within it at another:
// the check happens at each launch, with the clear message.
TEST_F(KernelBuilder, SharedArraySizedByTheWorkgroupSizeIsCheckedPerLaunch) {
  const uint32_t limit = vulkan::Device::get().limits().max_shared_memory;
  const int per_thread = static_cast<int>(limit / (4 * 64)) + 1;  // floats per thread
  auto kernel = fast::vulkan_kernel("big_shared", {"x"}, {"y"}, R"(
    uint lane = thread_position_in_threadgroup.x;
    buf[lane * uint(PER_THREAD)] = x[lane];
    threadgroup_barrier(mem_flags::mem_threadgroup);
    y[lane] = buf[lane * uint(PER_THREAD)] * 2.0;
  )",
                                    "shared float buf[gl_WorkGroupSize.x * uint(PER_THREAD)];");
  array x(iota_values(64).begin(), {64}, float32);
  const std::string message = error_of<std::runtime_error>([&] {
    kernel({x}, {{64}}, {float32}, {64, 1, 1}, {64, 1, 1}, {{"PER_THREAD", per_thread}});
  });
  EXPECT_CONTAINS(message, "[vulkan_kernel] Kernel 'big_shared' declares " +
                               std::to_string(64 * 4 * per_thread) +
                               " bytes of shared memory at threadgroup (64, 1, 1)");
  // At threadgroup 1 it fits, and runs.
  auto y = kernel({x}, {{64}}, {float32}, {1, 1, 1}, {1, 1, 1}, {{"PER_THREAD", per_thread}})[0];
  EXPECT_EQ(values(y)[0], values(x)[0] * 2.0);
}

// ---- 2. Template arguments named as the generated code's parameters.

TEST_F(KernelBuilder, TemplateArgumentsNamedLikeGeneratedParameters) {
  // a and b (ceildiv's), elem, shape, strides, ndim, loc, i (elem_to_loc's),
  // x and u (the bfloat16 helpers'), linear (main's).
  auto kernel = fast::vulkan_kernel("one_letter", {"inp"}, {"result"}, R"(
    uint n = thread_position_in_grid[0];  // not .x: the template argument x is a #define
    float v = to_float(inp[elem_to_loc(n, inp_shape, inp_strides, inp_ndim)]);
    result[n] = float(a * b) + v * float(ceildiv(7, 2)) + float(elem + shape + strides + ndim +
                loc + i + x + u + linear);
  )");
  array in = astype(array(iota_values(6).begin(), {2, 3}, float32), bfloat16);
  auto out = kernel({transpose(in)}, {{6}}, {float32}, {6, 1, 1}, {32, 1, 1},
                    {{"a", 3},
                     {"b", 4},
                     {"elem", 1},
                     {"shape", 1},
                     {"strides", 1},
                     {"ndim", 1},
                     {"loc", 1},
                     {"i", 1},
                     {"x", 1},
                     {"u", 1},
                     {"linear", 1}},
                    std::nullopt, false, gpu_test::kGpu)[0];
  array want = flatten(astype(transpose(in), float32)) * 4.0f + 12.0f + 9.0f;
  EXPECT_ALLCLOSE(out, want);
}

TEST_F(KernelBuilder, KeywordTemplateNamesAndGlMacrosAreRefused) {
  auto kernel = fast::vulkan_kernel("k", {"x"}, {"y"}, "y[0] = x[0];");
  array x = ones({1});
  EXPECT_CONTAINS(error_of([&] {
                    kernel({x}, {{1}}, {float32}, {1, 1, 1}, {1, 1, 1}, {{"uint", 1}});
                  }),
                  "The template argument 'uint' is a GLSL keyword");
  EXPECT_CONTAINS(error_of([&] { fast::vulkan_kernel("k", {"GL_ES"}, {"y"}, ""); }),
                  "The input name 'GL_ES' is reserved");
}

// ---- 3. Every GLSL keyword as a buffer name.

// Each word of the list works as an output name: kernels of 24 outputs
// (fewer compiles), each output written through its name and its length.
TEST_F(KernelBuilder, EveryGlslKeywordIsAnOutputName) {
  array x = array({1.0f, 2.0f, 3.0f});
  std::vector<std::string> names;
  for (std::string_view word : vulkan::glsl_keywords()) {
    if (word == "bfloat16_t") {  // the generated struct's name: refused, as all such names
      EXPECT_THROW(fast::vulkan_kernel("kw", {"x"}, {std::string(word)}, ""),
                   std::invalid_argument);
      continue;
    }
    names.emplace_back(word);
  }
  for (const char* word : {"sampler", "image2D", "texture2D", "mat2x3", "dmat2", "int32_t",
                           "f16vec2", "out", "coopmat", "bfloat16_t"}) {
    EXPECT_TRUE(vulkan::is_glsl_keyword(word)) << word;
  }
  for (size_t start = 0; start < names.size(); start += 24) {
    const std::vector<std::string> outputs(names.begin() + start,
                                           names.begin() + std::min(names.size(), start + 24));
    std::string body = "uint i = thread_position_in_grid.x;\n";
    for (const auto& name : outputs)
      // length() counts the bound range, at least the 3 elements (buffers round up).
      body += fmt::format("{0}[i] = x[i] * float(min({0}.length(), 3));\n", name);
    auto kernel = fast::vulkan_kernel("kw", {"x"}, outputs, body);
    std::vector<array> out;
    ASSERT_NO_THROW(out =
                        kernel({x}, std::vector<Shape>(outputs.size(), {3}),
                               std::vector<Dtype>(outputs.size(), float32), {3, 1, 1}, {32, 1, 1}))
        << fmt::format("{}", fmt::join(outputs, " "));
    for (size_t k = 0; k < outputs.size(); ++k) EXPECT_ALLCLOSE(out[k], x * 3.0f) << outputs[k];
  }
}

// ---- 4. Keyword renaming in the header.

TEST_F(KernelBuilder, HeaderWritesAKeywordOutput) {
  // The header writes `out` and `in` as buffers and uses them as GLSL's
  // parameter qualifiers too.
  auto kernel = fast::vulkan_kernel("header_out", {"in"}, {"out"}, R"(
    uint i = thread_position_in_grid.x;
    float y;
    twice(in[i], y);
    put(i, y);
  )",
                                    R"(void twice(in float v, out float w) { w = 2.0 * v; }
void put(uint i, float v) { out[i] = v + float(min(in.length(), 3)); })");
  array x = array({1.0f, -2.0f, 3.5f});
  auto y = kernel({x}, {{3}}, {float32}, {3, 1, 1}, {32, 1, 1})[0];
  EXPECT_ALLCLOSE(y, x * 2.0f + 3.0f);
}

// ---- 5. Kernels SPIRV-Cross could not read back.

// A kernel written with GL_NV_cooperative_matrix itself: SPIRV-Cross threw on
// its types (the test checked that the error named the kernel); its SPIR-V is
// now read directly (spirv_interface.h), so it runs where the device has the
// extension, and is refused before it compiles where it does not.
TEST_F(KernelBuilder, CooperativeMatrixKernelsRunWhereTheDeviceHasThem) {
  auto kernel = fast::vulkan_kernel("coop", {"x"}, {"y"}, R"(
    fcoopmatNV<32, gl_ScopeSubgroup, 16, 16> m = fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>(1.0);
    coopMatStoreNV(m, y, 0, 16, false);
  )",
                                    "#extension GL_NV_cooperative_matrix : require\n"
                                    "#extension GL_KHR_memory_scope_semantics : require\n");
  array x = ones({256});
  if (!vulkan::Device::get().features().cooperative_matrix) {
    const std::string message = error_of<std::runtime_error>([&] {
      kernel({x}, {{256}}, {float32}, {32, 1, 1}, {32, 1, 1});
    });
    EXPECT_EQ(message.rfind("[vulkan_kernel] Kernel 'coop' ", 0), 0u) << message;
    EXPECT_CONTAINS(message, "GL_NV_cooperative_matrix");
    return;
  }
  auto y = kernel({x}, {{256}}, {float32}, {32, 1, 1}, {32, 1, 1})[0];
  EXPECT_ALLCLOSE(y, x, 0.0, 0.0);
}

// ---- Hints for Metal idioms.

struct HintCase {
  const char* line;    // the body line that does not compile
  const char* header;  // or ""
  const char* hint;    // a part of the hint
};

TEST_F(KernelBuilder, MetalIdiomsGetOneHint) {
  const std::vector<HintCase> cases = {
      {"threadgroup float buf[32];", "", "`shared float buf[32];`"},
      {"result[i] = metal::exp(x[i]);", "", "`exp(x)`"},
      {"result[i] = metal::precise::exp(x[i]);", "", "`metal::precise::exp(x)`"},
      {"result[i] = (float)x[i];", "", "`(float)x` is `float(x)`"},
      {"half h = half(x[i]); result[i] = float(h);", "", "`float16_t`"},
      {"uint3 p = uint3(1u); result[i] = float(p.x);", "", "`uint3` is `uvec3`"},
      {"float4 v = float4(1.0); result[i] = v.x;", "", "`float4` is `vec4`"},
      {"result[i] = INFINITY;", "", "uintBitsToFloat(0x7f800000u)"},
      {"result[i] = select(x[i], 1.0, x[i] > 0.0);", "", "`mix(a, b, c)`"},
      {"result[i] = static_cast<float>(x[i]);", "", "`float(x)`"},
      {"device float* p = result;", "", "no pointers"},
      {"result[i] = k;", "constant float k = 2.0;", "`const float k = 2.0;`"},
      {"thread float t = x[i]; result[i] = t;", "", "plain variable"},
      {"out[i] = x[i];", "", "`out` is a GLSL keyword"},
      {"result[i] = as_type<float>(x[i]);", "", "floatBitsToUint"},
      {"atomic_fetch_add_explicit(&result[i], 1.0, memory_order_relaxed);", "",
       "atomic_outputs=true"},
      {"bfloat b = bfloat(x[i]);", "", "NAME_load(i)"},
      {"simdgroup_float8x8 m;", "", "16 x 16 tiles here"},
  };
  array x = ones({4});
  for (const auto& c : cases) {
    auto kernel = fast::vulkan_kernel("port", {"x"}, {"result"},
                                      std::string("uint i = thread_position_in_grid.x;\n") + c.line,
                                      c.header);
    const std::string message = error_of<std::runtime_error>([&] {
      kernel({x}, {{4}}, {float32}, {4, 1, 1}, {4, 1, 1});
    });
    const std::string where = *c.header ? c.header : c.line;
    EXPECT_CONTAINS(message, "| " + where);
    EXPECT_CONTAINS(message, c.hint);
    EXPECT_CONTAINS(message, "docs/porting_metal_kernels.md");
    size_t hints = 0;
    for (size_t p = message.find("hint: "); p != std::string::npos;
         p = message.find("hint: ", p + 1)) {
      ++hints;
    }
    EXPECT_EQ(hints, 1u) << message;
  }
}

// An error that is not about a Metal idiom gets no hint.
TEST_F(KernelBuilder, OtherErrorsGetNoHint) {
  auto kernel = fast::vulkan_kernel("plain", {"x"}, {"result"}, R"(
    uint i = thread_position_in_grid.x;
    if (x[i] > 0.0) result[i] = foo(x[i]);
  )");
  array x = ones({4});
  const std::string message = error_of<std::runtime_error>([&] {
    kernel({x}, {{4}}, {float32}, {4, 1, 1}, {4, 1, 1});
  });
  EXPECT_CONTAINS(message, "'foo' : no matching overloaded function found");
  EXPECT_EQ(message.find("hint:"), std::string::npos) << message;
}

// ---- NAME_load / NAME_store: one body for float32, float16 and bfloat16.

TEST_F(KernelBuilder, OneBodyForEveryFloatingDtype) {
  auto kernel = fast::vulkan_kernel("generic", {"x", "w"}, {"out"}, R"(
    uint i = thread_position_in_grid.x;
    T scale = T(0.5);
    out_store(i, x_load(i) * x_load(i) * float(scale) + w_load(i % 3u));
  )");
  const int n = 37;
  array x32 = random::normal({n}, float32, random::key(1));
  array w32 = array({1.0f, -2.0f, 0.25f});
  for (Dtype t : {float32, float16, bfloat16}) {
    array x = astype(x32, t), w = astype(w32, t);
    auto out = kernel({x, w}, {{n}}, {t}, {n, 1, 1}, {32, 1, 1}, {{"T", t}})[0];
    // The composed ops, in float32 from the same rounded inputs, rounded once.
    array xf = astype(x, float32);
    array wf = astype(w, float32);
    array want = astype(xf * xf * 0.5f + slice(tile(wf, {13}), {0}, {n}), t);
    ASSERT_EQ(out.dtype(), t);
    EXPECT_ALLCLOSE(astype(out, float32), astype(want, float32), t == float32 ? 1e-6 : 1e-2)
        << dtype_name(t);
  }
}

// ---- Zero grids.

TEST_F(KernelBuilder, ZeroGridWithEmptyOutputsIsANoOp) {
  auto kernel = fast::vulkan_kernel("empty_batch", {"x"}, {"y"}, R"(
    uint i = thread_position_in_grid.x;
    y[i] = x[i] * 2.0;
  )");
  array x = zeros({0, 8});
  const auto before = fast::kernel_cache_stats();
  auto outs = kernel({x}, {{0, 8}}, {float32}, {0, 1, 1}, {32, 1, 1});
  ASSERT_EQ(outs.size(), 1u);
  EXPECT_EQ(outs[0].shape(), Shape({0, 8}));
  EXPECT_EQ(outs[0].dtype(), float32);
  eval(outs);
  EXPECT_EQ(outs[0].size(), 0u);
  // Nothing was compiled or looked up: the kernel never ran.
  const auto after = fast::kernel_cache_stats();
  EXPECT_EQ(after.compiled, before.compiled);
  EXPECT_EQ(after.memory_hits, before.memory_hits);
}

TEST_F(KernelBuilder, ZeroGridWithOutputsToWriteIsRefused) {
  auto kernel = fast::vulkan_kernel("unwritten", {"x"}, {"y"}, "y[0] = x[0];");
  array x = zeros({4});
  const std::string message = error_of([&] {
    kernel({x}, {{4}}, {float32}, {4, 0, 1}, {32, 1, 1});
  });
  EXPECT_CONTAINS(message,
                  "[vulkan_kernel] Kernel 'unwritten': grid (4, 0, 1) must be positive when an "
                  "output has elements");
  EXPECT_CONTAINS(message, "output 'y' of shape (4,)");
  // A zero threadgroup and a negative grid stay errors.
  EXPECT_CONTAINS(error_of([&] {
                    kernel({x}, {{0}}, {float32}, {0, 1, 1}, {0, 1, 1});
                  }),
                  "threadgroup (0, 1, 1) must be positive");
  EXPECT_CONTAINS(error_of([&] {
                    kernel({x}, {{0}}, {float32}, {-1, 1, 1}, {1, 1, 1});
                  }),
                  "grid (-1, 1, 1) must be positive (or zero, when every output is empty)");
}

}  // namespace
