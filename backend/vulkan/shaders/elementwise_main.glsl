// main() of the elementwise shaders (copy, unary, binary, select): calls
// element_load(loc) and element_store(i, loc, loaded), which the including
// shader defines, for every i < n, with loc the operands' locations
// (elementwise.glsl says more).
//
// ELEMENTS_PER_THREAD (params/elementwise.h): the host sets it above 1 for large
//                arrays (n < 2^32) only: one thread's elements are its own
//                work, in sequence after its reads, which costs latency on
//                small dependent ops that one element a thread spreads wider.
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
//   On both paths a thread reads all its elements before it writes any: an
//   output may be its input's buffer (donated), and the compiler cannot
//   move a read past a write that might alias it, so element-by-element
//   code would keep one read in flight per thread, too few to cover the
//   memory latency of a large GPU (the H100 needs several per thread).
//   Each thread's writes are to its own elements, read before.

// RUNS_OF_4 (params/elementwise.h): a shader whose every operand has 4-byte
// elements may define HAS_RUN_OF_4 and run_of_4(t, loc), which computes
// output elements 4t to 4t + 3 from one 16-byte load of each input at its
// location of element 4t (RUN_AT: a splat's element four times) into one
// store, as a plain vec4 kernel does: on an H200 the copy primitive's
// scalar loads ran at 0.85x of such a kernel's rate, a fill (a copy of a
// splat) at half a vec4 store kernel's, and a multiply of (rows, 64) by
// (rows, 1) on the strided path at 0.7x.

// The operands the shape block locates: all, or (copy's kCopyDense, whose
// shape block describes the source only) fewer; the others' locations are
// left 0.
#ifndef LOCATED_OPERANDS
#define LOCATED_OPERANDS NUM_OPERANDS
#endif

// Where element i lies in each operand, with one division per dim shared by
// all of them (shape_block.glsl's locate() would divide again per operand).
void operand_locations(int64_t i, out uint loc[NUM_OPERANDS]) {
  const ShapeRef r = params.dims;
  for (int k = 0; k < NUM_OPERANDS; ++k) loc[k] = k < LOCATED_OPERANDS ? uint(params.offset[k]) : 0u;
  if (CONTIGUOUS) {
    for (int k = 0; k < LOCATED_OPERANDS; ++k) loc[k] += is_splat(k) ? 0u : uint(i);
    return;
  }
  if (fits_32_bits(params.n)) {
    uint j = uint(i);
    for (int d = r.ndim - 1; d >= 0 && j > 0u; --d) {
      uint coord;
      j = divide(j, uint(dim_extent(r, d)), coord);
      for (int k = 0; k < LOCATED_OPERANDS; ++k) loc[k] += coord * uint(dim_stride(r, k, d));
    }
    return;
  }
  for (int d = r.ndim - 1; d >= 0 && i > 0; --d) {
    const int64_t e = dim_extent(r, d);
    const uint coord = uint(i % e);
    i /= e;
    for (int k = 0; k < LOCATED_OPERANDS; ++k) loc[k] += coord * uint(dim_stride(r, k, d));
  }
}

void element(int64_t i) {
  uint loc[NUM_OPERANDS];
  operand_locations(i, loc);
  element_store(uint(i), loc, element_load(loc));
}

// Thread t's run (strided path, n < 2^32): its reads first, then its writes
// (which repeat the walk of the locations).
void run(uint t) {
  const ShapeRef r = params.dims;
  const int last = r.ndim - 1;
  const uint inner = uint(dim_extent(r, last));
  const uint per_row = (inner + ELEMENTS_PER_THREAD - 1u) / ELEMENTS_PER_THREAD;
  uint j;
  uint row = divide(t, per_row, j), unused;
  if (row >= divide(uint(params.n), inner, unused)) return;
  const uint first = row * inner + j;
  uint start[NUM_OPERANDS], step[NUM_OPERANDS];
  for (int k = 0; k < NUM_OPERANDS; ++k) {
    start[k] = 0u;
    step[k] = 0u;
  }
  for (int k = 0; k < LOCATED_OPERANDS; ++k) {
    const uint stride = uint(dim_stride(r, k, last));
    start[k] = uint(params.offset[k]) + j * stride;
    step[k] = per_row * stride;
  }
  for (int d = last - 1; d >= 0 && row > 0u; --d) {
    uint coord;
    row = divide(row, uint(dim_extent(r, d)), coord);
    for (int k = 0; k < LOCATED_OPERANDS; ++k) start[k] += coord * uint(dim_stride(r, k, d));
  }
  // This thread's elements of the row: j, j + per_row, ... while below inner.
  const uint count = min(ELEMENTS_PER_THREAD, (inner - j + per_row - 1u) / per_row);
  LOADED v[ELEMENTS_PER_THREAD];
  uint loc[NUM_OPERANDS] = start;
  for (uint e = 0u; e < count; ++e) {
    v[e] = element_load(loc);
    for (int k = 0; k < LOCATED_OPERANDS; ++k) loc[k] += step[k];
  }
  loc = start;
  for (uint e = 0u; e < count; ++e) {
    element_store(first + e * per_row, loc, v[e]);
    for (int k = 0; k < LOCATED_OPERANDS; ++k) loc[k] += step[k];
  }
}

// Thread t's elements on the dense path: t, t + sweep, ... below n.
void sweep_elements(uint t, uint n) {
  const uint sweep = (n + ELEMENTS_PER_THREAD - 1u) / ELEMENTS_PER_THREAD;
  if (t >= sweep) return;
  const uint count = min(ELEMENTS_PER_THREAD, (n - t + sweep - 1u) / sweep);
  LOADED v[ELEMENTS_PER_THREAD];
  uint loc[NUM_OPERANDS];
  for (uint e = 0u; e < count; ++e) {
    operand_locations(int64_t(t + e * sweep), loc);
    v[e] = element_load(loc);
  }
  for (uint e = 0u; e < count; ++e) {
    operand_locations(int64_t(t + e * sweep), loc);
    element_store(t + e * sweep, loc, v[e]);
  }
}

// Thread t's run of 4 (RUNS_OF_4): as one vector of each operand where the
// shader defines run_of_4(), else element by element. The run lies in one
// row of the innermost dim, so one walk of the dims locates it.
void run_of_4_elements(uint t) {
  if (t >= uint(params.n) / 4u) return;
#ifdef HAS_RUN_OF_4
  uint loc[NUM_OPERANDS];
  operand_locations(int64_t(4u * t), loc);
  run_of_4(t, loc);
#else
  for (uint e = 0u; e < 4u; ++e) element(int64_t(4u * t + e));
#endif
}

void main() {
  if (RUNS_OF_4) {
    run_of_4_elements(uint(thread_index()));
    return;
  }
  if (ELEMENTS_PER_THREAD > 1u && fits_32_bits(params.n)) {
    const uint t = uint(thread_index());
    if (CONTIGUOUS) {
      sweep_elements(t, uint(params.n));
    } else {
      run(t);
    }
    return;
  }
  const int64_t i = thread_index();
  if (i >= params.n) return;
  element(i);
}
