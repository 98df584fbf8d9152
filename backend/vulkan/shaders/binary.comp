#version 450
#extension GL_GOOGLE_include_directive : require
// out[i] = f(a[i], b[i]) for the BinaryOp selected by OP (values of
// mlx_lite::BinaryOp); the semantics are backend/cpu/binary.cpp's. OUT is
// IN, or bool for the comparisons of non-bool inputs.
#include "common.glsl"

layout(set = 0, binding = 1) readonly buffer A { IN_STORAGE a0[]; };
layout(set = 0, binding = 2) readonly buffer B { IN_STORAGE b0[]; };
layout(set = 0, binding = 3) writeonly buffer Out { OUT_STORAGE out0[]; };

#define C IN_COMPUTE

#if IN_KIND == 3
// The C library's pow: negative bases take integer exponents only.
float pow_(float x, float y) {
  if (y == 0.0) return 1.0;
  if (isnan(x) || isnan(y)) return x + y;
  if (x == 0.0) return y < 0.0 ? 1.0 / 0.0 : 0.0;
  if (x > 0.0) return pow(x, y);
  if (y != floor(y)) return 0.0 / 0.0;
  float r = pow(-x, y);
  return mod(y, 2.0) == 1.0 ? -r : r;
}
#else
C power_(C base, C e) {
#if IN_KIND == 0
  return (base != 0u || e == 0u) ? 1u : 0u;
#else
#if IN_KIND == 2
  if (e < C(0)) return base == C(1) ? C(1) : C(0);
#endif
  C result = C(1);
  while (e > C(0)) {
    if ((e & C(1)) != C(0)) result *= base;
    base *= base;
    e >>= C(1);
  }
  return result;
#endif
}
#endif

// Comparisons and logical ops give 0 or 1 in C; store_out turns them into
// OUT (bool, or C itself for bool inputs).
C apply(C x, C y) {
  switch (OP) {
    case 0: return x + y;
    case 1: return x - y;
    case 2: return x * y;
    case 7: return C(x == y);
    case 8: return C(x != y);
    case 9: return C(x > y);
    case 10: return C(x >= y);
    case 11: return C(x < y);
    case 12: return C(x <= y);
    case 13: return C(x != C(0) && y != C(0));
    case 14: return C(x != C(0) || y != C(0));
#if IN_KIND == 3
    case 3: return x / y;
    case 4: return (x > y || isnan(x)) ? x : y;  // NaN propagates, as on the CPU
    case 5: return (x < y || isnan(x)) ? x : y;
    case 6: return pow_(x, y);
#else
    case 4: return x > y ? x : y;
    case 5: return x < y ? x : y;
    case 6: return power_(x, y);
    case 15: return x & y;
    case 16: return x | y;
#endif
    default: return C(0);
  }
}

// What the CPU stores: bool results of arithmetic are != 0.
OUT_COMPUTE result(C v) {
#if OUT_KIND == 0
  return v != C(0) ? 1u : 0u;
#else
  return v;
#endif
}

void main() {
  const int64_t i = thread_index();
  if (i >= meta[0]) return;
  C x = load_in(a0[uint(input_location(0, i))]);
  C y = load_in(b0[uint(input_location(1, i))]);
  out0[uint(i)] = store_out(result(apply(x, y)));
}
