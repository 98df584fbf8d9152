// Shared by gather.comp and scatter.comp: their interface (params/indexing.h
// describes it and the threads' work), the index arrays, and where a slice
// lies. The host's side is backend/vulkan/indexing.cpp.
#include "common.glsl"
#include "params/indexing.h"


#define MLX_SHAPE_BLOCK_TABLE IndexArray index_arrays[kMaxIndexArrays];
#include "shape_block.glsl"

layout(set = 0, binding = 3) readonly buffer Idx0 { uint idx0[]; };
layout(set = 0, binding = 4) readonly buffer Idx1 { uint idx1[]; };
layout(set = 0, binding = 5) readonly buffer Idx2 { uint idx2[]; };
layout(set = 0, binding = 6) readonly buffer Idx3 { uint idx3[]; };
layout(set = 0, binding = 7) readonly buffer Idx4 { uint idx4[]; };
layout(set = 0, binding = 8) readonly buffer Idx5 { uint idx5[]; };
layout(set = 0, binding = 9) readonly buffer Idx6 { uint idx6[]; };
layout(set = 0, binding = 10) readonly buffer Idx7 { uint idx7[]; };

// Every thread index fits 32 bits, and then so does every extent and
// element index below, which takes 32-bit division: GPUs emulate 64-bit
// division in tens of instructions.
bool small_indices() { return fits_32_bits(params.n); }

// i / d, with i % d in `rem`.
int64_t divmod(int64_t i, int64_t d, out int64_t rem) {
  if (small_indices()) {
    uint r;
    const uint q = divide(uint(i), uint(d), r);
    rem = int64_t(r);
    return int64_t(q);
  }
  rem = i % d;
  return i / d;
}

uint index_word(int k, uint w) {
  switch (k) {
    case 0: return idx0[w];
    case 1: return idx1[w];
    case 2: return idx2[w];
    case 3: return idx3[w];
    case 4: return idx4[w];
    case 5: return idx5[w];
    case 6: return idx6[w];
    default: return idx7[w];
  }
}

// Element e of index array k, of dtype `kind`, as int64.
int64_t load_index(int k, int64_t e, int64_t kind) {
  if (kind == kIndexUint8 || kind == kIndexInt8) {  // a byte of the word holding it
    const uint b = (index_word(k, uint(e >> 2)) >> (8u * uint(e & 3))) & 0xffu;
    return kind == kIndexInt8 ? int64_t(int(b << 24) >> 24) : int64_t(b);
  }
  if (kind == kIndexUint16 || kind == kIndexInt16) {  // half of the word holding it
    const uint h = (index_word(k, uint(e >> 1)) >> (16u * uint(e & 1))) & 0xffffu;
    return kind == kIndexInt16 ? int64_t(int(h << 16) >> 16) : int64_t(h);
  }
  if (kind == kIndexUint32) return int64_t(index_word(k, uint(e)));
  if (kind == kIndexInt32) return int64_t(int(index_word(k, uint(e))));
  const uint w = uint(e) * 2u;  // int64 (and uint64's bits), little-endian
  return int64_t(uint64_t(index_word(k, w)) | (uint64_t(index_word(k, w + 1u)) << 32));
}

// The offset, in the indexed array, of the start of the slice that index
// position i selects. Indices still out of range after wrapping are clamped
// (clamp true: Gather) or make the result -1 (Scatter drops the slice).
int64_t slice_start(int64_t i, bool clamp_indices) {
  // Locations in uint arithmetic: a binding is indexed with 32 bits, so they
  // matter modulo 2^32 only (shape_block.glsl's locate() says more).
  const ShapeRef r = params.indices;
  uint loc[kMaxIndexArrays];
  for (int k = 0; k < NIDX; ++k) loc[k] = uint(index_arrays[k].offset);
  // One walk over the index dims serves every index array (they share a shape).
  for (int d = r.ndim - 1; d >= 0 && i > 0; --d) {
    int64_t c;
    i = divmod(i, dim_extent(r, d), c);
    for (int k = 0; k < NIDX; ++k) loc[k] += uint(c) * uint(dim_stride(r, k, d));
  }
  uint start = 0u;
  for (int k = 0; k < NIDX; ++k) {
    const IndexArray a = index_arrays[k];
    int64_t v = load_index(k, int64_t(loc[k]), a.kind);
    if (v < 0) v += a.extent;
    if (clamp_indices) {
      v = clamp(v, int64_t(0), a.hi);
    } else if (v < 0 || v > a.hi) {
      return -1;
    }
    start += uint(v) * uint(a.axis_stride);
  }
  return int64_t(start);
}

// The offset, in the indexed array, of slice element j, plus the array's own
// offset.
int64_t slice_offset(int64_t j) {
  return params.indexed_offset + int64_t(locate(params.slice, 0, j, small_indices()));
}
