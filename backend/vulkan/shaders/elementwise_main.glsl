// main() of the elementwise shaders (copy, unary, binary, select): calls
// element_at(i, loc), which the including shader defines, for every i < n,
// with loc the operands' locations (shape_locations.glsl).
//
// constant_id 3  ELEMENTS_PER_THREAD: the host sets it above 1 for large
//                arrays (n < 2^32) only: the elements of one thread are
//                processed in sequence, and an output written in place over
//                its input forbids overlapping their loads, which costs
//                latency on small dependent ops.
//   - dense path (CONTIGUOUS): each thread takes this many elements, one
//     sweep apart (i, i + sweep, ...), so every load and store of a subgroup
//     stays consecutive while per-thread index work and the workgroup count
//     shrink.
//   - strided path: runs along the innermost dim, which must then have at
//     least this many elements. Its P = ceil(inner / ELEMENTS_PER_THREAD)
//     threads of one row take elements j, j + P, j + 2P, ... of it, so the
//     divisions over the outer dims happen once per run instead of once per
//     element (likely why a multiply by a broadcast (..., 1) operand ran at
//     half the dense rate on the H100), and the lanes of a subgroup still
//     read consecutive elements of each operand whose innermost stride is 1.
layout(constant_id = 3) const uint ELEMENTS_PER_THREAD = 1;

void element(int64_t i) {
  uint loc[NUM_OPERANDS];
  operand_locations(i, loc);
  element_at(uint(i), loc);
}

// Thread t's run (strided path, n < 2^32).
void run(uint t) {
  const int ndim = int(meta_at(1));
  const uint inner = uint(meta_at(1 + ndim));
  const uint per_row = (inner + ELEMENTS_PER_THREAD - 1u) / ELEMENTS_PER_THREAD;
  uint j;
  uint row = divide(t, per_row, j), unused;
  if (row >= divide(uint(meta_at(0)), inner, unused)) return;
  uint i = row * inner + j;
  uint loc[NUM_OPERANDS], step[NUM_OPERANDS];
  for (int k = 0; k < NUM_OPERANDS; ++k) {
    loc[k] = 0u;
    step[k] = 0u;
  }
  for (int k = 0; k < LOCATED_OPERANDS; ++k) {
    const int base = 2 + ndim + k * (ndim + 1);
    const uint stride = uint(meta_at(base + ndim));
    loc[k] = uint(meta_at(base)) + j * stride;
    step[k] = per_row * stride;
  }
  for (int d = ndim - 2; d >= 0 && row > 0u; --d) {
    uint coord;
    row = divide(row, uint(meta_at(2 + d)), coord);
    for (int k = 0; k < LOCATED_OPERANDS; ++k) loc[k] += coord * uint(meta_at(3 + ndim + k * (ndim + 1) + d));
  }
  for (uint e = 0u; e < ELEMENTS_PER_THREAD && j < inner; ++e, i += per_row, j += per_row) {
    element_at(i, loc);
    for (int k = 0; k < LOCATED_OPERANDS; ++k) loc[k] += step[k];
  }
}

void main() {
  if (ELEMENTS_PER_THREAD > 1u && meta_at(0) <= int64_t(0xffffffffu)) {
    const uint n = uint(meta_at(0));
    uint i = uint(thread_index());
    if (!CONTIGUOUS) {
      run(i);
      return;
    }
    const uint sweep = (n + ELEMENTS_PER_THREAD - 1u) / ELEMENTS_PER_THREAD;
    if (i >= sweep) return;
    for (uint k = 0u; k < ELEMENTS_PER_THREAD && i < n; ++k, i += sweep) element(int64_t(i));
    return;
  }
  const int64_t i = thread_index();
  if (i >= meta_at(0)) return;
  element(i);
}
