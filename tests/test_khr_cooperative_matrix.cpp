// The translation of NV cooperative matrices into KHR ones
// (backend/vulkan/khr_cooperative_matrix.h), on every machine: each module
// it writes must pass a spirv-val that knows SPV_KHR_cooperative_matrix and
// SPV_KHR_bfloat16 (Debian 12's predates both: scripts/fetch_spirv_val.sh
// fetches one), keep no NV instruction, and give each matrix the use its
// multiply-adds give it. Whether the translated kernels compute the right
// numbers needs a device with KHR matrices: scripts/gpu_tests.sh runs the
// matmul and simdgroup-matrix tests on the H100 with MLX_LITE_MATRIX_UNITS=khr.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "backend/vulkan/builtin_shaders.h"
#include "backend/vulkan/kernel_compiler.h"
#include "backend/vulkan/kernel_source.h"
#include "backend/vulkan/khr_cooperative_matrix.h"
#include "examples/kernels/simdgroup_matmul.h"
#include "test_util.h"

using namespace mlx_lite;
using namespace mlx_lite::vulkan;

namespace {

// SPIR-V numbers (the unified1 grammar).
constexpr uint32_t kOpTypeFloat = 22, kOpTypeCooperativeMatrixKHR = 4456;
constexpr uint32_t kOpCapability = 17, kOpConstant = 43;
constexpr uint32_t kFirstNvMatrixOp = 5358, kLastNvMatrixOp = 5362;
constexpr uint32_t kCapabilityNv = 5357, kCapabilityKhr = 6022;
constexpr uint32_t kCapabilityBFloat16Type = 5116, kCapabilityBFloat16Matrix = 5118;

std::string spirv_val_path() {
  if (const char* env = std::getenv("MLX_LITE_SPIRV_VAL")) return env;
  const char* cache = std::getenv("XDG_CACHE_HOME");
  const std::string base =
      cache != nullptr ? std::string(cache) : std::string(std::getenv("HOME")) + "/.cache";
  return base + "/mlx_lite/spirv-tools/spirv-val";
}

// spirv-val's verdict on `spirv` for Vulkan 1.2: "" where valid, else its
// messages.
std::string validate(const std::vector<uint32_t>& spirv) {
  const std::string tool = spirv_val_path();
  if (!std::filesystem::exists(tool)) {
    ADD_FAILURE() << "no spirv-val at " << tool << ": scripts/fetch_spirv_val.sh fetches it";
    return "(not validated)";
  }
  const auto dir = std::filesystem::temp_directory_path();
  const std::string file = (dir / ("mlx_khr_" + std::to_string(getpid()) + ".spv")).string();
  std::ofstream(file, std::ios::binary)
      .write(reinterpret_cast<const char*>(spirv.data()), spirv.size() * 4);
  std::string out;
  FILE* p = popen((tool + " --target-env vulkan1.2 " + file + " 2>&1").c_str(), "r");
  char buf[512];
  while (p != nullptr && fgets(buf, sizeof(buf), p) != nullptr) out += buf;
  const int status = p != nullptr ? pclose(p) : -1;
  std::filesystem::remove(file);
  return status == 0 ? "" : "spirv-val: " + out;
}

struct Census {
  std::multiset<uint32_t> uses;             // of the KHR matrix types
  std::map<uint32_t, uint32_t> components;  // use -> component type id
  std::set<uint32_t> bfloat16_types;        // OpTypeFloat 16 BFloat16KHR
  std::set<uint32_t> capabilities;
  size_t nv_instructions = 0;
};

Census census(const std::vector<uint32_t>& spirv) {
  Census c;
  std::map<uint32_t, uint32_t> constants;  // id -> value
  for (size_t i = 5; i < spirv.size();) {
    const uint32_t op = spirv[i] & 0xffffu, words = spirv[i] >> 16;
    const uint32_t* w = &spirv[i + 1];
    if (op == kOpCapability) c.capabilities.insert(w[0]);
    if (op >= kFirstNvMatrixOp && op <= kLastNvMatrixOp) ++c.nv_instructions;
    if (op == kOpConstant) constants[w[1]] = w[2];
    if (op == kOpTypeFloat && words == 4 && w[1] == 16 && w[2] == 0) c.bfloat16_types.insert(w[0]);
    if (op == kOpTypeCooperativeMatrixKHR) {
      const uint32_t use = constants.at(w[5]);
      c.uses.insert(use);
      c.components[use] = w[1];
    }
    i += words;
  }
  return c;
}

std::vector<uint32_t> builtin(const char* name) {
  const auto s = builtin_shader(name);
  return {s.begin(), s.end()};
}

// A custom kernel's SPIR-V as generated for a device with matrix units.
std::vector<uint32_t> kernel_on_matrix_units(const std::string& source,
                                             const std::string& header = "") {
  const std::vector<std::pair<std::string, fast::TemplateArg>> t = {{"T", float32}};
  KernelSourceRequest r{.name = "khr_test",
                        .input_names = {"a", "b"},
                        .output_names = {"c"},
                        .source = source,
                        .header = header,
                        .input_dtypes = {float16, float16},
                        .output_dtypes = {float32},
                        .input_ndims = {2, 2},
                        .template_args = t,
                        .simd = {.subgroups32 = true, .float16 = true},
                        .matrix_units = true};
  const GeneratedKernel g = generate_kernel_source(r);
  return glsl_to_spirv(r.name, g.glsl, header, source);
}

}  // namespace

TEST(KhrCooperativeMatrix, BuiltinMatmulTranslatesToValidKhrSpirv) {
  for (const char* name : {"matmul_coop_float16", "matmul_coop_float16_f32"}) {
    const std::vector<uint32_t> nv = builtin(name);
    ASSERT_TRUE(census(nv).capabilities.contains(kCapabilityNv)) << name;
    const std::vector<uint32_t> khr = translate_to_khr_cooperative_matrix(nv);
    EXPECT_EQ(validate(khr), "") << name;
    const Census c = census(khr);
    EXPECT_EQ(c.nv_instructions, 0u) << name;
    EXPECT_FALSE(c.capabilities.contains(kCapabilityNv)) << name;
    EXPECT_TRUE(c.capabilities.contains(kCapabilityKhr)) << name;
    // One float16 fragment type of NV became the A and the B type, beside
    // the float32 accumulators.
    EXPECT_EQ(c.uses, (std::multiset<uint32_t>{0, 1, 2})) << name;
    EXPECT_EQ(c.components.at(0), c.components.at(1)) << name;
    EXPECT_NE(c.components.at(0), c.components.at(2)) << name;
    EXPECT_TRUE(c.bfloat16_types.empty()) << name;
  }
}

TEST(KhrCooperativeMatrix, Bfloat16OperandsBecomeBfloat16Fragments) {
  for (const char* name : {"matmul_coop_bfloat16", "matmul_coop_bfloat16_f32"}) {
    const std::vector<uint32_t> khr =
        translate_to_khr_cooperative_matrix(builtin(name), {.float16_as_bfloat16 = true});
    EXPECT_EQ(validate(khr), "") << name;
    const Census c = census(khr);
    EXPECT_EQ(c.nv_instructions, 0u) << name;
    EXPECT_TRUE(c.capabilities.contains(kCapabilityBFloat16Type)) << name;
    EXPECT_TRUE(c.capabilities.contains(kCapabilityBFloat16Matrix)) << name;
    ASSERT_EQ(c.uses, (std::multiset<uint32_t>{0, 1, 2})) << name;
    ASSERT_EQ(c.bfloat16_types.size(), 1u) << name;
    EXPECT_TRUE(c.bfloat16_types.contains(c.components.at(0))) << name;
    EXPECT_TRUE(c.bfloat16_types.contains(c.components.at(1))) << name;
    EXPECT_FALSE(c.bfloat16_types.contains(c.components.at(2))) << name;  // float32
  }
}

TEST(KhrCooperativeMatrix, WorkgroupScopeMatmulTranslates) {
  // Workgroup-scope matrices: the A and B panels, the float32 accumulator
  // and its float16 (bfloat16) conversion that is stored.
  for (const std::string name : {"matmul_workgroup_float16", "matmul_workgroup_bfloat16"}) {
    const bool bf16 = name.ends_with("bfloat16");
    const std::vector<uint32_t> khr =
        translate_to_khr_cooperative_matrix(builtin(name.c_str()), {.float16_as_bfloat16 = bf16});
    EXPECT_EQ(validate(khr), "") << name;
    const Census c = census(khr);
    EXPECT_EQ(c.nv_instructions, 0u) << name;
    EXPECT_EQ(c.uses, (std::multiset<uint32_t>{0, 1, 2, 2})) << name;
    EXPECT_EQ(c.bfloat16_types.size(), bf16 ? 1u : 0u) << name;
    if (bf16) {
      EXPECT_TRUE(c.bfloat16_types.contains(c.components.at(0))) << name;
      EXPECT_TRUE(c.bfloat16_types.contains(c.components.at(1))) << name;
    }
  }
}

TEST(KhrCooperativeMatrix, ModulesWithoutMatricesKeepTheirCapabilities) {
  const std::vector<uint32_t> nv = builtin("binary_float32");
  const std::vector<uint32_t> out = translate_to_khr_cooperative_matrix(nv);
  EXPECT_EQ(validate(out), "");
  EXPECT_EQ(census(out).capabilities, census(nv).capabilities);
  EXPECT_TRUE(census(out).uses.empty());
}

TEST(KhrCooperativeMatrix, CustomKernelMatricesTranslate) {
  // The guide's simdgroup matmul (arrays of tiles, loads from shared
  // memory, fills, stores through shared memory) and the API's other calls:
  // multiply without an accumulator, a float32 tile loaded from memory, a
  // float16 store.
  const std::string others = R"(
    simdgroup_half16x16 x, y;
    simdgroup_float16x16 p, q;
    simdgroup_load(x, a, 0u, 16u, false);
    simdgroup_load(y, b, 0u, 16u, true);
    simdgroup_multiply(p, x, y);
    simdgroup_load(q, c, 0u, 16u, false);
    simdgroup_multiply_accumulate(q, x, y, q);
    simdgroup_store(q, c, 0u, 16u, false);
    simdgroup_store(p, c, 256u, 16u, true);
    simdgroup_half16x16 h;
    simdgroup_fill(h, 2.0);
    simdgroup_store(h, a_copy, 0u, 16u, false);
  )";
  const std::string header = "shared float16_t a_copy[256];\n";
  const std::vector<std::pair<std::string, std::vector<uint32_t>>> kernels = {
      {"simdgroup_matmul",
       kernel_on_matrix_units(examples::kSimdgroupMatmulSource, examples::kSimdgroupMatmulHeader)},
      {"other calls", kernel_on_matrix_units(others, header)}};
  for (const auto& [what, nv] : kernels) {
    ASSERT_TRUE(census(nv).capabilities.contains(kCapabilityNv)) << what;
    const std::vector<uint32_t> khr = translate_to_khr_cooperative_matrix(nv);
    EXPECT_EQ(validate(khr), "") << what;
    EXPECT_EQ(census(khr).nv_instructions, 0u) << what;
    EXPECT_TRUE(census(khr).uses.contains(0) && census(khr).uses.contains(1)) << what;
  }
}

TEST(KhrCooperativeMatrix, ATileThatIsBothOperandsIsRefused) {
  // x is the A of one product and the B of another: no single KHR type.
  const std::vector<uint32_t> nv = kernel_on_matrix_units(R"(
    simdgroup_half16x16 x;
    simdgroup_float16x16 acc;
    simdgroup_fill(acc, 0.0);
    simdgroup_load(x, a, 0u, 16u, false);
    simdgroup_multiply_accumulate(acc, x, x, acc);
    simdgroup_store(acc, c, 0u, 16u, false);
  )");
  try {
    translate_to_khr_cooperative_matrix(nv);
    FAIL() << "translated a tile used as A and B";
  } catch (const KhrTranslationError& e) {
    EXPECT_CONTAINS(std::string(e.what()), "both the A operand and the B operand");
    EXPECT_CONTAINS(std::string(e.what()), "one use");
  }
}

TEST(KhrCooperativeMatrix, MalformedModulesAreRefused) {
  EXPECT_THROW(translate_to_khr_cooperative_matrix(std::vector<uint32_t>{1, 2, 3}),
               KhrTranslationError);
  // The last instruction cut short: its word count runs past the end.
  std::vector<uint32_t> truncated = builtin("matmul_coop_float16");
  size_t last = 5;
  for (size_t i = 5; i < truncated.size(); i += truncated[i] >> 16) {
    if ((truncated[i] >> 16) > 1) last = i;
  }
  truncated.resize(last + 1);
  EXPECT_THROW(translate_to_khr_cooperative_matrix(truncated), KhrTranslationError);
}
