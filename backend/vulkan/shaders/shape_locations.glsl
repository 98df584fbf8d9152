// Where element i (row-major over the metadata's shape) lies in each of the
// first NUM_OPERANDS operands of the metadata (common.glsl's layout), with
// one division per dim shared by all operands: common.glsl's input_location
// divides again for every operand, which multi-operand kernels (a strided
// copy's source and destination, select's three inputs) would pay per
// element. The including shader defines NUM_OPERANDS and includes
// common.glsl first; it may define LOCATED_OPERANDS, the operands the
// metadata actually holds (copy's OP 0 has no destination operand), the
// others' locations are left 0.
#ifndef LOCATED_OPERANDS
#define LOCATED_OPERANDS NUM_OPERANDS
#endif

// Locations are uint, as in common.glsl's input_location: they matter
// modulo 2^32 only.
void operand_locations(int64_t i, out uint loc[NUM_OPERANDS]) {
  const int ndim = int(meta_at(1));
  for (int k = 0; k < NUM_OPERANDS; ++k) {
    loc[k] = k < LOCATED_OPERANDS ? uint(meta_at(2 + ndim + k * (ndim + 1))) : 0u;
  }
  if (CONTIGUOUS) {
    for (int k = 0; k < LOCATED_OPERANDS; ++k) loc[k] += uint(i);
    return;
  }
  if (meta_at(0) <= int64_t(0xffffffffu)) {
    uint j = uint(i);
    for (int d = ndim - 1; d >= 0 && j > 0u; --d) {
      uint coord;
      j = divide(j, uint(meta_at(2 + d)), coord);
      for (int k = 0; k < LOCATED_OPERANDS; ++k) loc[k] += coord * uint(meta_at(3 + ndim + k * (ndim + 1) + d));
    }
  } else {
    for (int d = ndim - 1; d >= 0 && i > 0; --d) {
      const int64_t extent = meta_at(2 + d);
      const uint coord = uint(i % extent);
      i /= extent;
      for (int k = 0; k < LOCATED_OPERANDS; ++k) loc[k] += coord * uint(meta_at(3 + ndim + k * (ndim + 1) + d));
    }
  }
}
