#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// Scan (cumsum, cumprod, cummax, cummin, logcumsumexp: OP) along one axis,
// inclusive or exclusive, forward or reverse, as the CPU's
// backend/cpu/scan.cpp (params/scan.h: where element k of line r goes). Scan
// position p reads and writes element k = p (k = len - 1 - p when reverse).
// MODE:
//   kWorkgroupPerLine   a workgroup of W threads per line walks it in tiles
//                       of 16W positions. Thread t loads the tile's positions
//                       16t..16t+15 into registers (every load in flight
//                       before the first use: a scan waits on memory, not on
//                       arithmetic) and scans them; a scan of the W thread
//                       totals through shared memory, in a fixed shape (no
//                       subgroup operations, so floats come out the same for
//                       every subgroup size), gives each thread its prefix;
//                       it stores its 16 results from registers, and a
//                       running total carries across tiles. Two barriers a
//                       tile (three for logcumsumexp).
//   kScanThreadPerLine  thread r scans line r alone (many short lines, or
//                       lines across the fast axis: neighbouring threads
//                       then touch neighbouring elements).
// RUNS (kWorkgroupPerLine; 32-bit input and output; contiguous lines along
// the output's last axis whose length and start are multiples of 4, which
// the host checks): a thread's positions are aligned runs of 4, each loaded
// and stored as one vector.
#include "common.glsl"
#include "params/scan.h"


#include "shape_block.glsl"
#include "lines.glsl"

layout(set = 0, binding = 1) readonly buffer In { IN_ELEM in0[]; };
layout(set = 0, binding = 2) writeonly buffer Out { OUT_ELEM out0[]; };
#if IN_BITS == 32 && OUT_BITS == 32
layout(set = 0, binding = 1) readonly buffer In4 { uvec4 in4[]; };
layout(set = 0, binding = 2) writeonly buffer Out4 { uvec4 out4[]; };
#endif

// Floats scan in float, with a sum's running total compensated (Kahan)
// since it carries across a whole line (the CPU sums in double). Integers and
// bool scan in their own width, 32 bits at least: the CPU's 64-bit sums and
// products wrap to the output's width, and their low bits depend on the
// operands' low bits alone; max and min stay in the dtype's range. 64-bit
// arithmetic, which GPUs emulate, is left to the 64-bit dtypes.
#if IN_KIND == 3
#define ACC float
#elif IN_U64
#define ACC uint64_t  // so that cummax and cummin order values past 2^63
#elif IN_BITS == 64
#define ACC int64_t
#elif IN_KIND == 2
#define ACC int
#else
#define ACC uint
#endif

// The workgroup size is 64, 128 or 256 (shorter lines get smaller ones).
const uint kThreads = gl_WorkGroupSize.x;
const uint kPerThread = kScanPerThread;  // 16 consecutive positions
const uint kRunsPerThread = kPerThread / 4u;
const uint kTile = kThreads * kPerThread;
const uint kGroup = 16;                 // thread totals scanned serially per group
const uint kGroups = kThreads / kGroup;  // at most 16
// The thread totals of a tile, double-buffered by the tile's parity: a tile
// writes one half while threads may still read the previous tile's.
shared ACC sums[2 * kScanMaxThreads];
// LogAddExp's combine costs tens of instructions, too many for every thread
// to fold up to 16 group totals: thread 0 folds them once, into `folded`,
// at the cost of a third barrier a tile.
const bool kOneThreadFolds = OP == Scan_LogAddExp;
shared ACC folded[kScanMaxThreads / kGroup + 1];

// The identity of OP (an exclusive scan's first output): 0, 1, the lowest
// or highest value of the input's dtype, or -inf.
ACC identity() {
  if (OP == Scan_Sum) return ACC(0);
  if (OP == Scan_Prod) return ACC(1);
  const bool is_max = OP == Scan_Max || OP == Scan_LogAddExp;
#if IN_KIND == 3
  return is_max ? uintBitsToFloat(0xff800000u) : uintBitsToFloat(0x7f800000u);
#else
  if (IN_KIND == 0) return is_max ? ACC(0) : ACC(1);
  // The dtype's range: [0, 2^bits - 1] or [-2^(bits-1), 2^(bits-1) - 1].
  if (IN_KIND == 1) return is_max ? ACC(0) : ACC(0xfffffffffffffffful >> (64 - IN_BITS));
  const ACC top = ACC(0x7ffffffffffffffful >> (64 - IN_BITS));
  return is_max ? -top - ACC(1) : top;
#endif
}

#if IN_KIND == 3
// log(1 + x), accurate for small x (GLSL has no log1p): log(u) scaled by the
// rounding error of u = 1 + x.
float log1p_(float x) {
  const float u = 1.0 + x;
  if (u == 1.0) return x;
  return log(u) * (x / (u - 1.0));
}
#endif

// a OP b, a the earlier. Max and min keep the earlier element unless the
// later is strictly beyond it, and the first NaN: associative, and the
// CPU's sequential rule, so both pick the same element.
ACC combine(ACC a, ACC b) {
  if (OP == Scan_Sum) return a + b;
  if (OP == Scan_Prod) return a * b;
#if IN_KIND == 3
  if (isnan(a)) return a;
  if (isnan(b)) return b;
  if (OP == Scan_LogAddExp) {
    const float hi = max(a, b), lo = min(a, b);
    if (isinf(hi)) return hi;
    return hi + log1p_(exp(lo - hi));
  }
#endif
  if (OP == Scan_Max) return b > a ? b : a;
  return b < a ? b : a;
}

// A running total: the value, and for float sums the low-order part it lost.
struct Total {
  ACC sum;
  ACC lost;
};

void accumulate(inout Total total, ACC x) {
#if IN_KIND == 3
  if (OP == Scan_Sum) {
    precise float y = x - total.lost;
    precise float s = total.sum + y;
    // Past an infinity the lost part is meaningless (inf - inf): drop it.
    total.lost = isinf(s) ? 0.0 : (s - total.sum) - y;
    total.sum = s;
    return;
  }
#endif
  total.sum = combine(total.sum, x);
}

ACC load(int64_t start, uint k) {
  if (CONTIGUOUS) return ACC(load_in(in0[uint(start) + k]));
  return ACC(load_in(in0[uint(start + int64_t(k) * params.lines.stride)]));
}

void store(uint out_start, uint inner, uint k, ACC v) {
  out0[out_start + k * inner] = store_out(OUT_COMPUTE(v));
}

uint element(uint p, uint len) { return params.reverse != 0u ? len - 1u - p : p; }

#if IN_BITS == 32 && OUT_BITS == 32
ACC from_bits(uint b) {
#if IN_KIND == 3
  return uintBitsToFloat(b);
#else
  return ACC(b);  // int(uint) keeps the bits
#endif
}

uint to_bits(ACC v) {
#if OUT_KIND == 3
  return floatBitsToUint(store_out(OUT_COMPUTE(v)));
#else
  return uint(store_out(OUT_COMPUTE(v)));
#endif
}

// The run of 4 elements that positions p0..p0 + 3 cover (p0 a multiple of
// 4), as an index of 4-element runs from the buffer's start (`start` is the
// line's first element): reverse positions run down from the line's end, so
// they cover the run at len - 4 - p0, read backwards.
uint run_of(int64_t start, uint p0, uint len) {
  const uint k0 = params.reverse != 0u ? len - 4u - p0 : p0;
  return uint((start + int64_t(k0)) >> 2);
}
#endif

// x[q]: the element at position p0 + q, the identity past the line's end.
void load_own(int64_t start, uint p0, uint len, out ACC x[kPerThread]) {
#if IN_BITS == 32 && OUT_BITS == 32
  if (RUNS) {  // len is a multiple of 4: a run that starts in the line is whole
    uvec4 runs[kRunsPerThread];  // all loads in flight before the first use
    [[unroll]] for (uint v = 0u; v < kRunsPerThread; ++v) {
      const uint p = p0 + 4u * v;
      runs[v] = p < len ? in4[run_of(start, p, len)] : uvec4(0u);
    }
    const bool down = params.reverse != 0u;
    [[unroll]] for (uint v = 0u; v < kRunsPerThread; ++v) {
      [[unroll]] for (uint c = 0u; c < 4u; ++c) {
        x[4u * v + c] = p0 + 4u * v < len ? from_bits(runs[v][down ? 3u - c : c]) : identity();
      }
    }
    return;
  }
#endif
  [[unroll]] for (uint q = 0u; q < kPerThread; ++q) {
    const uint p = p0 + q;
    x[q] = p < len ? load(start, element(p, len)) : identity();
  }
}

void store_own(uint out_start, uint inner, uint p0, uint len, ACC v[kPerThread]) {
#if IN_BITS == 32 && OUT_BITS == 32
  if (RUNS) {  // inner is 1: the output's line is contiguous, as the input's
    const bool down = params.reverse != 0u;
    [[unroll]] for (uint r = 0u; r < kRunsPerThread; ++r) {
      const uint p = p0 + 4u * r;
      if (p >= len) return;
      uvec4 run;
      [[unroll]] for (uint c = 0u; c < 4u; ++c) run[down ? 3u - c : c] = to_bits(v[4u * r + c]);
      out4[run_of(int64_t(out_start), p, len)] = run;
    }
    return;
  }
#endif
  [[unroll]] for (uint q = 0u; q < kPerThread; ++q) {
    const uint p = p0 + q;
    if (p < len) store(out_start, inner, element(p, len), v[q]);
  }
}

// Replaces the kGroup thread totals from sums[first] with their inclusive
// prefixes: all loaded first, so the serial part waits on one shared-memory
// load rather than kGroup.
void scan_group(uint first) {
  ACC v[kGroup];
  [[unroll]] for (uint i = 0u; i < kGroup; ++i) v[i] = sums[first + i];
  ACC acc = identity();
  [[unroll]] for (uint i = 0u; i < kGroup; ++i) {
    acc = combine(acc, v[i]);
    sums[first + i] = acc;
  }
}

// The groups' totals (each group's last prefix) folded in group order:
// `before` those ahead of group `mine`, `total` all of them (the tile's
// total). Every thread folds them itself (broadcast loads, no barrier
// after), or with `publish` thread 0 alone, leaving folded[g] the groups
// ahead of group g and folded[kGroups] all of them.
void fold_groups(uint half_, uint mine, bool publish, out ACC before, out ACC total) {
  ACC acc = identity();
  before = acc;
  for (uint g = 0u; g < kGroups; ++g) {
    if (g == mine) before = acc;
    if (publish) folded[g] = acc;
    acc = combine(acc, sums[half_ + g * kGroup + kGroup - 1u]);
  }
  total = acc;
  if (publish) folded[kGroups] = acc;
}

// The workgroup's scan of line r.
void scan_line(int64_t r, uint len, uint inner, bool is_inclusive) {
  const uint t = gl_LocalInvocationID.x;
  const int64_t start = line_start(r);
  const uint out_start = uint((r / inner) * len * inner + r % inner);
  Total carry = Total(identity(), ACC(0));
  uint half_ = 0u;
  for (uint base = 0u; base < len; base += kTile) {
    const uint p0 = base + kPerThread * t;
    ACC own[kPerThread];
    load_own(start, p0, len, own);
    // The prefixes of this thread's positions (inclusive or exclusive) and
    // their total.
    ACC running = identity();
    [[unroll]] for (uint q = 0u; q < kPerThread; ++q) {
      const ACC x = own[q];
      if (!is_inclusive) own[q] = running;
      running = combine(running, x);
      if (is_inclusive) own[q] = running;
    }
    // The threads' totals: scanned serially in groups of 16 (a thread per
    // group), then each thread folds the groups ahead of its own.
    sums[half_ + t] = running;
    barrier();
    if (t < kGroups) scan_group(half_ + t * kGroup);
    barrier();
    ACC group_before, tile_total;
    if (kOneThreadFolds) {
      if (t == 0u) fold_groups(half_, 0u, true, group_before, tile_total);
      barrier();  // the previous tile's reads of folded ended before this tile's first
      group_before = folded[t / kGroup];
      tile_total = folded[kGroups];
    } else {
      fold_groups(half_, t / kGroup, false, group_before, tile_total);
    }
    const ACC before =
        combine(group_before, t % kGroup > 0u ? sums[half_ + t - 1u] : identity());
    [[unroll]] for (uint q = 0u; q < kPerThread; ++q) {
      own[q] = combine(carry.sum, combine(before, own[q]));
    }
    store_own(out_start, inner, p0, len, own);
    accumulate(carry, tile_total);
    half_ = kThreads - half_;
  }
}

void main() {
  const int64_t rows = params.lines.rows;
  // Outputs are indexed in 32 bits, so every length here is below 2^32.
  const uint len = uint(params.lines.len);
  const uint inner = uint(params.inner);
  const bool is_inclusive = params.inclusive != 0u;

  if (MODE == kScanThreadPerLine) {
    const int64_t r = thread_index();
    if (r >= rows) return;
    const int64_t start = line_start(r);
    const uint out_start = uint((r / inner) * len * inner + r % inner);
    Total total = Total(identity(), ACC(0));
    for (uint p = 0u; p < len; ++p) {
      const uint k = element(p, len);
      const ACC x = load(start, k);
      if (!is_inclusive) store(out_start, inner, k, total.sum);
      accumulate(total, x);
      if (is_inclusive) store(out_start, inner, k, total.sum);
    }
    return;
  }

  const int64_t r = workgroup_index();
  if (r >= rows) return;  // the whole workgroup leaves together
  scan_line(r, len, inner, is_inclusive);
}
