#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_cooperative_matrix : require
#extension GL_NV_cooperative_matrix2 : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_control_flow_attributes : require
// EXPERIMENT (not committed): matmul_workgroup.comp with the panels loaded
// by VK_NV_cooperative_matrix2's tensor addressing straight from memory.
layout(local_size_x = THREADS) in;
#include "common.glsl"
#include "params/matmul_workgroup.h"
#include "shape_block.glsl"
#include "tile_order.glsl"

layout(set = 0, binding = 1) readonly buffer A16 { float16_t a16[]; };
layout(set = 0, binding = 2) readonly buffer B16 { float16_t b16[]; };
layout(set = 0, binding = 3) writeonly buffer C16 { float16_t c16[]; };

const uint TILE_M = TM, TILE_N = TN, STEP_K = BK;

void main() {
  const uint w = uint(workgroup_index());
  const ShapeRef batch_dims = params.batch;
  const uint M = uint(params.M), N = uint(params.N), K = uint(params.K);
  const uint tiles_m = M / TILE_M, tiles_n = N / TILE_N;
  const uint batch = w / (tiles_m * tiles_n);
  const uvec2 tile = tile_coord(w - batch * tiles_m * tiles_n, tiles_m, tiles_n);
  const uint m0 = tile.x * TILE_M, n0 = tile.y * TILE_N;
  const uint a_base = uint(params.a_offset) + locate(batch_dims, 0, int64_t(batch), true);
  const uint b_base = uint(params.b_offset) + locate(batch_dims, 1, int64_t(batch), true);

  // A as M x K (row stride a_row_stride) where k is unit-strided, else as
  // K x M read through a transposing view; B likewise as K x N or N x K.
  tensorLayoutNV<2> la = createTensorLayoutNV(2);
  tensorLayoutNV<2> lb = createTensorLayoutNV(2);
  tensorViewNV<2, false, 1, 0> transposed = createTensorViewNV(2, false, 1, 0);
  if (A_K_FAST) {
    la = setTensorLayoutDimensionNV(la, M, K);
    la = setTensorLayoutStrideNV(la, uint(params.a_row_stride), 1);
  } else {
    la = setTensorLayoutDimensionNV(la, K, M);
    la = setTensorLayoutStrideNV(la, uint(params.a_col_stride), 1);
  }
  if (B_N_FAST) {
    lb = setTensorLayoutDimensionNV(lb, K, N);
    lb = setTensorLayoutStrideNV(lb, uint(params.b_row_stride), 1);
  } else {
    lb = setTensorLayoutDimensionNV(lb, N, K);
    lb = setTensorLayoutStrideNV(lb, uint(params.b_col_stride), 1);
  }

  coopmat<float, gl_ScopeWorkgroup, TILE_M, TILE_N, gl_MatrixUseAccumulator> acc =
      coopmat<float, gl_ScopeWorkgroup, TILE_M, TILE_N, gl_MatrixUseAccumulator>(0.0);
  for (uint k = 0u; k < K; k += STEP_K * UNROLL) {
    [[unroll]] for (uint u = 0u; u < UNROLL; ++u) {
      const uint kk = k + u * STEP_K;
      coopmat<float16_t, gl_ScopeWorkgroup, TILE_M, STEP_K, gl_MatrixUseA> a;
      coopmat<float16_t, gl_ScopeWorkgroup, STEP_K, TILE_N, gl_MatrixUseB> b;
      if (A_K_FAST) {
        coopMatLoadTensorNV(a, a16, a_base, sliceTensorLayoutNV(la, m0, TILE_M, kk, STEP_K));
      } else {
        coopMatLoadTensorNV(a, a16, a_base, sliceTensorLayoutNV(la, kk, STEP_K, m0, TILE_M), transposed);
      }
      if (B_N_FAST) {
        coopMatLoadTensorNV(b, b16, b_base, sliceTensorLayoutNV(lb, kk, STEP_K, n0, TILE_N));
      } else {
        coopMatLoadTensorNV(b, b16, b_base, sliceTensorLayoutNV(lb, n0, TILE_N, kk, STEP_K), transposed);
      }
      acc = coopMatMulAdd(a, b, acc);
    }
  }
  coopmat<float16_t, gl_ScopeWorkgroup, TILE_M, TILE_N, gl_MatrixUseAccumulator> c =
      coopmat<float16_t, gl_ScopeWorkgroup, TILE_M, TILE_N, gl_MatrixUseAccumulator>(acc);
  tensorLayoutNV<2> lc = createTensorLayoutNV(2);
  lc = setTensorLayoutDimensionNV(lc, M, N);
  lc = setTensorLayoutStrideNV(lc, N, 1);
  coopMatStoreTensorNV(c, c16, batch * M * N, sliceTensorLayoutNV(lc, m0, TILE_M, n0, TILE_N));
}
