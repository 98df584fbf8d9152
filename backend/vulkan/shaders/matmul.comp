#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// Matmul: C = A (M x K) * B (K x N) for each batch matrix, in float.
//
// Each workgroup computes one TILE x TILE tile of C (TILE = 64 or 128 at
// build time) on TX x TY threads (TX = 16 along n; TY = 8 or 16 along m):
// thread (tx, ty) holds a TM x TN micro-tile in registers (8 x 4 or 8 x 8):
// rows 4 * ty + 4 * TY * i + r and columns 4 * tx + 4 * TX * j + c (i <
// TM / 4, j < TN / 4; r, c < 4), so that its operands are vec4 reads of
// shared memory that neighbouring threads take side by side (no bank
// conflicts) and its stores are runs of 4 columns. K advances in
// steps of BK = 16 (8 where SHORT_STEP, for 64 x 64 tiles over many
// workgroups) through a double buffer in shared memory: the threads
// load the next A and B panels into registers while they multiply the
// current ones, then store them into the other half (one barrier a step).
//
// Operands are read through their strides (transposed or sliced matrices
// need no copy); a spec constant says which dim is unit-strided so that
// neighbouring threads load neighbouring elements. Where that dim's runs of
// 4 elements are aligned and whole (A_VEC, B_VEC; the host checks), each
// thread loads runs of 4 as one vector. A 32-bit operand read along k
// (A_PAIRS, B_PAIRS) loads 4 rows by 2 k a thread and stores them as two
// runs of 4 rows, one per k, so that its transposing stores are vectors
// too. Elements past M, N or K load as 0 and outputs past M or N are not
// stored, so any size works (K = 0 gives zeros); where the tiles and steps
// are whole (WHOLE_TILES) the loads skip those checks.
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
#include "tile_order.glsl"

// Runs of 4 elements: a uvec4 of 32-bit elements' bits, or a uvec2 of
// 16-bit ones (the element at offset e lies in run e / 4).
#if IN_BITS == 32
#define RUN uvec4
#else
#define RUN uvec2
#endif
layout(set = 0, binding = 1) readonly buffer A { IN_ELEM a_buf[]; };
layout(set = 0, binding = 1) readonly buffer A4 { RUN a_run[]; };
layout(set = 0, binding = 2) readonly buffer B { IN_ELEM b_buf[]; };
layout(set = 0, binding = 2) readonly buffer B4 { RUN b_run[]; };
layout(set = 0, binding = 1) readonly buffer A2 { uvec2 a_pair[]; };
layout(set = 0, binding = 2) readonly buffer B2 { uvec2 b_pair[]; };
layout(set = 0, binding = 3) writeonly buffer C { OUT_ELEM c_buf[]; };
#if OUT_BITS == 32
layout(set = 0, binding = 3) writeonly buffer C4 { vec4 c_vec4[]; };
#endif

// The tilings of params/matmul.h. On an H200, 64 x 64 tiles ran 1.0-1.14x
// faster (float32, 512^2 to 1024^2, batches, long K) on 128 threads of 8 x
// 4 than on 256 of 4 x 4, whose 2 vec4 reads of shared memory fed 16
// multiply-adds, against 3 for 32 (one 5% slower: 512 x 64^2). 128 x 128
// tiles on 128 threads of 16 x 8, for two workgroups an SM: 255 registers
// and half the rate on an H200 (float32 4096^2 nn).
#if TILE == 128
const uint kThreads = kMatmulTile128Threads, TN = 8u;
#else
const uint kThreads = kMatmulTile64Threads, TN = 4u;
#endif
const uint TM = 8u, TX = 16u, TY = kThreads / TX;
const uint BM = TY * TM;  // = TILE
const uint BN = TX * TN;  // = TILE
#ifdef SHORT_STEP
const uint BK = kMatmulShortStepK;
#else
const uint BK = kMatmulStepK;
#endif
const uint VM = TM / 4u, VN = TN / 4u;  // vec4s per micro-tile column, row
// Panels are stored k-major (As[k][m], Bs[k][n]) as vec4s, two of each (the
// double buffer). Each row k is padded by one vec4 (PAD_ROWS), which
// spreads the transposing stores of a k-fast load over banks, where the
// device's shared memory holds that (33 KiB for 128 x 128 tiles); else
// (lavapipe's 32 KiB) vec4 q of row k lies at q ^ (k % 8) of an unpadded
// row, which spreads them as well and keeps the 8 consecutive vec4s a
// reader takes on distinct banks, but costs an XOR a read: on an H200 the
// padded rows ran float32 4096^2 6% faster.
const uint ROW = BM / 4u + (PAD_ROWS ? 1u : 0u);  // vec4s per k (BM = BN)
const uint PANEL = BK * ROW;
shared vec4 As[2u * PANEL];
shared vec4 Bs[2u * PANEL];

// Where vec4 q of row k of panel buffer `at` (0 or 1) lies.
uint panel_index(uint at, uint k, uint q) {
  return at * PANEL + k * ROW + (PAD_ROWS ? q : q ^ (k & 7u));
}

// Each thread moves SHARE elements of each panel a step: one at a time, or
// as RUNS runs of 4 (*_VEC).
const uint SHARE = BM * BK / kThreads;
const uint RUNS = SHARE / 4u;

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

// Element e of a panel `wide` (BM or BN) by BK, walked along the operand's
// unit-strided dim (k where k_fast): its (m or n, k).
uvec2 panel_coord(uint e, bool k_fast, uint wide) {
  return k_fast ? uvec2(e / BK, e % BK) : uvec2(e % wide, e / wide);
}

// The first element of run r of such a panel (runs of 4 along that dim).
uvec2 run_coord(uint r, bool k_fast, uint wide) {
  return k_fast ? uvec2(r / (BK / 4u), (r % (BK / 4u)) * 4u)
                : uvec2((r % (wide / 4u)) * 4u, r / (wide / 4u));
}

// A run's 4 elements as bits: words at..at + 3 of `next` (32-bit), or
// packed in words at and at + 1 (16-bit).
void put_run(RUN run, inout uint next[SHARE], uint at) {
#if IN_BITS == 32
  [[unroll]] for (uint c = 0u; c < 4u; ++c) next[at + c] = run[c];
#else
  next[at] = run.x;
  next[at + 1u] = run.y;
#endif
}

vec4 run_value(uint next[SHARE], uint at) {
#if IN_BITS == 32
  return uintBitsToFloat(uvec4(next[at], next[at + 1u], next[at + 2u], next[at + 3u]));
#else
  const uint lo = next[at], hi = next[at + 1u];
  return vec4(element_value(lo & 0xffffu), element_value(lo >> 16), element_value(hi & 0xffffu),
              element_value(hi >> 16));
#endif
}

// Whether a panel element lies inside its operand: always, for whole tiles.
// The checks keep reads inside the operands' buffers (elements past M, N or
// K never reach a stored output: the last step stops at K, and rows and
// columns past M and N are not stored), and cost issue slots in the loop
// that feeds the multiply-adds (float32 4096^2 nn on an H200: 11% faster
// without them).
bool inside(bool in_rows, bool in_k) { return WHOLE_TILES || (in_rows && in_k); }

// Pairs of k: each thread's share is one block of 4 rows (m or n) by 2 k,
// which takes every thread where the panel has 8 elements a thread (128 x
// 128 tiles: 32 blocks of rows by 8 pairs). Elsewhere, and for 16-bit
// elements, the flags are ignored. On an H200, float32 4096^2 nn ran 3-5%
// and nt 5-6% faster so (with SUBGROUP_BLOCKS; the stores had been 4
// scalars a run), at 139 to 151 registers against 169 to 171; 64 x 64
// tiles (1024^2) 2% slower.
const bool IN_PAIRS = IN_BITS == 32 && SHARE == 8u;
const bool A_IN_PAIRS = A_PAIRS && IN_PAIRS, B_IN_PAIRS = B_PAIRS && IN_PAIRS;

// This thread's block: its first row and its pair's first k.
uvec2 block_coord() {
  const uint t = gl_LocalInvocationID.x;
  return uvec2(4u * (t / (BK / 2u)), 2u * (t % (BK / 2u)));
}

// The block's 4 pairs at k0 (of rows row0 + the block's, `stride` apart,
// zeros past `rows` or K): k's words in next[0..3], k + 1's in next[4..7].
void load_block(bool is_a, uint base, uint stride, uint row0, uint rows, uint k0,
                inout uint next[SHARE]) {
  const uvec2 p = block_coord();
  [[unroll]] for (uint r = 0u; r < 4u; ++r) {
    const uint row = row0 + p.x + r, at = (base + row * stride + k0 + p.y) / 2u;
    uvec2 v = uvec2(0u);
    if (inside(row < rows, k0 + p.y < K)) v = is_a ? a_pair[at] : b_pair[at];
    next[r] = v.x;
    next[4u + r] = v.y;
  }
}

// This thread's share of the panels at k0, as bits (0 is 0.0 in every float
// dtype): element i of the walk in next[i], run i in words 4 * i on, or a
// block of pairs (load_block).
void load_panels(uint k0, out uint a_next[SHARE], out uint b_next[SHARE]) {
  const uint t = gl_LocalInvocationID.x;
  if (A_IN_PAIRS) {
    load_block(true, a_base, ars, m0, M, k0, a_next);
  } else if (A_VEC) {
    [[unroll]] for (uint i = 0u; i < RUNS; ++i) {
      const uvec2 p = run_coord(t + kThreads * i, A_K_FAST, BM);
      const uint m = m0 + p.x, k = k0 + p.y;
      put_run(inside(m < M, k < K) ? a_run[(a_base + m * ars + k * acs) / 4u] : RUN(0u), a_next,
              4u * i);
    }
  } else {
    [[unroll]] for (uint i = 0u; i < SHARE; ++i) {
      const uvec2 p = panel_coord(t + kThreads * i, A_K_FAST, BM);
      const uint m = m0 + p.x, k = k0 + p.y;
      a_next[i] = inside(m < M, k < K) ? element_bits(a_buf[a_base + m * ars + k * acs]) : 0u;
    }
  }
  if (B_IN_PAIRS) {
    load_block(false, b_base, bcs, n0, N, k0, b_next);
  } else if (B_VEC) {
    [[unroll]] for (uint i = 0u; i < RUNS; ++i) {
      const uvec2 q = run_coord(t + kThreads * i, !B_N_FAST, BN);
      const uint n = n0 + q.x, k = k0 + q.y;
      put_run(inside(n < N, k < K) ? b_run[(b_base + k * brs + n * bcs) / 4u] : RUN(0u), b_next,
              4u * i);
    }
  } else {
    [[unroll]] for (uint i = 0u; i < SHARE; ++i) {
      const uvec2 q = panel_coord(t + kThreads * i, !B_N_FAST, BN);
      const uint n = n0 + q.x, k = k0 + q.y;
      b_next[i] = inside(n < N, k < K) ? element_bits(b_buf[b_base + k * brs + n * bcs]) : 0u;
    }
  }
}

// Stores one share (load_panels') into panel buffer `at`: element by
// element, a run of m or n as one vec4, or a run of k as 4 floats down a
// column.
void store_panel(bool vec, bool k_fast, uint wide, uint at, uint next[SHARE], bool is_a) {
  const uint t = gl_LocalInvocationID.x;
  if (is_a ? A_IN_PAIRS : B_IN_PAIRS) {
    const uvec2 p = block_coord();
    [[unroll]] for (uint c = 0u; c < 2u; ++c) {
      const uint x = panel_index(at, p.y + c, p.x / 4u);
      const vec4 v = uintBitsToFloat(
          uvec4(next[4u * c], next[4u * c + 1u], next[4u * c + 2u], next[4u * c + 3u]));
      if (is_a) {
        As[x] = v;
      } else {
        Bs[x] = v;
      }
    }
    return;
  }
  if (vec) {
    [[unroll]] for (uint i = 0u; i < RUNS; ++i) {
      const uvec2 p = run_coord(t + kThreads * i, k_fast, wide);
      const vec4 v = run_value(next, 4u * i);
      if (k_fast) {
        [[unroll]] for (uint c = 0u; c < 4u; ++c) {
          const uint x = panel_index(at, p.y + c, p.x / 4u);
          if (is_a) {
            As[x][p.x % 4u] = v[c];
          } else {
            Bs[x][p.x % 4u] = v[c];
          }
        }
      } else if (is_a) {
        As[panel_index(at, p.y, p.x / 4u)] = v;
      } else {
        Bs[panel_index(at, p.y, p.x / 4u)] = v;
      }
    }
  } else {
    [[unroll]] for (uint i = 0u; i < SHARE; ++i) {
      const uvec2 p = panel_coord(t + kThreads * i, k_fast, wide);
      const uint x = panel_index(at, p.y, p.x / 4u);
      if (is_a) {
        As[x][p.x % 4u] = element_value(next[i]);
      } else {
        Bs[x][p.x % 4u] = element_value(next[i]);
      }
    }
  }
}

// This thread's (tx, ty): 32 consecutive threads (a subgroup on NVIDIA) take
// 16 x 2 of them, or 8 x 4 where SUBGROUP_BLOCKS (which reads 8 distinct
// vec4s of a B row a k instead of 16, and 4 of an A row instead of 2).
uvec2 thread_xy() {
  const uint t = gl_LocalInvocationID.x;
  if (!SUBGROUP_BLOCKS) return uvec2(t % TX, t / TX);
  const uint group = t / 32u, lane = t % 32u, groups_x = TX / 8u;
  return uvec2((group % groups_x) * 8u + lane % 8u, (group / groups_x) * 4u + lane / 8u);
}

// acc += the first `steps` k of panel buffer `at`. acc is this thread's
// micro-tile of C: row 4 * i + r holds row 4 * TY * i + 4 * ty + r of the
// tile, vec4 j columns 4 * TX * j + 4 * tx to 4 * TX * j + 4 * tx + 3.
void multiply_panels(uint at, uint steps, inout vec4 acc[TM][VN]) {
  const uvec2 xy = thread_xy();
  const uint tx = xy.x, ty = xy.y;
  [[unroll]] for (uint kk = 0u; kk < steps; ++kk) {
    vec4 av[VM], bv[VN];
    [[unroll]] for (uint i = 0u; i < VM; ++i) av[i] = As[panel_index(at, kk, ty + TY * i)];
    [[unroll]] for (uint j = 0u; j < VN; ++j) bv[j] = Bs[panel_index(at, kk, tx + TX * j)];
    [[unroll]] for (uint i = 0u; i < VM; ++i) {
      [[unroll]] for (uint r = 0u; r < 4u; ++r) {
        [[unroll]] for (uint j = 0u; j < VN; ++j) acc[4u * i + r][j] += av[i][r] * bv[j];
      }
    }
  }
}

void store_tile(uint c_base, vec4 acc[TM][VN]) {
  const uvec2 xy = thread_xy();
  const uint tx = xy.x, ty = xy.y;
  [[unroll]] for (uint i = 0u; i < VM; ++i) {
    [[unroll]] for (uint r = 0u; r < 4u; ++r) {
      const uint m = m0 + 4u * TY * i + 4u * ty + r;
      if (m >= M) continue;
      [[unroll]] for (uint j = 0u; j < VN; ++j) {
        const uint n = n0 + 4u * TX * j + 4u * tx;
#if OUT_BITS == 32
        // A row's 4 columns as one vector where N keeps them aligned.
        if (N % 4u == 0u) {
          if (n < N) c_vec4[(c_base + m * N + n) / 4u] = acc[4u * i + r][j];
          continue;
        }
#endif
        [[unroll]] for (uint c = 0u; c < 4u; ++c) {
          if (n + c < N) c_buf[c_base + m * N + n + c] = store_out(acc[4u * i + r][j][c]);
        }
      }
    }
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
  // This workgroup's share of K: [k_begin, K), K lowered to its split's end
  // (the host makes k_chunk a multiple of 16; K = 0 is one split of nothing).
  const uint k_chunk = uint(params.k_chunk);
  const uint splits = max((K + k_chunk - 1u) / k_chunk, 1u);
  const uint split = batch / batches;
  if (split >= splits) return;  // the whole workgroup leaves together
  const uint k_begin = split * k_chunk;
  K = min(K, k_begin + k_chunk);
  const uvec2 tile = tile_coord(w - batch * tiles, tiles_m, tiles_n);
  batch -= split * batches;
  m0 = tile.x * BM;
  n0 = tile.y * BN;
  const uint c_base = (split * batches + batch) * M * N;

  // Offsets are computed modulo 2^32: every element read lies below 2^32 in
  // its buffer, so negative strides wrap to the right place.
  a_base = uint(params.a_offset) + locate(batch_dims, 0, int64_t(batch), true);
  b_base = uint(params.b_offset) + locate(batch_dims, 1, int64_t(batch), true);
  ars = uint(params.a_row_stride);
  acs = uint(params.a_col_stride);
  brs = uint(params.b_row_stride);
  bcs = uint(params.b_col_stride);

  vec4 acc[TM][VN];
  [[unroll]] for (uint r = 0u; r < TM; ++r) {
    [[unroll]] for (uint j = 0u; j < VN; ++j) acc[r][j] = vec4(0.0);
  }

  uint a_next[SHARE], b_next[SHARE];
  load_panels(k_begin, a_next, b_next);
  store_panel(A_VEC, A_K_FAST, BM, 0u, a_next, true);
  store_panel(B_VEC, !B_N_FAST, BN, 0u, b_next, false);
  barrier();
  uint at = 0u;
  for (uint k0 = k_begin; k0 < K; k0 += BK) {
    const bool more = k0 + BK < K;
    // The loads of the following panels overlap the arithmetic below.
    if (more) load_panels(k0 + BK, a_next, b_next);
    // A whole panel takes the unrolled loop; the last one of a K that is
    // not a multiple of BK skips its zero padding.
    if (more || k0 + BK == K) {
      multiply_panels(at, BK, acc);
    } else {
      multiply_panels(at, K - k0, acc);
    }
    // The other buffer was last read before the previous step's barrier.
    at ^= 1u;
    if (more) {
      store_panel(A_VEC, A_K_FAST, BM, at, a_next, true);
      store_panel(B_VEC, !B_N_FAST, BN, at, b_next, false);
    }
    barrier();
  }
  store_tile(c_base, acc);
}
