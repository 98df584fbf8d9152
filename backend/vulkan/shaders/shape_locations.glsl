// Where element i (row-major over the metadata's shape) lies in each of the
// first NUM_OPERANDS operands of the metadata (common.glsl's layout), with
// one division per dim shared by all operands: common.glsl's input_location
// divides again for every operand, which multi-operand kernels (a strided
// copy's source and destination, select's three inputs) would pay per
// element. The including shader defines NUM_OPERANDS and includes
// common.glsl first.
void operand_locations(int64_t i, out int64_t loc[NUM_OPERANDS]) {
  const int ndim = int(meta[1]);
  for (int k = 0; k < NUM_OPERANDS; ++k) loc[k] = meta[2 + ndim + k * (ndim + 1)];
  if (CONTIGUOUS) {
    for (int k = 0; k < NUM_OPERANDS; ++k) loc[k] += i;
    return;
  }
  // 32-bit division whenever the element count allows it, as input_location.
  if (meta[0] <= int64_t(0xffffffffu)) {
    uint j = uint(i);
    for (int d = ndim - 1; d >= 0 && j > 0u; --d) {
      const uint extent = uint(meta[2 + d]);
      const int64_t coord = int64_t(j % extent);
      j /= extent;
      for (int k = 0; k < NUM_OPERANDS; ++k) loc[k] += coord * meta[3 + ndim + k * (ndim + 1) + d];
    }
    return;
  }
  for (int d = ndim - 1; d >= 0 && i > 0; --d) {
    const int64_t extent = meta[2 + d];
    const int64_t coord = i % extent;
    i /= extent;
    for (int k = 0; k < NUM_OPERANDS; ++k) loc[k] += coord * meta[3 + ndim + k * (ndim + 1) + d];
  }
}
