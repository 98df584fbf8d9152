// Lines (params/lines.h), for the shaders that work on them (arg_reduce,
// scan, softmax): their parameters have a member `lines` and their
// specialization constants a CONTIGUOUS (line r starts at offset + r * len,
// stride 1). Include after the shape block.

// Where line r starts in the input.
int64_t line_start(int64_t r) {
  const Lines l = params.lines;
  if (CONTIGUOUS) return l.offset + r * l.len;
  return l.offset + int64_t(locate(l.kept, 0, r, fits_32_bits(l.rows)));
}
