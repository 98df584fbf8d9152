#version 450
#extension GL_GOOGLE_include_directive : require
// out[i] = f(a[i], b[i]) for the BinaryOp selected by OP (its values are
// params/elementwise.h's BinaryOp_*), with backend/cpu/binary.cpp's semantics. Variants:
// binary_<dtype> (OUT is IN) and binary_<dtype>_bool (OUT is bool: the six
// comparisons of non-bool inputs).
#include "elementwise.glsl"
#define NUM_OPERANDS 2

layout(set = 0, binding = 1) readonly buffer A { IN_ELEM a0[]; };
layout(set = 0, binding = 2) readonly buffer B { IN_ELEM b0[]; };
layout(set = 0, binding = 3) writeonly buffer Out { OUT_ELEM out0[]; };

#define C IN_COMPUTE

#if IN_KIND == 3
// x^n by squaring: exact whenever the result is representable, where GLSL's
// pow (exp2(y * log2(x)), error growing with |y log2 x|) is not.
float pow_int(float x, int n) {
  float result = 1.0;
  for (int e = abs(n); e > 0; e >>= 1) {
    if ((e & 1) != 0) result *= x;
    x *= x;
  }
  return n < 0 ? 1.0 / result : result;
}

// The C library's powf on GLSL's pow, which is undefined for x < 0 and for
// x == 0 with y <= 0 and need not get the special cases right. (GLSL has no
// recursion, so |x| is computed on and the sign put back.)
float pow_(float x, float y) {
  const float inf = uintBitsToFloat(0x7f800000u);
  if (y == 0.0 || x == 1.0) return 1.0;  // even for NaN
  if (isnan(x) || isnan(y)) return x + y;
  const bool y_int = floor(y) == y;  // inf counts as an even integer
  // Odd integer exponents keep the sign of x (floats past 2^24 are even).
  const bool y_odd = y_int && abs(y) < 16777216.0 && mod(y, 2.0) == 1.0;
  const bool x_negative = (floatBitsToUint(x) >> 31) != 0u;  // -0.0 included
  if (x < 0.0 && !y_int && !isinf(x)) return uintBitsToFloat(0x7fc00000u);  // (-inf)^y is not NaN
  const float ax = abs(x);
  float r;
  if (ax == 0.0) {
    r = y < 0.0 ? inf : 0.0;
  } else if (ax == 1.0) {
    r = 1.0;  // (-1)^+-inf == 1; odd powers of -1 get their sign below
  } else if (isinf(y)) {
    r = (ax < 1.0) == (y < 0.0) ? inf : 0.0;
  } else if (isinf(ax)) {
    r = y < 0.0 ? 0.0 : inf;
  } else if (y_int && abs(y) <= 64.0) {
    r = pow_int(ax, int(y));
  } else {
    r = pow(ax, y);
  }
  return (x_negative && y_odd) ? -r : r;
}
#else
C power_(C base, C e) {
#if IN_KIND == 0
  return (base != 0u || e == 0u) ? 1u : 0u;  // x || !y
#else
#if IN_KIND == 2
  if (e < C(0)) return base == C(1) ? C(1) : C(0);  // the integer part of 1 / base^|e|
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

// Comparisons and logical ops give 0 or 1 in C; result() turns that into
// OUT (bool, or C itself).
C apply(C x, C y) {
  switch (OP) {
    case BinaryOp_Add: return x + y;  // integers wrap; uint8 is stored modulo 2^8
    case BinaryOp_Subtract: return x - y;
    case BinaryOp_Multiply: return x * y;
    case BinaryOp_Equal: return C(x == y);
    case BinaryOp_NotEqual: return C(x != y);
    case BinaryOp_Greater: return C(x > y);
    case BinaryOp_GreaterEqual: return C(x >= y);
    case BinaryOp_Less: return C(x < y);
    case BinaryOp_LessEqual: return C(x <= y);
    case BinaryOp_LogicalAnd: return C(x != C(0) && y != C(0));  // NaN is true, as in C++
    case BinaryOp_LogicalOr: return C(x != C(0) || y != C(0));
#if IN_KIND == 3
    case BinaryOp_Divide: return x / y;
    case BinaryOp_Maximum: return (x > y || isnan(x)) ? x : y;  // NaN in x propagates, as on the CPU
    case BinaryOp_Minimum: return (x < y || isnan(x)) ? x : y;
    case BinaryOp_Power: return pow_(x, y);
#else
    case BinaryOp_Maximum: return x > y ? x : y;
    case BinaryOp_Minimum: return x < y ? x : y;
    case BinaryOp_Power: return power_(x, y);
    case BinaryOp_BitwiseAnd: return x & y;
    case BinaryOp_BitwiseOr: return x | y;
#endif
    default: return C(0);  // integer divide: never dispatched
  }
}

OUT_COMPUTE result(C v) {
#if OUT_KIND == 0
  return v != C(0) ? 1u : 0u;
#else
  return v;
#endif
}

void element_at(uint i, uint loc[NUM_OPERANDS]) {
  const C x = load_in(a0[loc[0]]);
  const C y = load_in(b0[loc[1]]);
  out0[i] = store_out(result(apply(x, y)));
}

#include "elementwise_main.glsl"
