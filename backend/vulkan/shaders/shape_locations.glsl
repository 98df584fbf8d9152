// Where element i (row-major over the metadata's shape) lies in each of the
// first NUM_OPERANDS operands of the metadata (common.glsl's layout), with
// one division per dim shared by all operands: common.glsl's input_location
// divides again for every operand, which multi-operand kernels (a strided
// copy's source and destination, select's three inputs) would pay per
// element. The including shader defines NUM_OPERANDS and includes
// common.glsl first.
void operand_locations(int64_t i, out int64_t loc[NUM_OPERANDS]) {
  // In uint arithmetic, as common.glsl's input_location: locations matter
  // modulo 2^32 only.
  const int ndim = int(meta[1]);
  uint l[NUM_OPERANDS];
  for (int k = 0; k < NUM_OPERANDS; ++k) l[k] = uint(meta[2 + ndim + k * (ndim + 1)]);
  if (CONTIGUOUS) {
    for (int k = 0; k < NUM_OPERANDS; ++k) loc[k] = int64_t(l[k] + uint(i));
    return;
  }
  if (meta[0] <= int64_t(0xffffffffu)) {
    uint j = uint(i);
    for (int d = ndim - 1; d >= 0 && j > 0u; --d) {
      uint coord;
      j = divide(j, uint(meta[2 + d]), coord);
      for (int k = 0; k < NUM_OPERANDS; ++k) l[k] += coord * uint(meta[3 + ndim + k * (ndim + 1) + d]);
    }
  } else {
    for (int d = ndim - 1; d >= 0 && i > 0; --d) {
      const int64_t extent = meta[2 + d];
      const uint coord = uint(i % extent);
      i /= extent;
      for (int k = 0; k < NUM_OPERANDS; ++k) l[k] += coord * uint(meta[3 + ndim + k * (ndim + 1) + d]);
    }
  }
  for (int k = 0; k < NUM_OPERANDS; ++k) loc[k] = int64_t(l[k]);
}
