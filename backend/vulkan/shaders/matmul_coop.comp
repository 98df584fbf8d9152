#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_control_flow_attributes : require
// Matmul of float16 operands on the matrix units (VK_NV_cooperative_matrix,
// 16 x 16 x 16 fragments, float32 accumulation): C = A (M x K) * B (K x N)
// for each batch matrix, C in OUT's dtype (float16, or float32 for a split
// K's partial products, which matmul_partials.comp adds up). Operands move
// as bits until the fragments load them, so the bfloat16 variants are this
// shader too, whose float16 fragments become bfloat16 when its SPIR-V is
// translated for VK_KHR_cooperative_matrix (khr_cooperative_matrix.h), as
// the float16 ones are on devices without the NV extension.
//
// A workgroup computes one BM x BN tile of C (128 x 128: params/
// matmul_coop.h) with 8 subgroups of 32, each a WM x WN part of it (64 x
// 32). K advances in steps of 16: the threads load the next A and B panels
// from global memory into registers while the subgroups multiply the current ones out of shared memory, then store them
// into the other half of a double buffer (one barrier per step).
//
// Panels keep the operand's layout in shared memory (A as m x k or k x m,
// B as k x n or n x k, whichever dim is unit-strided, by the spec constants
// A_K_FAST and B_N_FAST), so each thread moves runs of 8 elements as one
// 16-byte vector both ways, and the fragment loads transpose by reading
// column-major where needed: transposed operands need no copy. Rows are
// padded by 8 elements (16 bytes), so the 8 rows a fragment load reads at
// once fall in distinct banks. Runs that are not aligned (A_VEC, B_VEC
// false) or cross the matrix's edge load element by element; elements past
// M, N or K are 0, so any size works. Where every tile is whole and every
// run aligned (WHOLE_TILES), the loads check nothing.
//
// The result leaves through shared memory, a 16 x 16 fragment at a time, so
// that stores past M or N are skipped and C's dtype is rounded
// as everywhere else (store_out).
//
// Parameters: params/matmul_coop.h (Matmul's push constants; workgroup w
// counts tiles, then batch matrices, then K splits, as matmul.comp).
#include "common.glsl"
#include "params/matmul_coop.h"

#include "shape_block.glsl"
#include "tile_order.glsl"

layout(set = 0, binding = 1) readonly buffer A { IN_ELEM a_buf[]; };
layout(set = 0, binding = 1) readonly buffer A8 { uvec4 a_vec[]; };
layout(set = 0, binding = 2) readonly buffer B { IN_ELEM b_buf[]; };
layout(set = 0, binding = 2) readonly buffer B8 { uvec4 b_vec[]; };
layout(set = 0, binding = 3) writeonly buffer C { OUT_ELEM c_buf[]; };

const uint BM = kMatmulCoopTileM, BN = kMatmulCoopTileN, BK = kMatmulCoopStepK;
const uint WM = kMatmulCoopWarpM, WN = kMatmulCoopWarpN;
const uint WARPS_N = BN / WN;
const uint kThreads = (BM / WM) * WARPS_N * 32u;  // a subgroup per warp tile
// The host launches kMatmulCoopThreads: a tiling whose warp tiles need
// another count does not compile (an array of negative size).
const int kThreadsMatchTheHost[kThreads == kMatmulCoopThreads ? 1 : -1] = int[](0);
const uint FM = WM / 16u, FN = WN / 16u;  // fragments per subgroup
// A panel in 16-byte vectors of 8 elements: BM x BK as rows along k (or
// BK x BM along m), each padded by one vector. B's likewise.
const uint A_RUNS = BM * BK / 8u / kThreads;  // runs of 8 per thread
const uint B_RUNS = BN * BK / 8u / kThreads;
const uint ROW_K = BK / 8u + 1u;  // a row along k, in vectors
const uint ROW_M = BM / 8u + 1u;
const uint ROW_N = BN / 8u + 1u;
const uint A_PANEL = max(BM * ROW_K, BK * ROW_M);
const uint B_PANEL = max(BN * ROW_K, BK * ROW_N);
shared uvec4 As[2u * A_PANEL];
shared uvec4 Bs[2u * B_PANEL];

// The epilogue's fragment: 16 x 16 floats per subgroup (plus a vector of
// padding per row) in As, which the panels no longer need by then (8
// subgroups take 640 vectors, within As's 2 x 384 at steps of 16 and 128
// rows; a tiling where they do not fit does not compile).
const uint OUT_ROW = 5u;
const int kScratchFitsInAs[(kThreads / 32u) * 16u * OUT_ROW <= 2u * A_PANEL ? 1 : -1] = int[](0);

// The tile's place and the operands' layout, set once in main().
uint M, N, K, m0, n0, a_base, b_base, ars, acs, brs, bcs;

// Run r of a panel: (row, first column) in the panel's own layout, with
// `wide` elements per row.
uvec2 run_coord(uint r, uint wide) { return uvec2(r / (wide / 8u), (r % (wide / 8u)) * 8u); }

uint pack2(uint lo, uint hi) { return lo | (hi << 16); }

// 8 elements of A from (m, k) along k (k_fast) or along m, 0 past the edges.
uvec4 load_a_run(uint m, uint k, bool k_fast) {
  if (WHOLE_TILES || A_VEC && m < M && k < K && (k_fast ? k + 8u <= K : m + 8u <= M)) {
    return a_vec[(a_base + m * ars + k * acs) / 8u];
  }
  uint e[8];
  [[unroll]] for (uint j = 0u; j < 8u; ++j) {
    const uint mj = k_fast ? m : m + j, kj = k_fast ? k + j : k;
    e[j] = mj < M && kj < K ? uint(a_buf[a_base + mj * ars + kj * acs]) : 0u;
  }
  return uvec4(pack2(e[0], e[1]), pack2(e[2], e[3]), pack2(e[4], e[5]), pack2(e[6], e[7]));
}

uvec4 load_b_run(uint k, uint n, bool n_fast) {
  if (WHOLE_TILES || B_VEC && k < K && n < N && (n_fast ? n + 8u <= N : k + 8u <= K)) {
    return b_vec[(b_base + k * brs + n * bcs) / 8u];
  }
  uint e[8];
  [[unroll]] for (uint j = 0u; j < 8u; ++j) {
    const uint kj = n_fast ? k : k + j, nj = n_fast ? n + j : n;
    e[j] = kj < K && nj < N ? uint(b_buf[b_base + kj * brs + nj * bcs]) : 0u;
  }
  return uvec4(pack2(e[0], e[1]), pack2(e[2], e[3]), pack2(e[4], e[5]), pack2(e[6], e[7]));
}

// The kernel's per-thread state lives in main()'s variables, passed to the
// functions below (which inline): as module-scope (Private) variables, the
// accumulators went to local memory on NVIDIA's compiler (30 TFLOP/s on an
// H100 for float16 4096^2, against 95 to 142 as locals).
#define FRAGMENT fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>
#define ACCUMULATOR fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>

// This thread's runs of the panels of step `step` (k from step * BK).
void load_panels(uint step, out uvec4 a_next[A_RUNS], out uvec4 b_next[B_RUNS]) {
  const uint t = gl_LocalInvocationIndex, k0 = step * BK;
  [[unroll]] for (uint i = 0u; i < A_RUNS; ++i) {
    const uvec2 a = run_coord(t + kThreads * i, A_K_FAST ? BK : BM);  // (m, k) or (k, m)
    a_next[i] = A_K_FAST ? load_a_run(m0 + a.x, k0 + a.y, true) : load_a_run(m0 + a.y, k0 + a.x, false);
  }
  [[unroll]] for (uint i = 0u; i < B_RUNS; ++i) {
    const uvec2 b = run_coord(t + kThreads * i, B_N_FAST ? BN : BK);  // (k, n) or (n, k)
    b_next[i] = B_N_FAST ? load_b_run(k0 + b.x, n0 + b.y, true) : load_b_run(k0 + b.y, n0 + b.x, false);
  }
}

// Stores this thread's runs into stage `stage` of the double buffer.
void store_panels(uint stage, uvec4 a_next[A_RUNS], uvec4 b_next[B_RUNS]) {
  const uint t = gl_LocalInvocationIndex;
  [[unroll]] for (uint i = 0u; i < A_RUNS; ++i) {
    const uvec2 a = run_coord(t + kThreads * i, A_K_FAST ? BK : BM);
    As[stage * A_PANEL + a.x * (A_K_FAST ? ROW_K : ROW_M) + a.y / 8u] = a_next[i];
  }
  [[unroll]] for (uint i = 0u; i < B_RUNS; ++i) {
    const uvec2 b = run_coord(t + kThreads * i, B_N_FAST ? BN : BK);
    Bs[stage * B_PANEL + b.x * (B_N_FAST ? ROW_N : ROW_K) + b.y / 8u] = b_next[i];
  }
}

// acc += this subgroup's rows of the A panel times its columns of the B
// panel in shared memory, 16 k at a time.
void multiply_panels(uint stage, uint wm, uint wn, inout ACCUMULATOR acc[FM * FN]) {
  [[unroll]] for (uint kk = 0u; kk < BK; kk += 16u) {
    FRAGMENT a[FM], b[FN];
    [[unroll]] for (uint i = 0u; i < FM; ++i) {
      const uint m = wm + 16u * i;
      if (A_K_FAST) {
        coopMatLoadNV(a[i], As, stage * A_PANEL + m * ROW_K + kk / 8u, ROW_K, false);
      } else {
        coopMatLoadNV(a[i], As, stage * A_PANEL + kk * ROW_M + m / 8u, ROW_M, true);
      }
    }
    [[unroll]] for (uint j = 0u; j < FN; ++j) {
      const uint n = wn + 16u * j;
      if (B_N_FAST) {
        coopMatLoadNV(b[j], Bs, stage * B_PANEL + kk * ROW_N + n / 8u, ROW_N, false);
      } else {
        coopMatLoadNV(b[j], Bs, stage * B_PANEL + n * ROW_K + kk / 8u, ROW_K, true);
      }
    }
    [[unroll]] for (uint i = 0u; i < FM; ++i) {
      [[unroll]] for (uint j = 0u; j < FN; ++j) acc[i * FN + j] = coopMatMulAddNV(a[i], b[j], acc[i * FN + j]);
    }
  }
}

// C's part of this subgroup, a fragment at a time through its own rows of
// As; lanes store neighbouring columns.
void store_result(uint wm, uint wn, uint c_base, ACCUMULATOR acc[FM * FN]) {
  const uint lane = gl_SubgroupInvocationID;
  const uint scratch = gl_SubgroupID * 16u * OUT_ROW;
  [[unroll]] for (uint f = 0u; f < FM * FN; ++f) {
    coopMatStoreNV(acc[f], As, scratch, OUT_ROW, false);
    subgroupMemoryBarrierShared();
    subgroupBarrier();
    [[unroll]] for (uint e = lane; e < 256u; e += 32u) {
      const uint r = e / 16u, c = e % 16u;
      const uint m = m0 + wm + 16u * (f / FN) + r, n = n0 + wn + 16u * (f % FN) + c;
      const float v = uintBitsToFloat(As[scratch + r * OUT_ROW + c / 4u][c % 4u]);
      if (m < M && n < N) c_buf[c_base + m * N + n] = store_out(v);
    }
    subgroupBarrier();  // the fragment is read before the next one lands
  }
}

void main() {
  const uint w = uint(workgroup_index());
  const ShapeRef batch_dims = params.batch;
  M = uint(params.M);
  N = uint(params.N);
  K = uint(params.K);
  const uint tiles_m = (M + BM - 1u) / BM, tiles_n = (N + BN - 1u) / BN;
  const uint tiles = tiles_m * tiles_n;
  uint batch = w / tiles;
  uint batches = 1u;
  for (int d = 0; d < batch_dims.ndim; ++d) batches *= uint(dim_extent(batch_dims, d));
  const uint k_chunk = uint(params.k_chunk);
  const uint splits = max((K + k_chunk - 1u) / k_chunk, 1u);
  const uint split = batch / batches;
  if (split >= splits) return;  // the whole workgroup leaves together
  const uvec2 tile = tile_coord(w - batch * tiles, tiles_m, tiles_n);
  batch -= split * batches;
  m0 = tile.x * BM;
  n0 = tile.y * BN;
  const uint c_base = (split * batches + batch) * M * N;

  // K's split [k_begin, k_end) is walked with k relative to k_begin: the
  // bases move to it, and K becomes the split's length.
  const uint k_begin = split * k_chunk;
  ars = uint(params.a_row_stride);
  acs = uint(params.a_col_stride);
  brs = uint(params.b_row_stride);
  bcs = uint(params.b_col_stride);
  a_base = uint(params.a_offset) + locate(batch_dims, 0, int64_t(batch), true) + k_begin * acs;
  b_base = uint(params.b_offset) + locate(batch_dims, 1, int64_t(batch), true) + k_begin * brs;
  K = min(K, k_begin + k_chunk) - k_begin;

  const uint warp = gl_SubgroupID;
  const uint wm = (warp / WARPS_N) * WM, wn = (warp % WARPS_N) * WN;
  ACCUMULATOR acc[FM * FN];
  [[unroll]] for (uint i = 0u; i < FM * FN; ++i) acc[i] = ACCUMULATOR(0.0);
  const uint steps = (K + BK - 1u) / BK;
  uvec4 a_next[A_RUNS], b_next[B_RUNS];
  load_panels(0u, a_next, b_next);
  store_panels(0u, a_next, b_next);
  barrier();
  for (uint s = 0u; s < steps; ++s) {
    const uint stage = s & 1u;
    const bool more = s + 1u < steps;
    if (more) load_panels(s + 1u, a_next, b_next);
    multiply_panels(stage, wm, wn, acc);
    if (more) store_panels(stage ^ 1u, a_next, b_next);
    barrier();  // the next stage is stored, and this one read by all
  }
  store_result(wm, wn, c_base, acc);
}
