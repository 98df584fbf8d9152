// Shared by arg_reduce.comp and scan.comp, which work on lines: the input's
// elements along one axis, one line per element of the other ("kept") dims.
// The host (backend/vulkan/reduction_lines.h) writes the metadata as
//   [rows, ndim, kept shape[ndim], offset, kept strides[ndim], len, stride, ...]
// (the elementwise layout of the kept dims, so input_location(0, r) is where
// line r starts) and element k of line r is at that start + k * stride.
// CONTIGUOUS (constant_id 2) means line r starts at offset + r * len, stride 1.

int lines_tail() { return 2 + 2 * int(meta_at(1)) + 1; }
int64_t lines_rows() { return meta_at(0); }
int64_t lines_len() { return meta_at(lines_tail()); }
int64_t lines_stride() { return meta_at(lines_tail() + 1); }
// The words the family's shader adds after [len, stride].
int64_t lines_extra(int i) { return meta_at(lines_tail() + 2 + i); }

int64_t line_start(int64_t r) {
  if (CONTIGUOUS) return meta_at(2 + int(meta_at(1))) + r * lines_len();
  return input_location(0, r);
}

// The linear index of this workgroup (the host folds wide grids into y).
int64_t workgroup_index() {
  return int64_t(gl_WorkGroupID.x) + int64_t(gl_WorkGroupID.y) * int64_t(gl_NumWorkGroups.x);
}
