#version 450
#extension GL_GOOGLE_include_directive : require
// out[i] = f(in[i]) for the UnaryOp selected by OP (values of
// mlx_lite::UnaryOp); the semantics are backend/cpu/unary.cpp's.
#include "common.glsl"

layout(set = 0, binding = 1) readonly buffer In { IN_STORAGE in0[]; };
layout(set = 0, binding = 2) writeonly buffer Out { OUT_STORAGE out0[]; };

#if IN_KIND == 3
// log(1 + x) accurate for small x without relying on log's precision near 1
// (Vulkan allows it an absolute error of 2^-21): 2 atanh(s), s = x / (2 + x).
float log1p_(float x) {
  if (abs(x) >= 0.5) return log(1.0 + x);
  float s = x / (2.0 + x), s2 = s * s;
  return 2.0 * s *
         (1.0 + s2 * (1.0 / 3.0 + s2 * (0.2 + s2 * (1.0 / 7.0 + s2 * (1.0 / 9.0 + s2 * (1.0 / 11.0 + s2 / 13.0))))));
}

// erf: Taylor series near 0 (where the tail formula cancels), Abramowitz and
// Stegun 7.1.26 (absolute error below 1.5e-7) elsewhere.
float erf_(float x) {
  float a = abs(x);
  if (a < 0.5) {
    float x2 = x * x;
    return x * 1.1283791671 *
           (1.0 + x2 * (-1.0 / 3.0 + x2 * (0.1 + x2 * (-1.0 / 42.0 + x2 * (1.0 / 216.0 - x2 / 1320.0)))));
  }
  float t = 1.0 / (1.0 + 0.3275911 * a);
  float poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  float r = 1.0 - poly * exp(-a * a);
  return x < 0.0 ? -r : r;
}

// Giles' single-precision inverse error function, as the CPU kernel.
float erfinv_(float a) {
  float t = log(fma(a, -a, 1.0));
  float p;
  if (abs(t) > 6.125) {
    p = 3.03697567e-10;
    p = fma(p, t, 2.93243101e-8);
    p = fma(p, t, 1.22150334e-6);
    p = fma(p, t, 2.84108955e-5);
    p = fma(p, t, 3.93552968e-4);
    p = fma(p, t, 3.02698812e-3);
    p = fma(p, t, 4.83185798e-3);
    p = fma(p, t, -2.64646143e-1);
    p = fma(p, t, 8.40016484e-1);
  } else {
    p = 5.43877832e-9;
    p = fma(p, t, 1.43285448e-7);
    p = fma(p, t, 1.22774793e-6);
    p = fma(p, t, 1.12963626e-7);
    p = fma(p, t, -5.61530760e-5);
    p = fma(p, t, -1.47697632e-4);
    p = fma(p, t, 2.31468678e-3);
    p = fma(p, t, 1.15392581e-2);
    p = fma(p, t, -2.32015476e-1);
    p = fma(p, t, 8.86226892e-1);
  }
  return a * p;
}

// tanh saturates long before float's exp overflows.
float tanh_(float x) { return abs(x) > 15.0 ? sign(x) : tanh(x); }
#endif

IN_COMPUTE apply(IN_COMPUTE x) {
  switch (OP) {
#if IN_KIND >= 2
    case 0: return x < IN_COMPUTE(0) ? -x : x;  // Abs
#endif
#if IN_KIND >= 1
    case 1: return -x;                          // Negative (wraps for unsigned)
#endif
    case 10: return x * x;                      // Square
    case 17: return x == IN_COMPUTE(0) ? IN_COMPUTE(1) : IN_COMPUTE(0);  // LogicalNot
#if IN_KIND == 3
    case 2: return floor(x);
    case 3: return ceil(x);
    case 4: return roundEven(x);
    case 5: return exp(x);
    case 6: return log(x);
    case 7: return log1p_(x);
    case 8: return sqrt(x);
    case 9: return 1.0 / sqrt(x);
    case 11: return sin(x);
    case 12: return cos(x);
    case 13: return tanh_(x);
    case 14: return 1.0 / (1.0 + exp(-x));
    case 15: return erf_(x);
    case 16: return erfinv_(x);
#endif
    default: return x;  // rounding an integer, or abs of an unsigned, changes nothing
  }
}

void main() {
  const int64_t i = thread_index();
  if (i >= meta[0]) return;
  out0[uint(i)] = store_out(apply(load_in(in0[uint(input_location(0, i))])));
}
