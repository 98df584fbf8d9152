// Tiled attention with online softmax (the guide's scripts/attention_kernel.py,
// references/attention-kernel-guide.md) and its variants
// (scripts/attention_variants_kernel.py, references/attention-variants-guide.md):
//   out = softmax(q k^T / sqrt(dim) + mask) v
// q (batch, heads, q_len, dim), k and v (batch, kv_heads, kv_len, dim), all
// float32 or float16, computed in float32 and rounded once to q's dtype.
//   mask none            every query sees every key;
//   mask causal          query i sees keys j <= i (top-left aligned, as
//                        PyTorch's is_causal);
//   mask sliding_window  query i sees keys i - window < j <= i;
//   GQA                  kv_heads divides heads: query head h reads kv head
//                        h / (heads / kv_heads) (MQA when kv_heads is 1).
//
// One threadgroup serves BQ = 4 consecutive queries of one (batch, head), one
// 32-wide simdgroup per query; grid (128 * ceil(q_len / 4), batch * heads, 1),
// threadgroup (128, 1, 1). The block's queries, scaled, are loaded once into
// threadgroup memory; then the keys the block needs ([lo, hi): the mask's
// bounds for its first and last query) are walked in tiles of BK = 32:
//   1. the tile of k into threadgroup memory (rows padded to dim + 1 floats,
//      so that lane j reading row j hits its own bank);
//   2. lane j scores key k0 + j against its simdgroup's query (a dim-long
//      dot product; masked or past-the-end keys score -inf);
//   3. online softmax: the tile's max by simd_max, the running max m,
//      the rescale exp(m_old - m) of the running sum l and of the
//      accumulator, p_j = exp(s_j - m), l += simd_sum(p);
//   4. the tile of v into the same threadgroup memory, and each lane adds
//      sum_j p_j v[j, e] into its dim / 32 output elements e = lane + 32c.
// Every thread of the threadgroup runs the same tiles (lo and hi are the
// block's), so the barriers and the simd_* calls are reached by all, as they
// require where 32-wide simdgroups are emulated; queries past q_len compute
// and do not write. Tiles wholly above the diagonal (causal) or below the
// window are skipped, not masked: the causal kernel does about half the work.
// dim must be a multiple of 32, at most 256 (threadgroup memory).
#pragma once

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <stdexcept>

#include "mlx_lite/mlx_lite.h"

namespace mlx_lite::examples {

inline constexpr const char* kAttentionHeader = R"(
#define BK 32
#define KSTRIDE (D + 1)
shared float kv_tile[BK * KSTRIDE];  // a tile of k, then of v
shared float q_tile[BQ * D];         // the block's queries, scaled
shared float p_tile[BQ * BK];        // each query's weights for the tile
)";

inline constexpr const char* kAttentionSource = R"(
  float NEG_INF = uintBitsToFloat(0xff800000u);  // GLSL has no INFINITY
  uint lane = thread_index_in_simdgroup;
  uint sg = simdgroup_index_in_threadgroup;  // the block's query this simdgroup serves
  uint t = thread_index_in_threadgroup;
  uint nthreads = uint(32 * BQ);
  uint heads = uint(q_shape[1]), kv_heads = uint(k_shape[1]);
  uint q_len = uint(q_shape[2]), kv_len = uint(k_shape[2]);
  uint plane = threadgroup_position_in_grid.y;  // batch * heads + head
  uint b = plane / heads, h = plane % heads;
  uint kv_plane = b * kv_heads + h / (heads / kv_heads);
  uint q_first = plane * q_len * uint(D);
  uint kv_first = kv_plane * kv_len * uint(D);
  uint q0 = threadgroup_position_in_grid.x * uint(BQ);
  uint qi = q0 + sg;

  float scale = inversesqrt(float(D));
  for (uint e = t; e < uint(BQ * D); e += nthreads) {
    uint r = q0 + e / uint(D);
    q_tile[e] = r < q_len ? float(q[q_first + r * uint(D) + e % uint(D)]) * scale : 0.0;
  }

  // The keys any query of the block may see.
  uint q_last = min(q0 + uint(BQ), q_len) - 1u;
  uint lo = 0u, hi = kv_len;
  if (MASK >= 1) hi = min(kv_len, q_last + 1u);
  if (MASK == 2) lo = q0 + 1u > uint(WINDOW) ? q0 + 1u - uint(WINDOW) : 0u;

  float m = NEG_INF, l = 0.0;
  float acc[D / 32];
  for (int c = 0; c < D / 32; ++c) acc[c] = 0.0;

  for (uint k0 = lo; k0 < hi; k0 += uint(BK)) {
    threadgroup_barrier(mem_flags::mem_threadgroup);  // the last tile's readers are done
    for (uint e = t; e < uint(BK * D); e += nthreads) {
      uint r = e / uint(D), col = e % uint(D);
      kv_tile[r * uint(KSTRIDE) + col] = k0 + r < hi ? float(k[kv_first + (k0 + r) * uint(D) + col]) : 0.0;
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);

    uint j = k0 + lane;
    float s = 0.0;
    for (uint e = 0u; e < uint(D); ++e) s += q_tile[sg * uint(D) + e] * kv_tile[lane * uint(KSTRIDE) + e];
    bool seen = j < hi && qi < q_len;
    if (MASK >= 1) seen = seen && j <= qi;
    if (MASK == 2) seen = seen && j + uint(WINDOW) > qi;
    s = seen ? s : NEG_INF;

    float m_new = max(m, simd_max(s));
    // While every key so far is masked, m stays -inf and nothing is rescaled.
    float p = m_new == NEG_INF ? 0.0 : exp(s - m_new);
    float corr = m_new == NEG_INF ? 1.0 : exp(m - m_new);
    l = l * corr + simd_sum(p);
    m = m_new;
    p_tile[sg * uint(BK) + lane] = p;

    threadgroup_barrier(mem_flags::mem_threadgroup);  // k read, p written
    for (uint e = t; e < uint(BK * D); e += nthreads) {
      uint r = e / uint(D), col = e % uint(D);
      kv_tile[r * uint(KSTRIDE) + col] = k0 + r < hi ? float(v[kv_first + (k0 + r) * uint(D) + col]) : 0.0;
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    for (int c = 0; c < D / 32; ++c) {
      float a = acc[c] * corr;
      for (uint jj = 0u; jj < uint(BK); ++jj) {
        a += p_tile[sg * uint(BK) + jj] * kv_tile[jj * uint(KSTRIDE) + lane + 32u * uint(c)];
      }
      acc[c] = a;
    }
  }
  if (qi < q_len) {
    for (int c = 0; c < D / 32; ++c) {
      out[q_first + qi * uint(D) + lane + 32u * uint(c)] = T(acc[c] / l);
    }
  }
)";

/// Which keys each query sees.
enum class AttentionMask { none = 0, causal = 1, sliding_window = 2 };

/// Queries per threadgroup (one simdgroup each).
inline constexpr int kAttentionQueriesPerGroup = 4;

/// softmax(q k^T / sqrt(dim) + mask) v, shapes as described above; `window`
/// (>= 1) is for AttentionMask::sliding_window.
inline array attention(const array& q, const array& k, const array& v,
                       AttentionMask mask = AttentionMask::none, int window = 0) {
  const bool shapes_ok = q.ndim() == 4 && k.ndim() == 4 && v.shape() == k.shape() &&
                         q.shape(0) == k.shape(0) && q.shape(3) == k.shape(3) && k.shape(1) > 0 &&
                         q.shape(1) % k.shape(1) == 0 && q.shape(3) % 32 == 0 && q.shape(3) <= 256;
  const bool dtypes_ok = (q.dtype() == float32 || q.dtype() == float16) && k.dtype() == q.dtype() &&
                         v.dtype() == q.dtype();
  if (!shapes_ok || !dtypes_ok || (mask == AttentionMask::sliding_window && window < 1)) {
    throw std::invalid_argument(fmt::format(
        "[examples::attention] Expected q (batch, heads, q_len, dim), k and v (batch, kv_heads, "
        "kv_len, dim) of one dtype, float32 or float16, kv_heads dividing heads, dim a multiple "
        "of 32 up to 256, and window >= 1 for a sliding window; got q ({}) {}, k ({}) {}, v ({}) "
        "{}, window {}.",
        fmt::join(q.shape(), ", "), dtype_name(q.dtype()), fmt::join(k.shape(), ", "),
        dtype_name(k.dtype()), fmt::join(v.shape(), ", "), dtype_name(v.dtype()), window));
  }
  static const auto kernel = fast::vulkan_kernel("attention", {"q", "k", "v"}, {"out"},
                                                 kAttentionSource, kAttentionHeader);
  constexpr int bq = kAttentionQueriesPerGroup;
  const int blocks = (q.shape(2) + bq - 1) / bq;
  return kernel({q, k, v}, {q.shape()}, {q.dtype()}, {32 * bq * blocks, q.shape(0) * q.shape(1), 1},
                {32 * bq, 1, 1},
                {{"T", q.dtype()},
                 {"D", q.shape(3)},
                 {"BQ", bq},
                 {"MASK", static_cast<int>(mask)},
                 {"WINDOW", mask == AttentionMask::sliding_window ? window : 0}})[0];
}

}  // namespace mlx_lite::examples
