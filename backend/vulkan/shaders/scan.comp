#version 450
#extension GL_GOOGLE_include_directive : require
// Scan (cumsum, cumprod, cummax, cummin, logcumsumexp: OP) along one axis,
// inclusive or exclusive, forward or reverse, as the CPU's backend/cpu/scan.cpp (params/scan.h: where element k of line
// r goes). Scan position p reads and writes element k = p (k = len - 1 - p
// when reverse). MODE:
//   kWorkgroupPerLine   a workgroup of W threads per line walks it in tiles
//                       of 4W: each tile is loaded coalesced into shared
//                       memory, each thread sums 4 consecutive elements, a
//                       shared-memory scan of the W thread sums (no subgroup
//                       operations, so any subgroup size works) gives each
//                       thread its prefix, and a running total carries
//                       across tiles;
//   kScanThreadPerLine  thread r scans line r alone (many short lines, or
//                       lines across the fast axis: neighbouring threads
//                       then touch neighbouring elements).
#include "common.glsl"
#include "params/scan.h"


#include "shape_block.glsl"
#include "lines.glsl"

layout(set = 0, binding = 1) readonly buffer In { IN_ELEM in0[]; };
layout(set = 0, binding = 2) writeonly buffer Out { OUT_ELEM out0[]; };

// Floats scan in float, with a sum's running total compensated (Kahan)
// since it carries across a whole line (the CPU sums in double); integers and
// bool in 64 bits, which wrap to the output's width as the CPU's do.
#if IN_KIND == 3
#define ACC float
#elif IN_U64
#define ACC uint64_t  // so that cummax and cummin order values past 2^63
#else
#define ACC int64_t
#endif

// The workgroup size is 64, 128 or 256 (shorter lines get smaller ones).
const uint kThreads = gl_WorkGroupSize.x;
const uint kPerThread = 4;
const uint kTile = kThreads * kPerThread;
const uint kGroup = 16;                 // thread sums scanned serially per group
const uint kGroups = kThreads / kGroup;  // at most 16
shared ACC tile[kScanMaxThreads * kPerThread];
shared ACC sums[kScanMaxThreads];
shared ACC group_before[17];

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
  const uint t = gl_LocalInvocationID.x;
  const int64_t start = line_start(r);
  const uint out_start = uint((r / inner) * len * inner + r % inner);
  Total carry = Total(identity(), ACC(0));
  for (uint base = 0u; base < len; base += kTile) {
    for (uint q = 0u; q < kPerThread; ++q) {
      const uint p = base + q * kThreads + t;
      tile[q * kThreads + t] = p < len ? load(start, element(p, len)) : identity();
    }
    barrier();
    // This thread's 4 consecutive positions: their prefixes within the
    // thread (inclusive or exclusive) and their sum.
    ACC own[kPerThread];
    ACC running = identity();
    for (uint q = 0u; q < kPerThread; ++q) {
      const ACC x = tile[t * kPerThread + q];
      if (!is_inclusive) own[q] = running;
      running = combine(running, x);
      if (is_inclusive) own[q] = running;
    }
    sums[t] = running;
    barrier();
    // Exclusive prefix of the thread sums in two serial levels (a thread per
    // group of 16 sums, then one thread for the group totals): 3 barriers
    // where a tree scan of 256 takes 16.
    if (t < kGroups) {
      ACC acc = identity();
      for (uint i = t * kGroup; i < (t + 1u) * kGroup; ++i) {
        acc = combine(acc, sums[i]);
        sums[i] = acc;
      }
    }
    barrier();
    if (t == 0u) {
      ACC acc = identity();
      for (uint g = 0u; g < kGroups; ++g) {
        group_before[g] = acc;
        acc = combine(acc, sums[g * kGroup + kGroup - 1u]);
      }
      group_before[kGroups] = acc;
    }
    barrier();
    const ACC before =
        combine(group_before[t / kGroup], t % kGroup > 0u ? sums[t - 1u] : identity());
    for (uint q = 0u; q < kPerThread; ++q) {
      tile[t * kPerThread + q] = combine(carry.sum, combine(before, own[q]));
    }
    const ACC tile_sum = group_before[kGroups];
    barrier();
    for (uint q = 0u; q < kPerThread; ++q) {
      const uint p = base + q * kThreads + t;
      if (p < len) store(out_start, inner, element(p, len), tile[q * kThreads + t]);
    }
    accumulate(carry, tile_sum);
    barrier();  // the next tile overwrites tile and sums
  }
}
