// fast::vulkan_kernel's NAME_vec2 / NAME_vec4 views: the same memory as
// vectors, for kernels that move 8 or 16 bytes per load.
#include <gtest/gtest.h>

#include "gpu_test_util.h"

using namespace mlx_lite;
using gpu_test::kCpu;

namespace {

class KernelVectorViews : public gpu_test::GpuTest {};

TEST_F(KernelVectorViews, Vec4AndVec2MoveTheSameElementsAsScalars) {
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

TEST_F(KernelVectorViews, ViewNamesCollideWithBuffersOfThatName) {
  EXPECT_THROW(fast::vulkan_kernel("k", {"x", "x_vec4"}, {"out"}, ""), std::invalid_argument);
  EXPECT_THROW(fast::vulkan_kernel("k", {"x"}, {"out", "out_vec2"}, ""), std::invalid_argument);
}

}  // namespace
