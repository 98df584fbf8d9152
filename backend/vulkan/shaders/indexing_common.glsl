// Shared by gather.comp and scatter.comp (the host's side is
// backend/vulkan/indexing.cpp). Include after common.glsl.
//
// Both kernels run one thread per element of (index positions) x (slice):
// thread t handles slice element j = t % n_slice of index position
// i = t / n_slice. Index position i selects, in the indexed array (Gather's
// source, Scatter's output), the slice starting at
//   sum over index arrays k of  wrap(idx_k[i]) * stride of axis_k,
// wrap adding the axis' extent to a negative index once, as the CPU does.
//
//   constant_id 3  NIDX, the number of index arrays (at most 8)
//   binding 1      the elements read (Gather's source, Scatter's updates)
//   binding 2      the output
//   binding 3 + k  index array k, read as 32-bit words whatever its integer
//                  dtype; the host binds something readonly to unused ones
//   metadata (int64 words, merged dims throughout):
//     n (threads), n_slice, idx_ndim, idx_shape[idx_ndim],
//     per index array: offset, kind (0 uint8, 1 uint32, 2 int32, 3 int64),
//                      extent of its axis, hi (the largest start that keeps
//                      the slice inside), stride of its axis in the indexed
//                      array, strides[idx_ndim],
//     slice_ndim, slice_shape[slice_ndim], slice_strides[slice_ndim] (in the
//     indexed array), the indexed array's offset,
//     then what the kernel adds (Scatter: the updates' layout).
layout(constant_id = 3) const int NIDX = 1;

layout(set = 0, binding = 3) readonly buffer Idx0 { uint idx0[]; };
layout(set = 0, binding = 4) readonly buffer Idx1 { uint idx1[]; };
layout(set = 0, binding = 5) readonly buffer Idx2 { uint idx2[]; };
layout(set = 0, binding = 6) readonly buffer Idx3 { uint idx3[]; };
layout(set = 0, binding = 7) readonly buffer Idx4 { uint idx4[]; };
layout(set = 0, binding = 8) readonly buffer Idx5 { uint idx5[]; };
layout(set = 0, binding = 9) readonly buffer Idx6 { uint idx6[]; };
layout(set = 0, binding = 10) readonly buffer Idx7 { uint idx7[]; };

const int kMaxIndexArrays = 8;

// i / d, with i % d in `rem`; in 32 bits when every thread index fits
// (then so does every extent), since GPUs emulate 64-bit division.
int64_t divmod(int64_t i, int64_t d, out int64_t rem) {
  if (meta_at(0) <= int64_t(0xffffffffu)) {
    uint r;
    const uint q = divide(uint(i), uint(d), r);
    rem = int64_t(r);
    return int64_t(q);
  }
  rem = i % d;
  return i / d;
}

// The offset of row-major element i of the dims whose extents start at
// meta_at(shape_at), with strides at meta_at(strides_at).
int64_t strided_offset(int64_t i, int ndim, int shape_at, int strides_at) {
  uint loc = 0u;  // modulo 2^32, as slice_start's
  for (int d = ndim - 1; d >= 0 && i > 0; --d) {
    int64_t c;
    i = divmod(i, meta_at(shape_at + d), c);
    loc += uint(c) * uint(meta_at(strides_at + d));
  }
  return int64_t(loc);
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
  if (kind == 0) {  // uint8: a byte of the word holding it
    return int64_t((index_word(k, uint(e >> 2)) >> (8u * uint(e & 3))) & 0xffu);
  }
  if (kind == 1) return int64_t(index_word(k, uint(e)));
  if (kind == 2) return int64_t(int(index_word(k, uint(e))));
  const uint w = uint(e) * 2u;  // int64, little-endian
  return int64_t(uint64_t(index_word(k, w)) | (uint64_t(index_word(k, w + 1u)) << 32));
}

int index_array_at(int k) {
  const int idx_ndim = int(meta_at(2));
  return 3 + idx_ndim + k * (5 + idx_ndim);
}

int slice_at() {
  return index_array_at(NIDX);
}

// Where the kernel's own metadata starts.
int extra_at() {
  return slice_at() + 2 + 2 * int(meta_at(slice_at()));
}

// The offset, in the indexed array, of the start of the slice that index
// position i selects. Indices still out of range after wrapping are clamped
// (clamp true: Gather) or make the result -1 (Scatter drops the slice).
int64_t slice_start(int64_t i, bool clamp_indices) {
  // Locations in uint arithmetic: a binding is indexed with 32 bits, so they
  // matter modulo 2^32 only (common.glsl's input_location says more).
  const int idx_ndim = int(meta_at(2));
  uint loc[kMaxIndexArrays];
  for (int k = 0; k < NIDX; ++k) loc[k] = uint(meta_at(index_array_at(k)));
  // One walk over the index dims serves every index array (they share a shape).
  for (int d = idx_ndim - 1; d >= 0 && i > 0; --d) {
    int64_t c;
    i = divmod(i, meta_at(3 + d), c);
    for (int k = 0; k < NIDX; ++k) loc[k] += uint(c) * uint(meta_at(index_array_at(k) + 5 + d));
  }
  uint start = 0u;
  for (int k = 0; k < NIDX; ++k) {
    const int at = index_array_at(k);
    const int64_t extent = meta_at(at + 2), hi = meta_at(at + 3);
    int64_t v = load_index(k, int64_t(loc[k]), meta_at(at + 1));
    if (v < 0) v += extent;
    if (clamp_indices) {
      v = clamp(v, int64_t(0), hi);
    } else if (v < 0 || v > hi) {
      return -1;
    }
    start += uint(v) * uint(meta_at(at + 4));
  }
  return int64_t(start);
}

// The offset, in the indexed array, of slice element j, plus the array's own
// offset.
int64_t slice_offset(int64_t j) {
  const int at = slice_at();
  const int ndim = int(meta_at(at));
  return meta_at(at + 1 + 2 * ndim) + strided_offset(j, ndim, at + 1, at + 1 + ndim);
}
