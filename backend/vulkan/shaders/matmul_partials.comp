#version 450
#extension GL_GOOGLE_include_directive : require
// The second pass of a Matmul whose K was split (backend/vulkan/matmul.cpp):
// thread i adds up element i of each split's float32 partial product, in
// split order, and stores C[i] in C's dtype (OUT). Neighbouring threads read
// neighbouring partials. Parameters: params/matmul_partials.h.
#include "common.glsl"
#include "params/matmul_partials.h"

layout(set = 0, binding = 1) readonly buffer Partials { float partials[]; };
layout(set = 0, binding = 2) writeonly buffer C { OUT_ELEM c_buf[]; };

void main() {
  const int64_t i = thread_index();
  if (i >= params.n) return;
  // Indices in 32 bits: the partials lie in one binding (fewer than 2^32
  // floats). splits is at most 256 (a split to fill the GPU) or K / 2^15
  // (lavapipe's cap): 65,536 at worst, for a K of 2^31 - 1 no binding holds.
  const uint n = uint(params.n), splits = uint(params.splits);
  float sum = 0.0;
  for (uint s = 0u; s < splits; ++s) sum += partials[s * n + uint(i)];
  c_buf[uint(i)] = store_out(sum);
}
