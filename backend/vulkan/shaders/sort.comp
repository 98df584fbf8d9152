#version 450
#extension GL_GOOGLE_include_directive : require
// Sort and ArgSort along one axis (params/sort.h), as the CPU's
// backend/cpu/sort.cpp: ascending, NaN last, stable. Each element becomes a
// (key, position) pair whose key is an unsigned integer ordered as the
// values are (NaNs one key above +inf, -0 the key of +0), and pairs compare
// by key, then position: a total order whose ascending sequence is the
// stable sort, so any sorting network gives the CPU's result exactly. The
// output takes positions (ArgSort) or the input's elements at them (Sort:
// values are copied, never rebuilt from keys, so -0 and NaN payloads stay).
//   kSortBlockPass  a workgroup loads kSortBlock pairs into shared memory
//                   (one block of a long line, or several short lines, each
//                   padded with sentinel pairs to `segment`, a power of two)
//                   and sorts every segment with a bitonic network;
//   kSortMergePass  a thread per element finds its rank in the other run
//                   of its pair of sorted runs (binary search) and writes
//                   itself to its place in the merged run.
// Loops are short (at most 66 * kSortBlock / (2 * kSortThreads) compare
// steps, or 32 search steps) on any row length.
#include "common.glsl"
#include "params/sort.h"

#include "shape_block.glsl"
#include "lines.glsl"

#ifdef KEY64
#define KEY uint64_t
const KEY kKeyMax = 0xfffffffffffffffful;
#else
#define KEY uint
const KEY kKeyMax = 0xffffffffu;
#endif
const uint kNone = 0xffffffffu;  // a sentinel's position: after every element's

layout(set = 0, binding = 1) readonly buffer In { IN_ELEM in0[]; };
layout(set = 0, binding = 2) readonly buffer KeysIn { KEY keys_in[]; };
layout(set = 0, binding = 3) readonly buffer PosIn { uint pos_in[]; };
layout(set = 0, binding = 4) writeonly buffer KeysOut { KEY keys_out[]; };
layout(set = 0, binding = 5) writeonly buffer PosOut { uint pos_out[]; };
layout(set = 0, binding = 6) writeonly buffer Out { OUT_ELEM out0[]; };

shared KEY skey[kSortBlock];
shared uint spos[kSortBlock];

// The key of a value: unsigned order is the values' order.
KEY key_of(IN_ELEM v) {
#if defined(KEY64) && IN_U64
  return uint64_t(v);
#elif defined(KEY64)
  return uint64_t(v) ^ 0x8000000000000000ul;
#elif IN_KIND == 3
  const float f = float(load_in(v));
  if (isnan(f)) return kKeyMax;
  const uint b = f == 0.0 ? 0u : floatBitsToUint(f);
  return (b & 0x80000000u) != 0u ? ~b : b | 0x80000000u;
#elif IN_KIND == 2
  return uint(load_in(v)) ^ 0x80000000u;  // int8 and int16 sign-extended first
#else
  return uint(load_in(v));
#endif
}

bool before(KEY ka, uint pa, KEY kb, uint pb) { return ka < kb || (ka == kb && pa < pb); }

IN_ELEM element(int64_t start, uint k) {
  return in0[uint(start + int64_t(k) * params.lines.stride)];
}

// Element k of line r, sorted, into the output: its position or its value.
void write_out(int64_t r, uint k, uint pos) {
  const uint len = uint(params.lines.len);
  const uint inner = uint(params.inner);
  const uint o = uint((r / inner) * len * inner + r % inner) + k * inner;
  if (ARG) {
    out0[o] = OUT_ELEM(pos);
  } else {
    out0[o] = OUT_ELEM(element(line_start(r), pos));
  }
}

void compare_exchange(uint i, uint j) {
  const KEY ki = skey[i], kj = skey[j];
  const uint pi = spos[i], pj = spos[j];
  if (before(kj, pj, ki, pi)) {
    skey[i] = kj;
    spos[i] = pj;
    skey[j] = ki;
    spos[j] = pi;
  }
}

void block_pass() {
  const uint t = gl_LocalInvocationID.x;
  const uint W = gl_WorkGroupSize.x;
  const uint len = uint(params.lines.len);
  const uint seg = params.segment;
  const uint segs_per_group = kSortBlock / seg;
  const uint chunks = (len + kSortBlock - 1u) / kSortBlock;  // blocks per line
  const int64_t segments = params.lines.rows * int64_t(chunks);
  const int64_t first = workgroup_index() * int64_t(segs_per_group);

  for (uint i = t; i < kSortBlock; i += W) {
    const int64_t s = first + int64_t(i / seg);
    const int64_t r = s / int64_t(chunks);
    const uint k = uint(s % int64_t(chunks)) * kSortBlock + i % seg;
    const bool real = s < segments && k < len;
    skey[i] = real ? key_of(element(line_start(r), k)) : kKeyMax;
    spos[i] = real ? k : kNone;
  }
  barrier();
  // Bitonic sort of every aligned segment: for each size m, reverse-compare
  // the halves of each m-block (i against its mirror), then half-cleaners.
  for (uint m = 2u; m <= seg; m <<= 1u) {
    const uint h = m >> 1u;
    for (uint p = t; p < kSortBlock / 2u; p += W) {
      const uint i = (p / h) * m + p % h;
      compare_exchange(i, i ^ (m - 1u));
    }
    barrier();
    for (uint d = h >> 1u; d > 0u; d >>= 1u) {
      for (uint p = t; p < kSortBlock / 2u; p += W) {
        const uint i = (p / d) * 2u * d + p % d;
        compare_exchange(i, i + d);
      }
      barrier();
    }
  }
  for (uint i = t; i < kSortBlock; i += W) {
    const int64_t s = first + int64_t(i / seg);
    const int64_t r = s / int64_t(chunks);
    const uint k = uint(s % int64_t(chunks)) * kSortBlock + i % seg;
    if (s >= segments || k >= len) continue;
    if (FINAL) {
      write_out(r, k, spos[i]);
    } else {
      const uint at = uint(r) * len + k;
      keys_out[at] = skey[i];
      pos_out[at] = spos[i];
    }
  }
}

// How many elements of the sorted run [lo, hi) of line base come before (k, p).
uint rank_in(uint base, uint lo, uint hi, KEY k, uint p) {
  while (lo < hi) {
    const uint mid = (lo + hi) >> 1u;
    if (before(keys_in[base + mid], pos_in[base + mid], k, p)) {
      lo = mid + 1u;
    } else {
      hi = mid;
    }
  }
  return lo;
}

void merge_pass() {
  const int64_t e = thread_index();
  const uint len = uint(params.lines.len);
  if (e >= params.lines.rows * int64_t(len)) return;
  const int64_t r = e / int64_t(len);
  const uint k = uint(e % int64_t(len));
  const uint base = uint(r) * len;
  const uint w = params.width;
  const uint a = (k / (2u * w)) * 2u * w;  // run A is [a, b), run B [b, end)
  const uint b = min(a + w, len);
  const uint end = min(a + 2u * w, len);
  const KEY key = keys_in[base + k];
  const uint pos = pos_in[base + k];
  // Pairs are distinct, so an element's place is its rank in its own run
  // plus its rank in the other.
  const uint place =
      k < b ? k + (rank_in(base, b, end, key, pos) - b) : a + (rank_in(base, a, b, key, pos) - a) + (k - b);
  if (FINAL) {
    write_out(r, place, pos);
  } else {
    keys_out[base + place] = key;
    pos_out[base + place] = pos;
  }
}

void main() {
  if (PASS == kSortBlockPass) {
    block_pass();
  } else {
    merge_pass();
  }
}
