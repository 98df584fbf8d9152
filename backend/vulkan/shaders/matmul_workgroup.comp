#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
// Matmul of 16-bit float operands on workgroup-scope matrices: C = A (M x K)
// * B (K x N) for each batch matrix, float32 accumulation, C in the
// operands' dtype. The whole workgroup holds its TILE_M x TILE_N tile of C
// as one matrix, and multiplies TILE_M x STEP_K panels of A by STEP_K x
// TILE_N panels of B into it; the driver spreads the product over the
// workgroup's threads (VK_NV_cooperative_matrix2's workgroup scope, which
// NVIDIA's driver can map to Hopper's warpgroup instructions; the subgroup
// fragments of matmul_coop.comp reach about 60% of this kernel's rate on an
// H200).
//
// The threads stage each panel through shared memory, in runs of 8
// elements along the operand's unit-strided dim (A_K_FAST, B_N_FAST: a
// transposed operand loads column-major, without a copy), loading the next
// panels into registers while the current ones multiply. Measured on an
// H200 (docs/performance.md, issue 17's seventh part): loading the panels as
// matrices straight from memory was 4 to 5 times slower, rows without their
// run of padding 2 times, and double-buffered panels (one barrier a step)
// slower too. The twenty-first part: loading them by VK_NV_cooperative_
// matrix2's tensor addressing 3 to 4 times slower; storing every layout's
// panels as tn's (k-fast operands transposed in registers, 8 x 8 elements
// at a time) made nn 23% and nt 44% slower.
//
// Written with GL_NV_cooperative_matrix types of workgroup scope (all
// Debian 12's glslang compiles); it runs only as translated for
// VK_KHR_cooperative_matrix (khr_cooperative_matrix.h), float16 as is and
// bfloat16 with every float16 matrix made bfloat16.
//
// Only whole tiles: M, N multiples of the tile, K of the step, and every
// operand's runs of 8 aligned. The host checks all of it and takes
// matmul_coop.comp otherwise. No split of K: C is written in its dtype.
//
// Parameters: params/matmul_workgroup.h (Matmul's push constants; workgroup
// w computes tile w % tiles of batch matrix w / tiles).
#include "common.glsl"
#include "params/matmul_workgroup.h"

#include "shape_block.glsl"
#include "tile_order.glsl"

// The workgroup size, specialized to the same value: NVIDIA's compiler
// reads it from the LocalSize mode, not from the specialized WorkgroupSize
// (left at 1 x 1 x 1 it divides by zero: SIGFPE in libnvidia-glvkspirv,
// driver 580.159.04).
layout(local_size_x = kMatmulWorkgroupThreads) in;

// Every offset and stride below counts runs of 8 elements (16 bytes).
layout(set = 0, binding = 1) readonly buffer A8 { uvec4 a_vec[]; };
layout(set = 0, binding = 2) readonly buffer B8 { uvec4 b_vec[]; };
layout(set = 0, binding = 3) writeonly buffer C8 { uvec4 c_vec[]; };

const uint TILE_M = kMatmulWorkgroupTileM, TILE_N = kMatmulWorkgroupTileN;
const uint STEP_K = kMatmulWorkgroupStepK, kThreads = kMatmulWorkgroupThreads;
#define A_PANEL fcoopmatNV<16, gl_ScopeWorkgroup, TILE_M, STEP_K>
#define B_PANEL fcoopmatNV<16, gl_ScopeWorkgroup, STEP_K, TILE_N>
#define ACCUMULATOR fcoopmatNV<32, gl_ScopeWorkgroup, TILE_M, TILE_N>
#define RESULT fcoopmatNV<16, gl_ScopeWorkgroup, TILE_M, TILE_N>

// A panel's rows (along the operand's unit-strided dim) in runs, and with
// the padding run that spreads a column's reads over banks.
const uint A_ROW_RUNS = (A_K_FAST ? STEP_K : TILE_M) / 8u;
const uint B_ROW_RUNS = (B_N_FAST ? TILE_N : STEP_K) / 8u;
const uint A_ROW = A_ROW_RUNS + 1u, B_ROW = B_ROW_RUNS + 1u;
shared uvec4 As[kMatmulWorkgroupARuns];
shared uvec4 Bs[kMatmulWorkgroupBRuns];
const uint A_RUNS = TILE_M * STEP_K / 8u / kThreads;  // per thread
const uint B_RUNS = STEP_K * TILE_N / 8u / kThreads;

// The tile's place and the operands' layout, set once in main().
uint m0, n0, a_base, b_base, ars, acs, brs, bcs;

// This thread's runs of the panels at k0.
void load_panels(uint k0, out uvec4 a_next[A_RUNS], out uvec4 b_next[B_RUNS]) {
  const uint t = gl_LocalInvocationIndex;
  for (uint i = 0u; i < A_RUNS; ++i) {
    const uint r = t + kThreads * i;
    const uint row = r / A_ROW_RUNS, col = (r % A_ROW_RUNS) * 8u;
    a_next[i] = A_K_FAST ? a_vec[(a_base + (m0 + row) * ars + k0 + col) / 8u]
                         : a_vec[(a_base + (k0 + row) * acs + m0 + col) / 8u];
  }
  for (uint i = 0u; i < B_RUNS; ++i) {
    const uint r = t + kThreads * i;
    const uint row = r / B_ROW_RUNS, col = (r % B_ROW_RUNS) * 8u;
    b_next[i] = B_N_FAST ? b_vec[(b_base + (k0 + row) * brs + n0 + col) / 8u]
                         : b_vec[(b_base + (n0 + row) * bcs + k0 + col) / 8u];
  }
}

void store_panels(uvec4 a_next[A_RUNS], uvec4 b_next[B_RUNS]) {
  const uint t = gl_LocalInvocationIndex;
  for (uint i = 0u; i < A_RUNS; ++i) {
    const uint r = t + kThreads * i;
    As[(r / A_ROW_RUNS) * A_ROW + r % A_ROW_RUNS] = a_next[i];
  }
  for (uint i = 0u; i < B_RUNS; ++i) {
    const uint r = t + kThreads * i;
    Bs[(r / B_ROW_RUNS) * B_ROW + r % B_ROW_RUNS] = b_next[i];
  }
}

void main() {
  const uint w = uint(workgroup_index());
  const ShapeRef batch_dims = params.batch;
  const uint M = uint(params.M), N = uint(params.N), K = uint(params.K);
  const uint tiles_m = M / TILE_M, tiles_n = N / TILE_N;
  const uint batch = w / (tiles_m * tiles_n);
  const uvec2 tile = tile_coord(w - batch * tiles_m * tiles_n, tiles_m, tiles_n);
  m0 = tile.x * TILE_M;
  n0 = tile.y * TILE_N;
  // Offsets are computed modulo 2^32, as in matmul.comp.
  a_base = uint(params.a_offset) + locate(batch_dims, 0, int64_t(batch), true);
  b_base = uint(params.b_offset) + locate(batch_dims, 1, int64_t(batch), true);
  ars = uint(params.a_row_stride);
  acs = uint(params.a_col_stride);
  brs = uint(params.b_row_stride);
  bcs = uint(params.b_col_stride);

  ACCUMULATOR acc = ACCUMULATOR(0.0);
  uvec4 a_next[A_RUNS], b_next[B_RUNS];
  load_panels(0u, a_next, b_next);
  for (uint k = 0u; k < K; k += STEP_K) {
    barrier();  // the previous panels are loaded into matrices by all
    store_panels(a_next, b_next);
    barrier();
    if (k + STEP_K < K) load_panels(k + STEP_K, a_next, b_next);
    A_PANEL a;
    B_PANEL b;
    if (A_K_FAST) {
      coopMatLoadNV(a, As, 0u, A_ROW, false);
    } else {
      coopMatLoadNV(a, As, 0u, A_ROW, true);
    }
    if (B_N_FAST) {
      coopMatLoadNV(b, Bs, 0u, B_ROW, false);
    } else {
      coopMatLoadNV(b, Bs, 0u, B_ROW, true);
    }
    acc = coopMatMulAddNV(a, b, acc);
  }
  const RESULT c = RESULT(acc);
  coopMatStoreNV(c, c_vec, (batch * M * N + m0 * N + n0) / 8u, N / 8u, false);
}
