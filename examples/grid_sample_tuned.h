// A tuned grid_sample (bilinear, zero padding, align_corners=false; NHWC x
// (N, H, W, C), grid (N, gH, gW, 2), both float32 or both float16) as
// fast::vulkan_kernel bodies: the step beyond the seed's
// one-thread-per-output-element kernels (grid_sample_kernels.h) that issue 6
// asks for.
//
// Dtypes: one source per kernel serves both. The library declares each
// buffer of its array's dtype (float16_t x[], f16vec4 x_vec4[] for float16);
// the template argument F16 names the element types the kernels store
// (kStorage). Every value is loaded into float32 (vec4(x_vec4[i]): 16-bit
// storage only, no float16 arithmetic, so devices without shaderFloat16 run
// it too), the weights, blends and every sum are float32, and each output
// element is rounded once to x's dtype as it is stored: out, x_grad and
// grid_grad have the inputs' dtype. The VJP reads a float32 or float16
// cotangent as it is.
//
// Forward (grid_sample_tuned_forward): the grid point's coordinates and
// weights are computed once per thread, and each thread serves several
// channels through vector loads and stores (x_vec4, out_vec4: vec4, or
// f16vec4 for float16) when C % 4 == 0; one thread per (point, channel)
// otherwise. The four corners are loaded unconditionally from clamped
// addresses and the out-of-image ones zeroed afterwards, so the loads are
// independent and all in flight at once.
// Variants, chosen by the `variant` argument (template argument PTS, VPT):
//   0  one thread per (point, 4 channels): 4 vec4 loads per thread;
//   1  one thread per (point, 8 channels): 8 vec4 loads (C % 8 == 0, else 0);
//   2  one thread per (2 points, 4 channels), the points P/2 apart so each
//      store instruction stays contiguous across the subgroup: 8 vec4 loads.
//
// VJP (grid_sample_tuned_vjp), without float atomics and deterministic:
//   1 count    per point: its cell (n, iy_nw + 1, ix_nw + 1) in an
//              (N, H + 1, W + 1) grid of cells, for points whose corners
//              touch the image. A workgroup takes 256 consecutive points; the
//              ones that share a cell form a run (found through a hash table
//              of cells in shared memory),
//              whose first point reserves the run's slots in the cell's
//              bucket by one atomicAdd(counts[cell], run) (int32): each
//              point's slot = the run's base + its rank in the run.
//   2 offsets  exclusive prefix sum of counts, as rows of 4096 cells: the
//              library's cumsum along the rows, the rows' sums (each row's
//              last offset + its last count) and their exclusive cumsum;
//              offset(c) = local[c] + row_offset[c / 4096].
//   3 scatter  slots[offset(cell) + slot] = point, and each run's length at
//              its first slot: a bucket is its runs, in the atomics' order;
//   4 sort     per point: its rank by index in its bucket = the lengths of
//              the bucket's runs from earlier workgroups + its rank in its
//              run (a walk over the bucket's runs, at most P / 256);
//              sorted[offset(cell) + rank] = point: each bucket in index
//              order, so what follows is deterministic;
//   5 x_grad   one thread per (pixel, 8 channels) when C % 8 == 0, through
//              vec4 loads and stores (4 channels when C % 4 == 0; else 2
//              scalars when C is even, 1 when odd): pixel (h, w) is the nw
//              corner of the points of cell (h + 1, w + 1), the ne of
//              (h + 1, w), the sw of (h, w + 1) and the se of (h, w); it sums
//              weight * cotangent over those buckets in a fixed order and
//              writes each x_grad element once (no zero fill, no atomics);
//   6 grid_grad  TPP lanes of a subgroup per point (TPP a power of two no
//              larger than the subgroup: 8 on lavapipe, 32 on NVIDIA) loop
//              over the channels, then sum by subgroupShuffleXor (a fixed
//              butterfly, so deterministic); scaled by W / 2.0 and H / 2.0.
// Step 5 is a gather: a pixel's threads loop over its four buckets, so a
// cell holding a large share of all points (a grid of zeros, say) makes its
// four pixels' threads loop long; fine for warps, flows and zooms (a few to
// a few hundred points per cell).
//
// Index arithmetic is uint where it can exceed 2^31 / 4 (x of the seed's
// shape has 2^29 elements, its cell grid 8.4M cells).
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "mlx_lite/gpu.h"
#include "mlx_lite/mlx_lite.h"

namespace mlx_lite::examples {

namespace grid_sample_tuned_detail {

// Cells per row of the two-level prefix sum (step 2).
inline constexpr int kRow = 4096;
inline constexpr int kRowShift = 12;
// Points per workgroup of the count kernel (step 1).
inline constexpr int kGroup = 256;

// GLSL shared by every kernel (placed in the header after VEC's #defines):
// a grid point's corners and weights, computed identically everywhere
// (`precise`: no contraction that could differ between shaders).
inline constexpr const char* kCommon = R"(
struct GsPoint {
  int x0, y0;         // the nw corner
  float dx0, dy0;     // ix - x0, iy - y0
  float dx1, dy1;     // x0 + 1 - ix, y0 + 1 - iy
  bool touches;       // some corner lies inside the image
};

// Point p of the grid, read as float whatever the grid's dtype.
GsPoint gs_point(uint p, int H, int W) {
  vec2 g = vec2(grid_vec2[p]);
  GsPoint s;
  precise float ix = ((g.x + 1.0) * float(W) - 1.0) / 2.0;
  precise float iy = ((g.y + 1.0) * float(H) - 1.0) / 2.0;
  precise float fx = floor(ix);
  precise float fy = floor(iy);
  s.touches = fx >= -1.0 && fx <= float(W - 1) && fy >= -1.0 && fy <= float(H - 1);
  s.x0 = s.touches ? int(fx) : -2;
  s.y0 = s.touches ? int(fy) : -2;
  s.dx0 = ix - fx;
  s.dy0 = iy - fy;
  s.dx1 = (fx + 1.0) - ix;
  s.dy1 = (fy + 1.0) - iy;
  return s;
}

// The cell of a touching point in the (N, H + 1, W + 1) cell grid.
uint gs_cell(GsPoint s, uint n, int H, int W) {
  return (n * uint(H + 1) + uint(s.y0 + 1)) * uint(W + 1) + uint(s.x0 + 1);
}
)";

// The element types of the float buffers that the forward, x_grad and
// grid_grad kernels write (ST1, ST2, ST4: scalar, vec2, vec4), float16 where
// the template argument F16 is 1 (x and grid float16), else float32. The
// library declares each buffer, and its _vec2 and _vec4 views, of its own
// dtype (float16_t, f16vec2, f16vec4 for float16); the kernels load every
// value into float (VT(...), vec2(...): 16-bit storage, no float16
// arithmetic), compute and sum in float32, and round once as they store
// (ST(...), ST2(...)).
inline constexpr const char* kStorage = R"(
#if F16
#define ST1 float16_t
#define ST2 f16vec2
#define ST4 f16vec4
#else
#define ST1 float
#define ST2 vec2
#define ST4 vec4
#endif
)";

// Forward. Template args: CH (C), PTS (points per thread), VPT (vectors of
// VEC channels per thread, at v and v + CV / VPT).
inline constexpr const char* kForwardHeader = R"(
const uint CV = uint(CH) / uint(VEC);  // vectors per pixel
const uint TPP = CV / uint(VPT);       // threads per point

VT gs_sample(GsPoint s, uint n, uint v, int H, int W) {
  // Loads from clamped addresses, unconditionally; the outside corners are
  // zeroed after loading, so the four loads are independent.
  int xa = clamp(s.x0, 0, W - 1), xb = clamp(s.x0 + 1, 0, W - 1);
  int ya = clamp(s.y0, 0, H - 1), yb = clamp(s.y0 + 1, 0, H - 1);
  uint ra = (n * uint(H) + uint(ya)) * uint(W), rb = (n * uint(H) + uint(yb)) * uint(W);
  VT i_nw = VT(XV[(ra + uint(xa)) * CV + v]);
  VT i_ne = VT(XV[(ra + uint(xb)) * CV + v]);
  VT i_sw = VT(XV[(rb + uint(xa)) * CV + v]);
  VT i_se = VT(XV[(rb + uint(xb)) * CV + v]);
  bool x0ok = s.x0 >= 0, x1ok = s.x0 + 1 <= W - 1, y0ok = s.y0 >= 0, y1ok = s.y0 + 1 <= H - 1;
  VT zero = VT(0.0);
  VT r = (s.dx1 * s.dy1) * (x0ok && y0ok ? i_nw : zero);
  r += (s.dx0 * s.dy1) * (x1ok && y0ok ? i_ne : zero);
  r += (s.dx1 * s.dy0) * (x0ok && y1ok ? i_sw : zero);
  r += (s.dx0 * s.dy0) * (x1ok && y1ok ? i_se : zero);
  return s.touches ? r : zero;
}
)";

inline constexpr const char* kForwardSource = R"(
  uint t = thread_position_in_grid.x;
  int H = x_shape[1], W = x_shape[2];
  uint ghw = uint(grid_shape[1] * grid_shape[2]);
  uint P = uint(grid_shape[0]) * ghw;
  uint per = (P + uint(PTS) - 1u) / uint(PTS);  // points apart, for PTS = 2
  uint q = t / TPP;
  uint j = t - q * TPP;
  for (int k = 0; k < PTS; ++k) {
    uint p = q + uint(k) * per;
    if (p < P) {
      GsPoint s = gs_point(p, H, W);
      uint n = p / ghw;
      for (int i = 0; i < VPT; ++i) {
        uint v = j + uint(i) * TPP;
        OUT_VIEW[p * CV + v] = ST(gs_sample(s, n, v, H, W));
      }
    }
  }
)";

// Step 1, one workgroup of GS_GROUP points (a chunk of consecutive indices)
// at a time: the points of the chunk that share a cell form a run, whose
// first point (its leader) reserves the run's slots in the cell's bucket by
// one atomicAdd(counts[cell], run). rank: the point's slot in its bucket
// (the run's base, racy across chunks, + its rank by index in the run), -1
// outside; run: the run's length at its leader, else 0. The grid is a
// multiple of GS_GROUP (the barriers): threads past P only take part.
inline constexpr const char* kCountHeader = R"(
const uint NO_CELL = 0xffffffffu;
// The chunk's cells in an open-addressed table of twice the chunk's points:
// a slot's key is a cell, its members the bits of the chunk's points in that
// cell (word w of slot k at gs_members[w][k]).
const uint TABLE = 2u * uint(GS_GROUP);
const uint WORDS = uint(GS_GROUP) / 32u;
shared uint gs_keys[TABLE];
shared uint gs_members[WORDS][TABLE];
shared int gs_base[GS_GROUP];

// The slot of `cell`, claimed for it where no point has yet: the table holds
// at most GS_GROUP keys, so the probe ends within TABLE steps.
uint gs_slot(uint cell) {
  uint k = (cell * 2654435761u) % TABLE;
  for (uint probe = 0u; probe < TABLE; ++probe) {
    const uint was = atomicCompSwap(gs_keys[k], NO_CELL, cell);
    if (was == NO_CELL || was == cell) break;
    k = (k + 1u) % TABLE;
  }
  return k;
}
)";

inline constexpr const char* kCountSource = R"(
  uint p = thread_position_in_grid.x;
  uint li = thread_index_in_threadgroup;
  int H = x_shape[1], W = x_shape[2];
  uint ghw = uint(grid_shape[1] * grid_shape[2]);
  uint P = uint(grid_shape[0]) * ghw;
  for (uint k = li; k < TABLE; k += uint(GS_GROUP)) {
    gs_keys[k] = NO_CELL;
    for (uint w = 0u; w < WORDS; ++w) gs_members[w][k] = 0u;
  }
  uint cell = NO_CELL;
  if (p < P) {
    GsPoint s = gs_point(p, H, W);
    if (s.touches) cell = gs_cell(s, p / ghw, H, W);
  }
  barrier();
  uint slot = 0u;
  if (cell != NO_CELL) {
    slot = gs_slot(cell);
    atomicOr(gs_members[li / 32u][slot], 1u << (li % 32u));
  }
  barrier();
  // The run: the chunk's points in this cell; its leader is the first of
  // them, and `before` counts those ahead of this point.
  uint lead = li;
  int before = 0, size = 0;
  if (cell != NO_CELL) {
    bool found = false;
    for (uint w = 0u; w < WORDS; ++w) {
      const uint bits = gs_members[w][slot];
      const int n = bitCount(bits);
      size += n;
      if (w < li / 32u) before += n;
      if (w == li / 32u) before += bitCount(bits & ((1u << (li % 32u)) - 1u));
      if (!found && bits != 0u) {
        lead = 32u * w + uint(findLSB(bits));
        found = true;
      }
    }
    if (before == 0) gs_base[li] = atomicAdd(counts[cell], size);
  }
  barrier();
  if (p < P) {
    rank[p] = cell != NO_CELL ? gs_base[lead] + before : -1;
    run[p] = cell != NO_CELL && before == 0 ? size : 0;
  }
)";

// offset(c): the start of cell c's bucket.
inline constexpr const char* kOffsetHeader = R"(
int gs_offset(uint c) { return local[c] + row_offset[c >> ROW_SHIFT]; }
)";

// Step 3: each touching point into its bucket's slot; each run's length at
// its first slot.
inline constexpr const char* kScatterSource = R"(
  uint p = thread_position_in_grid.x;
  int H = x_shape[1], W = x_shape[2];
  uint ghw = uint(grid_shape[1] * grid_shape[2]);
  int r = rank[p];
  if (r >= 0) {
    GsPoint s = gs_point(p, H, W);
    int slot = gs_offset(gs_cell(s, p / ghw, H, W)) + r;
    slots[slot] = int(p);
    int n = run[p];
    if (n > 0) runlen[slot] = n;
  }
)";

// Step 4: each touching point's rank by index within its bucket: the
// lengths of the bucket's runs from earlier chunks, plus its rank in its own
// run; a walk over the bucket's runs (at most P / GS_GROUP of them).
inline constexpr const char* kSortSource = R"(
  uint p = thread_position_in_grid.x;
  int H = x_shape[1], W = x_shape[2];
  uint ghw = uint(grid_shape[1] * grid_shape[2]);
  int mine = rank[p];
  if (mine >= 0) {
    GsPoint s = gs_point(p, H, W);
    uint c = gs_cell(s, p / ghw, H, W);
    int b = gs_offset(c), e = gs_offset(c + 1u);
    mine += b;
    uint chunk = p / uint(GS_GROUP);
    int r = 0;
    for (int k = b; k < e;) {
      uint q_chunk = uint(slots[k]) / uint(GS_GROUP);
      int len = max(runlen[k], 1);
      if (q_chunk < chunk) r += len;
      if (q_chunk == chunk) r += mine - k;
      k += len;
    }
    sorted[b + r] = int(p);
  }
)";

// Step 5: x_grad, one thread per (pixel, XVPT vectors of VEC channels).
inline constexpr const char* kXGradHeader = R"(
const uint CV = uint(CH) / uint(VEC);  // vectors per pixel
const uint TPX = CV / uint(XVPT);      // threads per pixel

// Adds weight * cotangent of the points in sorted[b, e) (one cell's bucket,
// in index order), each the corner `role` (0 nw, 1 ne, 2 sw, 3 se) of its
// cell, for the vectors v + i * TPX.
void gs_bucket(inout VT acc[XVPT], int b, int e, int role, uint v, int H, int W) {
  for (int k = b; k < e; ++k) {
    uint q = uint(sorted[k]);
    GsPoint s = gs_point(q, H, W);
    float w = role == 0 ? s.dx1 * s.dy1 : role == 1 ? s.dx0 * s.dy1 : role == 2 ? s.dx1 * s.dy0
                                                                                : s.dx0 * s.dy0;
    for (int i = 0; i < XVPT; ++i) acc[i] += w * VT(CTV[q * CV + v + uint(i) * TPX]);
  }
}
)";

inline constexpr const char* kXGradSource = R"(
  uint t = thread_position_in_grid.x;
  int H = x_shape[1], W = x_shape[2];
  uint pix = t / TPX;
  uint v = t - pix * TPX;
  uint hw = uint(H * W);
  uint n = pix / hw;
  uint rem = pix - n * hw;
  uint h = rem / uint(W);
  uint w = rem - h * uint(W);
  uint row1 = (n * uint(H + 1) + h + 1u) * uint(W + 1) + w;  // cell (h + 1, w)
  uint row0 = row1 - uint(W + 1);                             // cell (h, w)
  // The bucket bounds of cells (h + 1, w .. w + 2) and (h, w .. w + 2).
  int o10 = gs_offset(row1), o11 = gs_offset(row1 + 1u), o12 = gs_offset(row1 + 2u);
  int o00 = gs_offset(row0), o01 = gs_offset(row0 + 1u), o02 = gs_offset(row0 + 2u);
  VT acc[XVPT];
  for (int i = 0; i < XVPT; ++i) acc[i] = VT(0.0);
  gs_bucket(acc, o11, o12, 0, v, H, W);  // cell (h + 1, w + 1): the nw corner
  gs_bucket(acc, o10, o11, 1, v, H, W);  // cell (h + 1, w): the ne corner
  gs_bucket(acc, o01, o02, 2, v, H, W);  // cell (h, w + 1): the sw corner
  gs_bucket(acc, o00, o01, 3, v, H, W);  // cell (h, w): the se corner
  for (int i = 0; i < XVPT; ++i) XGV[pix * CV + v + uint(i) * TPX] = ST(acc[i]);
)";

// Step 6: grid_grad, TPP lanes per point.
inline constexpr const char* kGridGradHeader = R"(
const uint CV = uint(CH) / uint(VEC);
)";

inline constexpr const char* kGridGradSource = R"(
  uint t = thread_position_in_grid.x;
  int H = x_shape[1], W = x_shape[2];
  uint ghw = uint(grid_shape[1] * grid_shape[2]);
  uint p = t / uint(TPP);
  uint lane = t - p * uint(TPP);
  GsPoint s = gs_point(p, H, W);
  vec2 g = vec2(0.0);
  if (s.touches) {
    uint n = p / ghw;
    int xa = clamp(s.x0, 0, W - 1), xb = clamp(s.x0 + 1, 0, W - 1);
    int ya = clamp(s.y0, 0, H - 1), yb = clamp(s.y0 + 1, 0, H - 1);
    uint ra = (n * uint(H) + uint(ya)) * uint(W), rb = (n * uint(H) + uint(yb)) * uint(W);
    bool x0ok = s.x0 >= 0, x1ok = s.x0 + 1 <= W - 1, y0ok = s.y0 >= 0, y1ok = s.y0 + 1 <= H - 1;
    VT zero = VT(0.0);
    for (uint v = lane; v < CV; v += uint(TPP)) {
      VT i_nw = VT(XV[(ra + uint(xa)) * CV + v]);
      VT i_ne = VT(XV[(ra + uint(xb)) * CV + v]);
      VT i_sw = VT(XV[(rb + uint(xa)) * CV + v]);
      VT i_se = VT(XV[(rb + uint(xb)) * CV + v]);
      VT cot = VT(CTV[p * CV + v]);
      i_nw = x0ok && y0ok ? i_nw : zero;
      i_ne = x1ok && y0ok ? i_ne : zero;
      i_sw = x0ok && y1ok ? i_sw : zero;
      i_se = x1ok && y1ok ? i_se : zero;
      g.x += dot(cot, s.dy1 * (i_ne - i_nw) + s.dy0 * (i_se - i_sw));
      g.y += dot(cot, s.dx1 * (i_sw - i_nw) + s.dx0 * (i_se - i_ne));
    }
  }
  // The point's TPP lanes are all active (the grid is a multiple of TPP,
  // which divides the subgroup size): a butterfly within them.
  for (uint m = uint(TPP) / 2u; m > 0u; m >>= 1) g += subgroupShuffleXor(g, m);
  if (lane == 0u) grid_grad_vec2[p] = ST2(g * vec2(float(W) / 2.0, float(H) / 2.0));
)";

// The #defines that pick the scalar (VEC 1) or vec4 (VEC 4) form of a body:
// VT the type computed in (float32), ST the one stored (kStorage's).
inline std::string vec_defines(int vec) {
  if (vec == 4) {
    return "#define VEC 4\n#define VT vec4\n#define ST ST4\n#define XV x_vec4\n"
           "#define CTV cot_vec4\n#define XGV x_grad_vec4\n";
  }
  return "#define VEC 1\n#define VT float\n#define ST ST1\n#define XV x\n#define CTV cot\n"
         "#define XGV x_grad\n";
}

inline std::string header(int vec, const std::string& extra = "") {
  return vec_defines(vec) + "#define ROW_SHIFT " + std::to_string(kRowShift) +
         "\n#define GS_GROUP " + std::to_string(kGroup) + "\n" + kCommon + extra;
}

// The header of a kernel that writes float buffers (needs the template
// argument F16, f16_arg's).
inline std::string storing_header(int vec, const std::string& extra) {
  return header(vec, kStorage + extra);
}

// The template argument F16 for inputs of x's dtype (check_inputs has made
// sure that x and grid share it).
inline std::pair<std::string, fast::TemplateArg> f16_arg(const array& x) {
  return {"F16", x.dtype() == float16 ? 1 : 0};
}

// The forward's body for VEC: its output is named `out` (a GLSL keyword the
// library renames in the body, not in the header, so no #define names it).
inline std::string forward_source(int vec) {
  std::string source = kForwardSource;
  const std::string token = "OUT_VIEW";
  source.replace(source.find(token), token.size(), vec == 4 ? "out_vec4" : "out");
  return source;
}

inline int vec_index(int vec) {
  return vec == 4 ? 1 : 0;
}

inline const fast::CustomKernelFunction& forward_kernel(int vec) {
  static const fast::CustomKernelFunction kernels[2] = {
      fast::vulkan_kernel("grid_sample_tuned_forward_s", {"x", "grid"}, {"out"}, forward_source(1),
                          storing_header(1, kForwardHeader)),
      fast::vulkan_kernel("grid_sample_tuned_forward_v4", {"x", "grid"}, {"out"}, forward_source(4),
                          storing_header(4, kForwardHeader))};
  return kernels[vec_index(vec)];
}

inline const fast::CustomKernelFunction& count_kernel() {
  static const auto kernel =
      fast::vulkan_kernel("grid_sample_tuned_count", {"x", "grid"}, {"counts", "rank", "run"},
                          kCountSource, header(1, kCountHeader), true, /*atomic_outputs=*/true);
  return kernel;
}

inline const fast::CustomKernelFunction& scatter_kernel() {
  static const auto kernel = fast::vulkan_kernel(
      "grid_sample_tuned_scatter", {"x", "grid", "rank", "run", "local", "row_offset"},
      {"slots", "runlen"}, kScatterSource, header(1, kOffsetHeader));
  return kernel;
}

inline const fast::CustomKernelFunction& sort_kernel() {
  static const auto kernel = fast::vulkan_kernel(
      "grid_sample_tuned_sort", {"x", "grid", "rank", "local", "row_offset", "slots", "runlen"},
      {"sorted"}, kSortSource, header(1, kOffsetHeader));
  return kernel;
}

inline const fast::CustomKernelFunction& x_grad_kernel(int vec) {
  auto make = [](int v) {
    return fast::vulkan_kernel(
        v == 4 ? "grid_sample_tuned_x_grad_v4" : "grid_sample_tuned_x_grad_s",
        {"x", "grid", "cot", "local", "row_offset", "sorted"}, {"x_grad"}, kXGradSource,
        storing_header(v, std::string(kOffsetHeader) + kXGradHeader));
  };
  static const fast::CustomKernelFunction kernels[2] = {make(1), make(4)};
  return kernels[vec_index(vec)];
}

inline const fast::CustomKernelFunction& grid_grad_kernel(int vec) {
  static const fast::CustomKernelFunction kernels[2] = {
      // subgroupShuffleXor over the device's own subgroups (subgroup_size()).
      fast::vulkan_kernel("grid_sample_tuned_grid_grad_s", {"x", "grid", "cot"}, {"grid_grad"},
                          kGridGradSource, storing_header(1, kGridGradHeader), true, false,
                          /*native_simdgroups=*/true),
      fast::vulkan_kernel("grid_sample_tuned_grid_grad_v4", {"x", "grid", "cot"}, {"grid_grad"},
                          kGridGradSource, storing_header(4, kGridGradHeader), true, false,
                          /*native_simdgroups=*/true)};
  return kernels[vec_index(vec)];
}

inline int subgroup_size() {
  static const int size =
      static_cast<int>(std::get<size_t>(gpu::device_info().at("subgroup_size")));
  return size;
}

inline void check_inputs(const array& x, const array& grid) {
  if (x.ndim() != 4 || grid.ndim() != 4 || grid.shape(3) != 2) {
    throw std::invalid_argument(
        "[grid_sample_tuned] x must be (N, H, W, C) and grid (N, gH, gW, 2).");
  }
  if (grid.shape(0) != x.shape(0)) {
    throw std::invalid_argument("[grid_sample_tuned] x and grid must have the same batch size.");
  }
  const std::string xd(dtype_name(x.dtype())), gd(dtype_name(grid.dtype()));
  if (x.dtype() != grid.dtype()) {
    throw std::invalid_argument(
        "[grid_sample_tuned] x and grid must have the same dtype, float32 or float16; got x " + xd +
        " and grid " + gd + ".");
  }
  if (x.dtype() != float32 && x.dtype() != float16) {
    throw std::invalid_argument("[grid_sample_tuned] x and grid must be float32 or float16; got " +
                                xd + ".");
  }
}

inline const Device kGpu(Device::gpu);

}  // namespace grid_sample_tuned_detail

// The forward variant expected fastest on an H100 (8 channels per thread:
// twice the loads in flight of variant 0, the same coalescing).
inline constexpr int kGridSampleTunedDefaultVariant = 1;

// out (N, gH, gW, C), of x's dtype (float32 or float16; computed in
// float32), on the GPU. variant: 0, 1 or 2 (see the top of this file);
// C % 4 != 0 always takes the scalar kernel.
inline array grid_sample_tuned_forward(const array& x, const array& grid,
                                       int variant = kGridSampleTunedDefaultVariant) {
  namespace d = grid_sample_tuned_detail;
  d::check_inputs(x, grid);
  const int N = x.shape(0), C = x.shape(3), gH = grid.shape(1), gW = grid.shape(2);
  const int vec = C % 4 == 0 ? 4 : 1;
  int pts = 1, vpt = 1;
  if (vec == 4 && variant == 1 && C % 8 == 0) vpt = 2;
  if (vec == 4 && variant == 2) pts = 2;
  const int64_t points = int64_t(N) * gH * gW;
  const int64_t threads = (points + pts - 1) / pts * (C / vec / vpt);
  if (threads > int64_t(INT32_MAX)) throw std::invalid_argument("[grid_sample_tuned] too large.");
  return d::forward_kernel(vec)({x, grid}, {{N, gH, gW, C}}, {x.dtype()}, {int(threads), 1, 1},
                                {256, 1, 1}, {{"CH", C}, {"PTS", pts}, {"VPT", vpt}, d::f16_arg(x)},
                                std::nullopt, false, d::kGpu)[0];
}

namespace grid_sample_tuned_detail {

// Step 5's launch. x_grad_vectors: the most vectors of x_grad per thread;
// the largest power of two up to it (and up to 8) that divides a pixel's
// vectors is used (vjp_stages' default, 2, was the fastest on an H200: 4
// and 8 were not faster; docs/performance.md, issue 17's eleventh part).
inline array x_grad_step(const array& x, const array& grid, const array& cot, const array& local,
                         const array& row_offset, const array& sorted, int x_grad_vectors) {
  const int N = x.shape(0), H = x.shape(1), W = x.shape(2), C = x.shape(3);
  const int vec = C % 4 == 0 ? 4 : 1;
  int xvpt = 1;
  while (2 * xvpt <= std::min(x_grad_vectors, 8) && (C / vec) % (2 * xvpt) == 0) xvpt *= 2;
  const int64_t threads = int64_t(N) * H * W * (C / vec / xvpt);
  if (threads > int64_t(INT32_MAX)) {
    throw std::invalid_argument("[grid_sample_tuned] x is too large.");
  }
  return x_grad_kernel(vec)({x, grid, cot, local, row_offset, sorted}, {x.shape()}, {x.dtype()},
                            {int(threads), 1, 1}, {256, 1, 1},
                            {{"CH", C}, {"XVPT", xvpt}, f16_arg(x)}, std::nullopt, false, kGpu)[0];
}

// Every array the VJP builds, step by step (the benchmark times prefixes).
struct VjpStages {
  array counts, rank, run;  // 1
  array local, row_offset;  // 2
  array slots, runlen;      // 3
  array sorted;             // 4
  array x_grad;             // 5
  array grid_grad;          // 6
};

// x_grad_vectors: as x_grad_step's.
inline VjpStages vjp_stages(const array& x, const array& grid, const array& cotangent,
                            int x_grad_vectors = 2) {
  check_inputs(x, grid);
  const int N = x.shape(0), H = x.shape(1), W = x.shape(2), C = x.shape(3);
  const int gH = grid.shape(1), gW = grid.shape(2);
  const int vec = C % 4 == 0 ? 4 : 1;
  const int P = N * gH * gW;
  // Read as it is where float32 or float16 (the kernels convert each value
  // to float), else as float32.
  const Dtype cd = cotangent.dtype();
  const array cot = cd == float32 || cd == float16 ? cotangent : astype(cotangent, float32, kGpu);

  // 1: counts per cell (padded to whole rows, with one cell past the last
  // for the last bucket's end) and each point's racy rank.
  const int64_t cells = int64_t(N) * (H + 1) * (W + 1);
  const int rows = static_cast<int>((cells + 1 + kRow - 1) / kRow);
  const int padded = (P + kGroup - 1) / kGroup * kGroup;
  auto counted =
      count_kernel()({x, grid}, {{rows, kRow}, {P}, {P}}, {int32, int32, int32}, {padded, 1, 1},
                     {kGroup, 1, 1}, {}, /*init_value=*/0.0f, false, kGpu);
  const array& counts = counted[0];
  const array& rank = counted[1];
  const array& run = counted[2];

  // 2: offsets, exclusive: within each row, and of the rows.
  // A row's sum is its last exclusive offset plus its last count: no second
  // pass over the counts.
  array local = cumsum(counts, 1, false, /*inclusive=*/false, kGpu);
  const Shape last_begin{0, kRow - 1}, last_end{rows, kRow};
  array row_sums = add(slice(local, last_begin, last_end, kGpu),
                       slice(counts, last_begin, last_end, kGpu), kGpu);
  array row_offset = cumsum(reshape(row_sums, {rows}, kGpu), 0, false, false, kGpu);

  // 3, 4: the buckets, each in index order.
  auto scattered =
      scatter_kernel()({x, grid, rank, run, local, row_offset}, {{P}, {P}}, {int32, int32},
                       {P, 1, 1}, {256, 1, 1}, {}, std::nullopt, false, kGpu);
  const array& slots = scattered[0];
  const array& runlen = scattered[1];
  array sorted = sort_kernel()({x, grid, rank, local, row_offset, slots, runlen}, {{P}}, {int32},
                               {P, 1, 1}, {256, 1, 1}, {}, std::nullopt, false, kGpu)[0];

  // 5: x_grad, each element written once.
  array x_grad = x_grad_step(x, grid, cot, local, row_offset, sorted, x_grad_vectors);

  // 6: grid_grad, TPP lanes per point.
  const int cv = C / vec;
  int tpp = 1;
  while (tpp < cv && tpp < subgroup_size()) tpp *= 2;
  array grid_grad = grid_grad_kernel(vec)(
      {x, grid, cot}, {grid.shape()}, {grid.dtype()}, {P * tpp, 1, 1}, {256, 1, 1},
      {{"CH", C}, {"TPP", tpp}, f16_arg(x)}, std::nullopt, false, kGpu)[0];
  return {counts, rank, run, local, row_offset, slots, runlen, sorted, x_grad, grid_grad};
}

}  // namespace grid_sample_tuned_detail

// The bucketed, deterministic VJP: (x_grad, grid_grad) of <cotangent, out>,
// of x's and grid's dtype (float32 or float16; every sum in float32, rounded
// once), on the GPU. cotangent: float32 or float16 whatever x's dtype (other
// dtypes are cast to float32).
inline std::pair<array, array> grid_sample_tuned_vjp(const array& x, const array& grid,
                                                     const array& cotangent) {
  auto stages = grid_sample_tuned_detail::vjp_stages(x, grid, cotangent);
  return {stages.x_grad, stages.grid_grad};
}

// grid_sample(x, grid) with the tuned forward and VJP, through
// custom_function: works under grad, vjp and value_and_grad.
inline array grid_sample_tuned(const array& x, const array& grid) {
  grid_sample_tuned_detail::check_inputs(x, grid);
  static const auto fun = custom_function(
      [](const std::vector<array>& in) {
        return std::vector<array>{grid_sample_tuned_forward(in[0], in[1])};
      },
      CustomVjpFn([](const std::vector<array>& primals, const std::vector<array>& cotangents,
                     const std::vector<array>&) {
        auto [x_grad, grid_grad] = grid_sample_tuned_vjp(primals[0], primals[1], cotangents[0]);
        return std::vector<array>{x_grad, grid_grad};
      }));
  return fun({x, grid})[0];
}

}  // namespace mlx_lite::examples
