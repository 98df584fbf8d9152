#version 450
#extension GL_GOOGLE_include_directive : require
// out[i] = f(in[i]) for the UnaryOp selected by OP (its values are
// params/elementwise.h's UnaryOp_*); variants unary_<dtype>, with backend/cpu/unary.cpp's
// semantics. Float dtypes compute in float.
#include "elementwise.glsl"
#define NUM_OPERANDS 1

layout(set = 0, binding = 1) readonly buffer In { IN_ELEM in0[]; };
layout(set = 0, binding = 2) writeonly buffer Out { OUT_ELEM out0[]; };

#if IN_KIND == 3
// log(1 + x) without forming 1 + x near 0, where it loses x's low bits (and
// Vulkan allows log an absolute error of 2^-21 around 1):
// log1p(x) = 2 atanh(s), s = x / (2 + x), |s| <= 1/3; ~2 ulp.
float log1p_(float x) {
  if (abs(x) >= 0.5) return log(1.0 + x);
  const float s = x / (2.0 + x), s2 = s * s;
  return 2.0 * s *
         (1.0 + s2 * (1.0 / 3.0 + s2 * (0.2 + s2 * (1.0 / 7.0 + s2 * (1.0 / 9.0 +
                                                  s2 * (1.0 / 11.0 + s2 / 13.0))))));
}

// Norbert Juffa's faithfully rounded erff, the polynomial MLX's Metal erf.h
// uses: max error about 1 ulp (abs error < 6e-8 measured against double).
float erf_(float a) {
  const float t = abs(a), s = a * a;
  float r;
  if (t > 0.927734375) {
    r = fma(-1.72853470e-5, t, 3.83197126e-4);
    const float u = fma(-3.88396438e-3, t, 2.42546219e-2);
    r = fma(r, s, u);
    r = fma(r, t, -1.06777877e-1);
    r = fma(r, t, -6.34846687e-1);
    r = fma(r, t, -1.28717512e-1);
    r = fma(r, t, -t);
    r = 1.0 - exp(r);
    // copysign; a NaN input is already NaN here.
    return a < 0.0 ? -r : r;
  }
  r = -5.96761703e-4;
  r = fma(r, s, 4.99119423e-3);
  r = fma(r, s, -2.67681349e-2);
  r = fma(r, s, 1.12819925e-1);
  r = fma(r, s, -3.76125336e-1);
  r = fma(r, s, 1.28379166e-1);
  return fma(r, a, a);
}

// Giles' single-precision inverse error function, term for term the CPU's,
// except 1 - a^2: the CPU's fused fma(a, -a, 1) is exact to half an ulp, but
// GLSL may split fma into a rounded product and a sum (lavapipe does, even
// under `precise`), which near |a| = 1 is off by 1e-4 relative. (1 - |a|) is
// exact there (Sterbenz), so the product below is within about an ulp.
float erfinv_(float a) {
  const float t = log((1.0 - abs(a)) * (1.0 + abs(a)));
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

// GLSL's tanh is commonly (e^2x - 1) / (e^2x + 1): inf / inf = NaN for large
// |x| and cancellation near 0. Instead: the Taylor series below 0.55 (no
// cancellation; truncation < 1e-8), else 1 - 2 / (e^2|x| + 1), which tends
// to 1 as e^2|x| overflows. ~3 ulp. Below 2^-12, x^3/3 is under half an
// ulp of x, and returning x keeps the sign of -0.0 as std::tanh does.
float tanh_(float x) {
  const float a = abs(x);
  if (a < 2.44140625e-4) return x;
  if (a < 0.55) {
    const float s = x * x;
    float p = 6404582.0 / 10854718875.0;
    p = fma(p, s, -929569.0 / 638512875.0);
    p = fma(p, s, 21844.0 / 6081075.0);
    p = fma(p, s, -1382.0 / 155925.0);
    p = fma(p, s, 62.0 / 2835.0);
    p = fma(p, s, -17.0 / 315.0);
    p = fma(p, s, 2.0 / 15.0);
    p = fma(p, s, -1.0 / 3.0);
    return fma(x * s, p, x);
  }
  const float r = 1.0 - 2.0 / (exp(2.0 * a) + 1.0);
  return x < 0.0 ? -r : r;
}
#endif

IN_COMPUTE apply(IN_COMPUTE x) {
  switch (OP) {
#if IN_KIND >= 2
    case UnaryOp_Abs: return x < IN_COMPUTE(0) ? -x : x;  // -0.0 stays -0.0, as on the CPU
#endif
#if IN_KIND >= 1
    case UnaryOp_Negative: return -x;  // wraps for unsigned (stored modulo 2^8 for uint8)
#endif
    case UnaryOp_Square: return x * x;
    case UnaryOp_LogicalNot: return x == IN_COMPUTE(0) ? IN_COMPUTE(1) : IN_COMPUTE(0);
#if IN_KIND == 3
    case UnaryOp_Floor: return floor(x);
    case UnaryOp_Ceil: return ceil(x);
    case UnaryOp_Round: return roundEven(x);  // std::nearbyint: half to even
    case UnaryOp_Exp: return exp(x);
    case UnaryOp_Log: return log(x);
    case UnaryOp_Log1p: return log1p_(x);
    case UnaryOp_Sqrt: return sqrt(x);
    case UnaryOp_Rsqrt: return 1.0 / sqrt(x);  // the CPU's 1 / sqrt, not inversesqrt
    case UnaryOp_Sin: return sin(x);
    case UnaryOp_Cos: return cos(x);
    case UnaryOp_Tanh: return tanh_(x);
    case UnaryOp_Sigmoid: return 1.0 / (1.0 + exp(-x));  // exp overflow gives 1 / inf = 0
    case UnaryOp_Erf: return erf_(x);
    case UnaryOp_ErfInv: return erfinv_(x);
#endif
    // Rounding an integer, abs of an unsigned, and negative of a bool
    // (static_cast<bool>(-x) == x) change nothing.
    default: return x;
  }
}

void element_at(uint i, uint loc[NUM_OPERANDS]) {
  out0[i] = store_out(apply(load_in(in0[loc[0]])));
}

#include "elementwise_main.glsl"
