#version 450
#extension GL_GOOGLE_include_directive : require
// Gather: one thread per output element (out is dense row-major: the index
// positions, then the slice). Elements are only moved, so one variant serves
// every dtype of a size (indexing.cmake). Layout and indices:
// indexing_common.glsl.
#include "common.glsl"
#include "indexing_common.glsl"

layout(set = 0, binding = 1) readonly buffer Src { IN_ELEM src[]; };
layout(set = 0, binding = 2) writeonly buffer Out { OUT_ELEM out0[]; };

void main() {
  const int64_t t = thread_index();
  if (t >= meta[0]) return;
  int64_t j;
  const int64_t i = divmod(t, meta[1], j);
  out0[uint(t)] = src[uint(slice_start(i, true) + slice_offset(j))];
}
