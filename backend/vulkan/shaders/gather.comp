#version 450
#extension GL_GOOGLE_include_directive : require
// Gather: out is dense row-major (the index positions, then the slice).
// Elements are only moved, so one variant serves every dtype of a size
// (indexing.cmake). Parameters and indices: params/indexing.h,
// indexing_common.glsl.
#include "indexing_common.glsl"

layout(set = 0, binding = 1) readonly buffer Src { IN_ELEM src[]; };
layout(set = 0, binding = 2) writeonly buffer Out { OUT_ELEM out0[]; };

void main() {
  const int64_t t = thread_index();
  if (t >= params.n) return;
  // Each thread moves RUN consecutive elements of one slice, so the index
  // loads, the clamping and the slice's start are computed once per run, not
  // per element (a grid_sample gather moves 64 channels per point).
  const int64_t n_slice = params.n_slice;
  const int64_t runs = (n_slice + int64_t(RUN) - 1) / int64_t(RUN);
  int64_t run;
  const int64_t i = divmod(t, runs, run);
  const uint start = uint(slice_start(i, true));
  const uint base = uint(i * n_slice);
  for (int64_t j = run * int64_t(RUN), end = min(j + int64_t(RUN), n_slice); j < end; ++j) {
    out0[base + uint(j)] = src[start + uint(slice_offset(j))];
  }
}
