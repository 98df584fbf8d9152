#version 450
#extension GL_GOOGLE_include_directive : require
// out[i] = f(a[i], b[i]) for the BinaryOp selected by OP (its values are
// params/elementwise.h's BinaryOp_*), with backend/cpu/binary.cpp's semantics. Variants:
// binary_<dtype> (OUT is IN) and binary_<dtype>_bool (OUT is bool: the six
// comparisons of non-bool inputs).
#include "elementwise.glsl"
#include "float_math.glsl"
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

// std::atan2 with the C library's zero, infinity and NaN cases, on atan_.
float atan2_(float y, float x) {
  if (isnan(x) || isnan(y)) return x + y;
  const float ax = abs(x), ay = abs(y);
  const bool x_negative = (floatBitsToUint(x) >> 31) != 0u;  // -0.0 included
  float r;
  if (ay == 0.0) {
    r = x_negative ? kPi : 0.0;
  } else if (isinf(ax) && isinf(ay)) {
    r = x_negative ? 0.75 * kPi : 0.25 * kPi;
  } else if (isinf(ax)) {
    r = x_negative ? kPi : 0.0;
  } else if (ax == 0.0 || isinf(ay)) {
    r = kHalfPi;
  } else {
    const float t = atan_(ay / ax);  // the quotient may overflow to inf (pi/2) or underflow to 0
    r = x_negative ? kPi - t : t;
  }
  return with_sign_of(r, y);
}

// backend/cpu/binary.cpp's logaddexp: NaN propagates; an infinite maximum or
// a -inf minimum is the answer itself.
float logaddexp_(float x, float y) {
  const float hi = (x > y || isnan(x)) ? x : y;
  const float lo = (x < y || isnan(x)) ? x : y;
  if (lo == -kInf || hi == kInf) return hi;
  return hi + log1p_(exp(lo - hi));
}

// The exact fmod(x, y) of the C library, on the bits: x's significand is
// reduced modulo y's, 8 bits of exponent difference at a time (at most 35
// steps), as long division does; x - y * trunc(x / y) would round.
float fmod_(float x, float y) {
  const uint ux = floatBitsToUint(x) & 0x7fffffffu, uy = floatBitsToUint(y) & 0x7fffffffu;
  if (ux >= 0x7f800000u || uy > 0x7f800000u || uy == 0u) return kNaN;  // inf or NaN x, NaN or 0 y
  if (ux < uy) return x;  // also y = inf
  // value = significand * 2^(e - 150), e >= 1 (subnormals have e = 1 and no hidden bit)
  const int ex = max(int(ux >> 23), 1), ey = max(int(uy >> 23), 1);
  const uint mx = (ux & 0x7fffffu) | (ux >= 0x800000u ? 0x800000u : 0u);
  const uint my = (uy & 0x7fffffu) | (uy >= 0x800000u ? 0x800000u : 0u);
  uint m = mx % my;
  for (int d = ex - ey; d > 0;) {
    const int step = min(d, 8);  // m < 2^24, so m << 8 fits in 32 bits
    m = (m << uint(step)) % my;
    d -= step;
  }
  uint bits = 0u;
  if (m != 0u) {  // m * 2^(ey - 150): normalize, or stay subnormal at e = 1
    const int shift = min(23 - findMSB(m), ey - 1);
    m <<= uint(shift);
    const int e = ey - shift;
    bits = m >= 0x800000u ? (uint(e) << 23) | (m & 0x7fffffu) : m;
  }
  return uintBitsToFloat(bits | (floatBitsToUint(x) & 0x80000000u));
}

// Python's %: fmod moved into the sign of y; a zero takes y's sign too.
float remainder_(float x, float y) {
  float r = fmod_(x, y);
  if (r == 0.0) return with_sign_of(0.0, y);
  if ((r < 0.0) != (y < 0.0)) r += y;
  return r;
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

// Integer floor division and remainder with backend/cpu/binary.cpp's
// definitions where GLSL's are undefined: x / 0 and x % 0 give 0, and the
// minimum value / -1 wraps to itself (remainder 0). Signed % is undefined
// for negative operands in GLSL, so the remainder comes from the quotient
// (SPIR-V's signed division truncates toward 0).
C floor_divide_(C x, C y) {
  if (y == C(0)) return C(0);
#if IN_KIND == 2
  if (y == C(-1)) return C(0) - x;
  C q = x / y;
  if (q * y != x && ((x < C(0)) != (y < C(0)))) q -= C(1);
  return q;
#else
  return x / y;
#endif
}

C remainder_(C x, C y) {
  if (y == C(0)) return C(0);
#if IN_KIND == 2
  if (y == C(-1)) return C(0);
  C r = x - (x / y) * y;
  if (r != C(0) && ((r < C(0)) != (y < C(0)))) r += y;
  return r;
#else
  return x % y;
#endif
}

// The dtype's width: counts outside [0, width) give numpy's results, as on
// the CPU (GLSL leaves them undefined). 8- and 16-bit integers compute in 32
// bits, whose low bits are the answer.
const int kBits = IN_BITS;

bool shift_out_of_range(C y) {
#if IN_KIND == 2
  if (y < C(0)) return true;
#endif
  return y >= C(kBits);
}

C left_shift_(C x, C y) { return shift_out_of_range(y) ? C(0) : x << y; }

C right_shift_(C x, C y) {
  if (!shift_out_of_range(y)) return x >> y;  // arithmetic for signed
#if IN_KIND == 2
  if (x < C(0)) return C(-1);
#endif
  return C(0);
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
    case BinaryOp_ArcTan2: return atan2_(x, y);
    case BinaryOp_LogAddExp: return logaddexp_(x, y);
    case BinaryOp_FloorDivide: return floor(x / y);
    case BinaryOp_Remainder: return remainder_(x, y);
#else
    case BinaryOp_Maximum: return x > y ? x : y;
    case BinaryOp_Minimum: return x < y ? x : y;
    case BinaryOp_Power: return power_(x, y);
    case BinaryOp_BitwiseAnd: return x & y;
    case BinaryOp_BitwiseOr: return x | y;
    case BinaryOp_BitwiseXor: return x ^ y;
    case BinaryOp_FloorDivide: return floor_divide_(x, y);
    case BinaryOp_Remainder: return remainder_(x, y);
    case BinaryOp_LeftShift: return left_shift_(x, y);
    case BinaryOp_RightShift: return right_shift_(x, y);
#endif
    default: return C(0);  // integer divide, float bitwise ops: never dispatched
  }
}

OUT_COMPUTE result(C v) {
#if OUT_KIND == 0
  return v != C(0) ? 1u : 0u;
#else
  return v;
#endif
}

struct Operands {
  IN_ELEM x, y;
};
#define LOADED Operands

Operands element_load(uint loc[NUM_OPERANDS]) { return Operands(a0[loc[0]], b0[loc[1]]); }

void element_store(uint i, uint loc[NUM_OPERANDS], Operands v) {
  out0[i] = store_out(result(apply(load_in(v.x), load_in(v.y))));
}

#if IN_BITS == 32 && OUT_BITS == 32
#define HAS_RUN_OF_4
layout(set = 0, binding = 1) readonly buffer A4 { uvec4 a4[]; };
layout(set = 0, binding = 2) readonly buffer B4 { uvec4 b4[]; };
layout(set = 0, binding = 3) writeonly buffer Out4 { uvec4 out4[]; };

void run_of_4(uint t, uint loc[NUM_OPERANDS]) {
  const uvec4 x = RUN_AT(a4, 0, loc[0]);
  const uvec4 y = RUN_AT(b4, 1, loc[1]);
  uvec4 o;
  for (uint c = 0u; c < 4u; ++c) {
    o[c] = out_bits(store_out(result(apply(load_in(in_from_bits(x[c])), load_in(in_from_bits(y[c]))))));
  }
  out4[t] = o;
}
#endif

#include "elementwise_main.glsl"
