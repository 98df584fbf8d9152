#version 450
#extension GL_GOOGLE_include_directive : require
// Matmul: C = A (M x K) * B (K x N) for each batch matrix, in float.
//
// Each workgroup of 256 threads (16 x 16) computes one BM x BN tile of C
// (BM = BN = 16 * TILE, TILE = 4 or 8 at build time); thread (tx, ty) holds a
// TILE x TILE micro-tile in registers: rows 4 * ty + 64 * i + r and columns
// 4 * tx + 64 * j + c (i, j < TILE / 4; r, c < 4), so that its operands are
// vec4 reads of shared memory that neighbouring threads take side by side
// (no bank conflicts) and its stores are runs of 4 columns. K advances in
// steps of BK = 16: the threads load the next A and B panels into registers
// while they multiply the current ones out of shared memory.
//
// Operands are read through their strides (transposed or sliced matrices
// need no copy); a spec constant says which dim is unit-strided so that
// neighbouring threads load neighbouring elements. Elements past M, N or K
// load as 0 and outputs past M or N are not stored, so any size works
// (K = 0 gives zeros).
//
// Parameters: params/matmul.h; C is dense row-major from 0. Workgroup w
// (folded into y past the device's limit) computes tile w %
// tiles_per_matrix of matrix w / tiles_per_matrix, counting the batch
// matrices of K split 0, then those of split 1, ...: a long K is split so
// that no invocation loops past lavapipe's cap (backend/vulkan/matmul.cpp),
// each split writing float32 partial products for matmul_partials.comp to
// add up. A_K_FAST and B_N_FAST make loads coalesce for row-major and
// transposed operands alike.
#include "common.glsl"
#include "params/matmul.h"


#include "shape_block.glsl"

layout(set = 0, binding = 1) readonly buffer A { IN_ELEM a_buf[]; };
layout(set = 0, binding = 2) readonly buffer B { IN_ELEM b_buf[]; };
layout(set = 0, binding = 3) writeonly buffer C { OUT_ELEM c_buf[]; };

const uint kThreads = kMatmulThreads;
const uint BM = 16u * TILE;
const uint BN = 16u * TILE;
const uint BK = 16u;
const uint V = TILE / 4u;  // vec4s per micro-tile row or column
// Panels are stored k-major (As[k][m], Bs[k][n]) as vec4s; 4 floats of
// padding per k spread the transposing stores of a k-fast load over banks.
const uint LDA = BM / 4u + 1u;
const uint LDB = BN / 4u + 1u;
shared vec4 As[BK * LDA];
shared vec4 Bs[BK * LDB];

// A panel element's place in the tile: e = t + 256 * i walks the panel in
// the order of the operand's unit-strided dim (rows of `wide` elements by
// BK, or BK by `wide`).
uvec2 panel_coord(uint e, bool k_fast, uint wide) {
  return k_fast ? uvec2(e / BK, e % BK) : uvec2(e % wide, e / wide);  // (m or n, k)
}

// The tile's place and the operands' layout, set once in main().
uint M, N, K, m0, n0, a_base, b_base, ars, acs, brs, bcs;

// Two things made float16 15x slower than bfloat16 on an H100 (float16's
// conversion is a function with branches, bfloat16's a shift):
// - The kernel's per-thread arrays (the next panels, the accumulators) were
//   module-scope (Private) variables, which NVIDIA's compiler then kept in
//   local memory. They are main()'s variables now, passed to the functions
//   below (6x).
// - The next panels were converted as they loaded, and a branch on a loaded
//   value waits for the load: every step waited for memory. They are held
//   as raw bits through the product that hides their latency, and converted
//   on their way into shared memory (2.4x more).

// An element's bits, and its value.
uint element_bits(IN_ELEM v) {
#if IN_BITS == 32
  return floatBitsToUint(v);
#else
  return uint(v);
#endif
}

float element_value(uint bits) {
#if IN_BITS == 32
  return uintBitsToFloat(bits);
#elif IN_BF16
  return bf16_to_float(bits);
#else
  return half_to_float(bits);
#endif
}

// This thread's share of the panels at k0: TILE elements of each, as bits
// (0 is 0.0 in every float dtype).
void load_panels(uint k0, out uint a_next[TILE], out uint b_next[TILE]) {
  for (uint i = 0u; i < TILE; ++i) {
    const uvec2 p = panel_coord(gl_LocalInvocationID.x + kThreads * i, A_K_FAST, BM);
    const uint m = m0 + p.x, ka = k0 + p.y;
    a_next[i] = (m < M && ka < K) ? element_bits(a_buf[a_base + m * ars + ka * acs]) : 0u;
    const uvec2 q = panel_coord(gl_LocalInvocationID.x + kThreads * i, !B_N_FAST, BN);
    const uint n = n0 + q.x, kb = k0 + q.y;
    b_next[i] = (n < N && kb < K) ? element_bits(b_buf[b_base + kb * brs + n * bcs]) : 0u;
  }
}

// acc += the first `steps` k of the panels in shared memory. acc is this
// thread's micro-tile of C: row 4 * i + r holds rows 64 * i + 4 * ty + r of
// the tile, vec4 j columns 64 * j + 4 * tx to 64 * j + 4 * tx + 3.
void multiply_panels(uint steps, inout vec4 acc[TILE][V]) {
  const uint tx = gl_LocalInvocationID.x % 16u, ty = gl_LocalInvocationID.x / 16u;
  for (uint kk = 0u; kk < steps; ++kk) {
    vec4 av[V], bv[V];
    for (uint i = 0u; i < V; ++i) av[i] = As[kk * LDA + ty + 16u * i];
    for (uint j = 0u; j < V; ++j) bv[j] = Bs[kk * LDB + tx + 16u * j];
    for (uint i = 0u; i < V; ++i) {
      for (uint r = 0u; r < 4u; ++r) {
        for (uint j = 0u; j < V; ++j) acc[4u * i + r][j] += av[i][r] * bv[j];
      }
    }
  }
}

void main() {
  const uint t = gl_LocalInvocationID.x;
  const uint tx = t % 16u, ty = t / 16u;
  const uint w = uint(workgroup_index());
  const ShapeRef batch_dims = params.batch;

  M = uint(params.M);
  N = uint(params.N);
  K = uint(params.K);
  const uint tiles_n = (N + BN - 1u) / BN;
  const uint tiles = ((M + BM - 1u) / BM) * tiles_n;
  uint batch = w / tiles;
  uint batches = 1u;
  for (int d = 0; d < batch_dims.ndim; ++d) batches *= uint(dim_extent(batch_dims, d));
  // This workgroup's share of K: [k_begin, K), K lowered to its split's end
  // (the host makes k_chunk at least 1; K = 0 is one split of nothing).
  const uint k_chunk = uint(params.k_chunk);
  const uint splits = max((K + k_chunk - 1u) / k_chunk, 1u);
  const uint split = batch / batches;
  if (split >= splits) return;  // the whole workgroup leaves together
  const uint k_begin = split * k_chunk;
  K = min(K, k_begin + k_chunk);
  const uint tile = w - batch * tiles;
  batch -= split * batches;
  m0 = (tile / tiles_n) * BM;
  n0 = (tile % tiles_n) * BN;
  const uint c_base = (split * batches + batch) * M * N;

  // Offsets are computed modulo 2^32: every element read lies below 2^32 in
  // its buffer, so negative strides wrap to the right place.
  a_base = uint(params.a_offset) + locate(batch_dims, 0, int64_t(batch), true);
  b_base = uint(params.b_offset) + locate(batch_dims, 1, int64_t(batch), true);
  ars = uint(params.a_row_stride);
  acs = uint(params.a_col_stride);
  brs = uint(params.b_row_stride);
  bcs = uint(params.b_col_stride);

  vec4 acc[TILE][V];
  for (uint r = 0u; r < TILE; ++r) {
    for (uint j = 0u; j < V; ++j) acc[r][j] = vec4(0.0);
  }

  uint a_next[TILE], b_next[TILE];
  load_panels(k_begin, a_next, b_next);
  for (uint k0 = k_begin; k0 < K; k0 += BK) {
    barrier();  // everyone is done reading the previous panels
    for (uint i = 0u; i < TILE; ++i) {
      const uvec2 p = panel_coord(t + kThreads * i, A_K_FAST, BM);
      As[p.y * LDA + p.x / 4u][p.x % 4u] = element_value(a_next[i]);
      const uvec2 q = panel_coord(t + kThreads * i, !B_N_FAST, BN);
      Bs[q.y * LDB + q.x / 4u][q.x % 4u] = element_value(b_next[i]);
    }
    barrier();
    // The loads of the following panels overlap the arithmetic below.
    if (k0 + BK < K) load_panels(k0 + BK, a_next, b_next);
    // A whole panel takes the unrolled loop; the last one of a K that is
    // not a multiple of BK skips its zero padding.
    if (k0 + BK <= K) {
      multiply_panels(BK, acc);
    } else {
      multiply_panels(K - k0, acc);
    }
  }

  for (uint i = 0u; i < V; ++i) {
    for (uint r = 0u; r < 4u; ++r) {
      const uint m = m0 + 64u * i + 4u * ty + r;
      if (m >= M) continue;
      for (uint j = 0u; j < V; ++j) {
        for (uint c = 0u; c < 4u; ++c) {
          const uint n = n0 + 64u * j + 4u * tx + c;
          if (n < N) c_buf[c_base + m * N + n] = store_out(acc[4u * i + r][j][c]);
        }
      }
    }
  }
}
