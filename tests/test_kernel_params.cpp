// The parameter headers (backend/vulkan/shaders/params/<family>.h) are one
// declaration read by two compilers: here, the push-constant block and the
// specialization constants that glslang compiled into each family's SPIR-V
// are read back with SPIRV-Cross and compared with the C++ structs the host
// fills, member by member (offsets, sizes, constant ids).
#include <gtest/gtest.h>

#include <cstddef>
#include <spirv_cross.hpp>
#include <string>
#include <vector>

#include "backend/vulkan/builtin_shaders.h"
#include "backend/vulkan/shaders/params/arange.h"
#include "backend/vulkan/shaders/params/arg_reduce.h"
#include "backend/vulkan/shaders/params/elementwise.h"
#include "backend/vulkan/shaders/params/indexing.h"
#include "backend/vulkan/shaders/params/matmul.h"
#include "backend/vulkan/shaders/params/matmul_partials.h"
#include "backend/vulkan/shaders/params/random.h"
#include "backend/vulkan/shaders/params/reduce.h"
#include "backend/vulkan/shaders/params/scan.h"
#include "backend/vulkan/shaders/params/softmax.h"
#include "backend/vulkan/shaders/params/softmax_split.h"
#include "backend/vulkan/shaders/params/sort.h"

namespace {

namespace params = mlx_lite::vulkan::params;

struct Member {
  std::string name;
  size_t offset;
};

struct Layout {
  size_t size;
  std::vector<Member> members;
};

// The push-constant block's `params` member as glslang laid it out.
Layout push_constants(const spirv_cross::Compiler& c) {
  const auto resources = c.get_shader_resources();
  if (resources.push_constant_buffers.size() != 1) return {};
  const auto& block = c.get_type(resources.push_constant_buffers[0].base_type_id);
  const auto& type = c.get_type(block.member_types[0]);  // `params`
  Layout layout{c.get_declared_struct_size(type), {}};
  for (uint32_t i = 0; i < type.member_types.size(); ++i) {
    layout.members.push_back(
        Member{c.get_member_name(type.self, i), c.type_struct_member_offset(type, i)});
  }
  return layout;
}

// Each specialization constant's constant_id, by name.
std::vector<Member> spec_constants(const spirv_cross::Compiler& c) {
  std::vector<Member> out;
  for (const auto& s : c.get_specialization_constants()) {
    out.push_back(Member{c.get_name(s.id), s.constant_id});
  }
  return out;
}

void expect_push_constants(const char* shader, size_t size, const std::vector<Member>& members) {
  const auto words = mlx_lite::vulkan::builtin_shader(shader);
  spirv_cross::Compiler c(std::vector<uint32_t>(words.begin(), words.end()));
  const Layout layout = push_constants(c);
  EXPECT_EQ(layout.size, size) << shader << ": its push constants";
  ASSERT_EQ(layout.members.size(), members.size()) << shader;
  for (size_t i = 0; i < members.size(); ++i) {
    EXPECT_EQ(layout.members[i].name, members[i].name) << shader;
    EXPECT_EQ(layout.members[i].offset, members[i].offset) << shader << " " << members[i].name;
  }
}

// constant_id of each named specialization constant (the C++ struct's
// member index); the workgroup size is local_size_x_id 0, not a constant.
void expect_spec_constants(const char* shader, const std::vector<Member>& constants) {
  const auto words = mlx_lite::vulkan::builtin_shader(shader);
  spirv_cross::Compiler c(std::vector<uint32_t>(words.begin(), words.end()));
  const auto declared = spec_constants(c);
  for (const auto& want : constants) {
    bool found = false;
    for (const auto& got : declared) {
      if (got.name != want.name) continue;
      found = true;
      EXPECT_EQ(got.offset, want.offset) << shader << " " << want.name;
    }
    EXPECT_TRUE(found) << shader << " declares no " << want.name;
  }
}

#define MEMBER(T, m)   \
  Member {             \
#m, offsetof(T, m) \
  }
#define CONSTANT(T, m)     \
  Member {                 \
#m, offsetof(T, m) / 4 \
  }

TEST(KernelParams, ElementwiseShadersAgreeWithTheHost) {
  using P = params::ElementwiseParams;
  using S = params::ElementwiseSpec;
  for (const char* shader :
       {"copy_float32_float16", "unary_int32", "binary_bfloat16_bool", "select_uint8"}) {
    expect_push_constants(shader, sizeof(P), {MEMBER(P, n), MEMBER(P, offset), MEMBER(P, dims)});
    expect_spec_constants(
        shader, {CONSTANT(S, OP), CONSTANT(S, CONTIGUOUS), CONSTANT(S, ELEMENTS_PER_THREAD)});
  }
}

TEST(KernelParams, ReductionShadersAgreeWithTheHost) {
  using P = params::ReduceParams;
  expect_push_constants("reduce_float16_float32", sizeof(P),
                        {MEMBER(P, n), MEMBER(P, rows), MEMBER(P, len), MEMBER(P, groups),
                         MEMBER(P, chunk), MEMBER(P, offset), MEMBER(P, view)});
  expect_spec_constants("reduce_int32_int32", {CONSTANT(params::ReduceSpec, OP),
                                               CONSTANT(params::ReduceSpec, CONTIGUOUS)});
  using A = params::ArgReduceParams;
  expect_push_constants("arg_reduce_float32", sizeof(A),
                        {MEMBER(A, lines), MEMBER(A, groups), MEMBER(A, chunk)});
  expect_spec_constants("arg_reduce_float32", {CONSTANT(params::ArgReduceSpec, OP),
                                               CONSTANT(params::ArgReduceSpec, CONTIGUOUS),
                                               CONSTANT(params::ArgReduceSpec, MODE)});
  using C = params::ScanParams;
  expect_push_constants(
      "scan_int64_int64", sizeof(C),
      {MEMBER(C, lines), MEMBER(C, inner), MEMBER(C, reverse), MEMBER(C, inclusive)});
  expect_spec_constants("scan_int64_int64",
                        {CONSTANT(params::ScanSpec, OP), CONSTANT(params::ScanSpec, CONTIGUOUS),
                         CONSTANT(params::ScanSpec, MODE)});
  expect_push_constants("softmax_bfloat16", sizeof(params::SoftmaxParams),
                        {MEMBER(params::SoftmaxParams, lines)});
  expect_spec_constants("softmax_bfloat16", {CONSTANT(params::SoftmaxSpec, OP),
                                             CONSTANT(params::SoftmaxSpec, CONTIGUOUS),
                                             CONSTANT(params::SoftmaxSpec, ROW_THREADS)});
  using SS = params::SoftmaxSplitParams;
  for (const char* shader : {"softmax_split_stats_float16", "softmax_split_finish_float32"}) {
    expect_push_constants(shader, sizeof(SS),
                          {MEMBER(SS, lines), MEMBER(SS, parts), MEMBER(SS, part_len)});
    expect_spec_constants(shader, {CONSTANT(params::SoftmaxSplitSpec, OP),
                                   CONSTANT(params::SoftmaxSplitSpec, CONTIGUOUS)});
  }
}

TEST(KernelParams, SortShadersAgreeWithTheHost) {
  using P = params::SortParams;
  using S = params::SortSpec;
  for (const char* shader : {"sort_float16_float16", "sort_int64_uint32"}) {
    expect_push_constants(
        shader, sizeof(P),
        {MEMBER(P, lines), MEMBER(P, inner), MEMBER(P, segment), MEMBER(P, width)});
    expect_spec_constants(
        shader, {CONSTANT(S, CONTIGUOUS), CONSTANT(S, PASS), CONSTANT(S, FINAL), CONSTANT(S, ARG)});
  }
}

TEST(KernelParams, OtherShadersAgreeWithTheHost) {
  using M = params::MatmulParams;
  for (const char* shader : {"matmul_float32_tile128", "matmul_bfloat16_f32_tile64"}) {
    expect_push_constants(
        shader, sizeof(M),
        {MEMBER(M, M), MEMBER(M, N), MEMBER(M, K), MEMBER(M, k_chunk), MEMBER(M, a_row_stride),
         MEMBER(M, a_col_stride), MEMBER(M, b_row_stride), MEMBER(M, b_col_stride),
         MEMBER(M, a_offset), MEMBER(M, b_offset), MEMBER(M, batch)});
  }
  expect_spec_constants("matmul_float16_tile64", {CONSTANT(params::MatmulSpec, A_K_FAST),
                                                  CONSTANT(params::MatmulSpec, B_N_FAST)});
  using MP = params::MatmulPartialsParams;
  expect_push_constants("matmul_partials_float16", sizeof(MP), {MEMBER(MP, n), MEMBER(MP, splits)});
  using I = params::IndexingParams;
  for (const char* shader : {"gather_16", "scatter_add_float32_atomic"}) {
    expect_push_constants(
        shader, sizeof(I),
        {MEMBER(I, n), MEMBER(I, n_slice), MEMBER(I, indexed_offset), MEMBER(I, updates_offset),
         MEMBER(I, indices), MEMBER(I, slice), MEMBER(I, updates)});
    expect_spec_constants(
        shader, {CONSTANT(params::IndexingSpec, NIDX), CONSTANT(params::IndexingSpec, RUN)});
  }
  using R = params::RandomParams;
  expect_push_constants("random_uint8", sizeof(R),
                        {MEMBER(R, keys_size), MEMBER(R, keys_offset), MEMBER(R, num_keys),
                         MEMBER(R, per_key), MEMBER(R, num_words), MEMBER(R, keys)});
  expect_spec_constants("random_uint8", {CONSTANT(params::RandomSpec, WIDTH),
                                         CONSTANT(params::RandomSpec, CONTIGUOUS)});
  using G = params::ArangeParams;
  expect_push_constants("arange_float16", sizeof(G),
                        {MEMBER(G, n), MEMBER(G, start_bits), MEMBER(G, step_bits)});
}

// Gather's and scatter's table of index arrays sits before the shape
// block's words, std140: the host writes params::IndexingTable there.
TEST(KernelParams, TheIndexingTableAgreesWithTheHost) {
  const auto words = mlx_lite::vulkan::builtin_shader("scatter_add_int32");
  spirv_cross::Compiler c(std::vector<uint32_t>(words.begin(), words.end()));
  const auto resources = c.get_shader_resources();
  ASSERT_EQ(resources.uniform_buffers.size(), 1u);
  const auto& block = c.get_type(resources.uniform_buffers[0].base_type_id);
  EXPECT_EQ(c.get_member_name(block.self, 0), "index_arrays");
  EXPECT_EQ(c.type_struct_member_offset(block, 0), 0u);
  EXPECT_EQ(c.type_struct_member_array_stride(block, 0), sizeof(params::IndexArray));
  EXPECT_EQ(c.type_struct_member_offset(block, 1), sizeof(params::IndexingTable));
  const auto& entry = c.get_type(block.member_types[0]);
  using A = params::IndexArray;
  for (const Member& m : {MEMBER(A, offset), MEMBER(A, kind), MEMBER(A, extent), MEMBER(A, hi),
                          MEMBER(A, axis_stride)}) {
    bool found = false;
    for (uint32_t i = 0; i < entry.member_types.size(); ++i) {
      if (c.get_member_name(entry.self, i) != m.name) continue;
      found = true;
      EXPECT_EQ(c.type_struct_member_offset(entry, i), m.offset) << m.name;
    }
    EXPECT_TRUE(found) << m.name;
  }
}

}  // namespace
