#version 450
#extension GL_GOOGLE_include_directive : require
// ArgReduce: the index (uint32) of the first smallest (OP 0, ArgMin) or
// largest (OP 1, ArgMax) element of each line, NaN counting as the extreme
// (the first NaN wins), as the CPU does. Metadata: reduce_lines.glsl's
// followed by [G, C]. MODE (constant_id 3):
//   0  workgroup w scans chunk w % G (C elements) of line w / G with 256
//      threads (consecutive threads read consecutive elements when the
//      line is contiguous), combines (value, index) pairs through shared
//      memory and writes the winner's index in the line to out0[w];
//   1  thread r scans line r alone (many short lines, or lines across the
//      fast axis: neighbouring threads then read neighbouring elements);
//   2  workgroup r picks among the G winners of line r's chunks (cand, the
//      output of MODE 0), reading their values from the input again.
#include "common.glsl"
#include "reduce_lines.glsl"

layout(constant_id = 3) const uint MODE = 0;

layout(set = 0, binding = 1) readonly buffer In { IN_ELEM in0[]; };
layout(set = 0, binding = 2) readonly buffer Cand { uint cand[]; };
layout(set = 0, binding = 3) writeonly buffer Out { uint out0[]; };

#if IN_KIND == 3
#define VAL float
#else
#define VAL int64_t
#endif

const uint kThreads = 256;
const uint kNone = 0xffffffffu;  // no element seen yet
shared VAL shared_value[kThreads];
shared uint shared_index[kThreads];

// Whether (v, i) beats (best, b): NaN beats any number, then the larger
// (ArgMax) or smaller value, then the smaller index.
bool beats(VAL v, uint i, VAL best, uint b) {
  if (i == kNone) return false;
  if (b == kNone) return true;
#if IN_KIND == 3
  if (isnan(best)) return isnan(v) && i < b;
  if (isnan(v)) return true;
#endif
  if (v == best) return i < b;
  return OP == 1u ? v > best : v < best;
}

VAL value_at(int64_t start, uint k) {
  if (CONTIGUOUS) return VAL(load_in(in0[uint(start) + k]));
  return VAL(load_in(in0[uint(start + int64_t(k) * lines_stride())]));
}

// Combines the workgroup's (value, index) pairs; the winner ends in slot 0.
void workgroup_reduce(uint t, VAL v, uint i) {
  shared_value[t] = v;
  shared_index[t] = i;
  barrier();
  for (uint s = kThreads / 2u; s > 0u; s >>= 1u) {
    if (t < s && beats(shared_value[t + s], shared_index[t + s], shared_value[t],
                       shared_index[t])) {
      shared_value[t] = shared_value[t + s];
      shared_index[t] = shared_index[t + s];
    }
    barrier();
  }
}

void main() {
  const int64_t rows = lines_rows(), len = lines_len();
  const int64_t groups = lines_extra(0), chunk = lines_extra(1);
  VAL best = VAL(0);
  uint best_i = kNone;

  if (MODE == 1u) {
    const int64_t r = thread_index();
    if (r >= rows) return;
    const int64_t start = line_start(r);
    for (uint k = 0u; k < uint(len); ++k) {
      const VAL v = value_at(start, k);
      if (beats(v, k, best, best_i)) {
        best = v;
        best_i = k;
      }
    }
    out0[uint(r)] = best_i;
    return;
  }

  const uint t = gl_LocalInvocationID.x;
  const int64_t w = workgroup_index();
  if (MODE == 2u) {
    if (w >= rows) return;  // the whole workgroup leaves together
    const int64_t start = line_start(w);
    for (uint j = t; j < uint(groups); j += kThreads) {
      const uint k = cand[uint(w * groups) + j];
      const VAL v = value_at(start, k);
      if (beats(v, k, best, best_i)) {
        best = v;
        best_i = k;
      }
    }
    workgroup_reduce(t, best, best_i);
    if (t == 0u) out0[uint(w)] = shared_index[0];
    return;
  }

  if (w >= rows * groups) return;
  const int64_t r = w / groups;
  const uint begin = uint((w - r * groups) * chunk);
  const uint end = uint(min(len, int64_t(begin) + chunk));
  const int64_t start = line_start(r);
  // Each thread sees its indices in increasing order, so a tie never beats.
  for (uint k = begin + t; k < end; k += kThreads) {
    const VAL v = value_at(start, k);
    if (beats(v, k, best, best_i)) {
      best = v;
      best_i = k;
    }
  }
  workgroup_reduce(t, best, best_i);
  if (t == 0u) out0[uint(w)] = shared_index[0];
}
