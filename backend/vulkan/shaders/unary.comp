#version 450
#extension GL_GOOGLE_include_directive : require
// out[i] = f(in[i]) for the UnaryOp selected by OP (its values are
// params/elementwise.h's UnaryOp_*); variants unary_<dtype>, with backend/cpu/unary.cpp's
// semantics. Float dtypes compute in float.
#include "elementwise.glsl"
#include "float_math.glsl"
#define NUM_OPERANDS 1

layout(set = 0, binding = 1) readonly buffer In { IN_ELEM in0[]; };
layout(set = 0, binding = 2) writeonly buffer Out { OUT_ELEM out0[]; };

#if IN_KIND == 3
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

// The functions below replace GLSL built-ins that Vulkan lets drivers
// compute imprecisely (asin, acos and atan to 4096 ulp; log2 near 1 to an
// absolute 2^-21) or that cancel (sinh, asinh, atanh and acosh written as
// exp/log formulas), so every device gives the CPU's answer within a few ulp
// (float_math.glsl has log1p_ and atan_).

// e^x - 1: the Taylor series through x^11/11! below 0.5 (truncation under
// 1e-12 relative; exp(x) - 1 would cancel), else exp(x) - 1.
float expm1_(float x) {
  if (abs(x) >= 0.5) return exp(x) - 1.0;
  float p = 1.0 / 39916800.0;
  p = fma(p, x, 1.0 / 3628800.0);
  p = fma(p, x, 1.0 / 362880.0);
  p = fma(p, x, 1.0 / 40320.0);
  p = fma(p, x, 1.0 / 5040.0);
  p = fma(p, x, 1.0 / 720.0);
  p = fma(p, x, 1.0 / 120.0);
  p = fma(p, x, 1.0 / 24.0);
  p = fma(p, x, 1.0 / 6.0);
  p = fma(p, x, 0.5);
  p = fma(p, x, 1.0);
  return x * p;
}

// e^a / 2 for a >= 88, finite up to about 89.4 where e^a itself overflows:
// e^(a - 88) (a - 88 is exact) times e^88 / 2. Vulkan's exp may lose
// 3 + 2|x| ulp, so the small argument also keeps it accurate.
float half_exp_large(float a) {
  return exp(a - 88.0) * 8.25818127e37;
}

// sinh |x| = (E + E / (E + 1)) / 2 with E = expm1(|x|) below 1 (no
// cancellation), (e - 1/e) / 2 to 88, then half_exp_large.
float sinh_(float x) {
  const float a = abs(x);
  float r;
  if (a < 1.0) {
    const float e = expm1_(a);
    r = 0.5 * (e + e / (e + 1.0));
  } else if (a < 88.0) {
    const float e = exp(a);
    r = 0.5 * (e - 1.0 / e);
  } else {
    r = half_exp_large(a);
  }
  return with_sign_of(r, x);
}

float cosh_(float x) {
  const float a = abs(x);
  if (a < 88.0) {
    const float e = exp(a);
    return 0.5 * (e + 1.0 / e);
  }
  return half_exp_large(a);  // NaN stays NaN
}

// Cephes' asinf: a polynomial below 0.5, else pi/2 - 2 asin(sqrt((1 - |x|) / 2)),
// whose argument is exact (Sterbenz).
float asin_(float x) {
  const float a = abs(x);
  if (a > 1.0) return kNaN;
  const bool big = a > 0.5;
  const float z = big ? 0.5 * (1.0 - a) : a * a;
  const float t = big ? sqrt(z) : a;
  float p = 4.2163199048e-2;
  p = fma(p, z, 2.4181311049e-2);
  p = fma(p, z, 4.5470025998e-2);
  p = fma(p, z, 7.4953002686e-2);
  p = fma(p, z, 1.6666752422e-1);
  p = fma(p * z, t, t);
  return with_sign_of(big ? kHalfPi - 2.0 * p : p, x);
}

float acos_(float x) {
  if (abs(x) > 1.0) return kNaN;
  if (x < -0.5) return kPi - 2.0 * asin_(sqrt(0.5 * (1.0 + x)));
  if (x > 0.5) return 2.0 * asin_(sqrt(0.5 * (1.0 - x)));
  return kHalfPi - asin_(x);  // NaN stays NaN
}

// asinh |x| = log1p(|x| + x^2 / (1 + sqrt(1 + x^2))) below 2 (glibc's
// split), log(2|x| + 1 / (sqrt(x^2 + 1) + |x|)) to 4096, then log|x| + ln 2
// (x^2 + 1 is x^2 in float there, and x^2 would overflow later).
float asinh_(float x) {
  const float a = abs(x);
  float r;
  if (a > 4096.0) {
    r = log(a) + kLn2;
  } else if (a > 2.0) {
    r = log(2.0 * a + 1.0 / (sqrt(a * a + 1.0) + a));
  } else {
    const float a2 = a * a;
    r = log1p_(a + a2 / (1.0 + sqrt(1.0 + a2)));
  }
  return with_sign_of(r, x);
}

// acosh x = log1p(t + sqrt(2t + t^2)) with t = x - 1 (exact) below 2,
// log(2x - 1 / (x + sqrt(x^2 - 1))) to 4096, then log x + ln 2.
float acosh_(float x) {
  if (x < 1.0) return kNaN;
  if (x > 4096.0) return log(x) + kLn2;
  if (x > 2.0) return log(2.0 * x - 1.0 / (x + sqrt(x * x - 1.0)));
  const float t = x - 1.0;
  return log1p_(t + sqrt(2.0 * t + t * t));
}

// atanh |x| = log1p(2|x| / (1 - |x|)) / 2: no cancellation near 0.
float atanh_(float x) {
  const float a = abs(x);
  if (a > 1.0) return kNaN;
  if (a == 1.0) return with_sign_of(kInf, x);
  return with_sign_of(0.5 * log1p_(2.0 * a / (1.0 - a)), x);
}

// log2 and log10 through log1p on (0.5, 2), where x - 1 is exact and the
// built-in log2 may be off by 2^-21 absolute; the built-in elsewhere, with
// its undefined cases (0 and negatives) made the C library's.
float log2_(float x) {
  if (x > 0.5 && x < 2.0) return log1p_(x - 1.0) * 1.44269504088896341;
  if (x == 0.0) return -kInf;
  if (x < 0.0) return kNaN;
  return log2(x);
}

float log10_(float x) {
  if (x > 0.5 && x < 2.0) return log1p_(x - 1.0) * 0.434294481903251828;
  return log2_(x) * 0.301029995663981195;
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
#if IN_KIND >= 2
    // MLX's sign: NaN fails both tests and gives 0.
    case UnaryOp_Sign: return x > IN_COMPUTE(0) ? IN_COMPUTE(1) : (x < IN_COMPUTE(0) ? IN_COMPUTE(-1) : IN_COMPUTE(0));
#else
    case UnaryOp_Sign: return x != IN_COMPUTE(0) ? IN_COMPUTE(1) : IN_COMPUTE(0);
#endif
#if IN_KIND == 1 || IN_KIND == 2
    case UnaryOp_BitwiseInvert: return ~x;  // uint8 keeps the low 8 bits when stored
#endif
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
    case UnaryOp_Tan: return isinf(x) ? kNaN : sin(x) / cos(x);  // sin(inf) is undefined in GLSL
    case UnaryOp_ArcSin: return asin_(x);
    case UnaryOp_ArcCos: return acos_(x);
    case UnaryOp_ArcTan: return atan_(x);
    case UnaryOp_Sinh: return sinh_(x);
    case UnaryOp_Cosh: return cosh_(x);
    case UnaryOp_ArcSinh: return asinh_(x);
    case UnaryOp_ArcCosh: return acosh_(x);
    case UnaryOp_ArcTanh: return atanh_(x);
    case UnaryOp_Expm1: return expm1_(x);
    case UnaryOp_Log2: return log2_(x);
    case UnaryOp_Log10: return log10_(x);
#endif
    // Rounding an integer, abs of an unsigned, and negative of a bool
    // (static_cast<bool>(-x) == x) change nothing.
    default: return x;
  }
}

#define LOADED IN_ELEM

IN_ELEM element_load(uint loc[NUM_OPERANDS]) { return in0[loc[0]]; }

#if IN_KIND == 3 && OUT_KIND == 0
// Variants unary_<float>_bool: IsFinite or IsInf of the value in float
// (float16 and bfloat16 infinities and NaNs stay what they are there).
void element_store(uint i, uint loc[NUM_OPERANDS], IN_ELEM v) {
  const float x = load_in(v);
  const bool r = OP == UnaryOp_IsFinite ? !(isinf(x) || isnan(x)) : isinf(x);
  out0[i] = store_out(r ? 1u : 0u);
}
#else
void element_store(uint i, uint loc[NUM_OPERANDS], IN_ELEM v) {
  out0[i] = store_out(apply(load_in(v)));
}
#endif

#if IN_BITS == 32 && OUT_BITS == 32
#define HAS_RUN_OF_4
layout(set = 0, binding = 1) readonly buffer In4 { uvec4 in4[]; };
layout(set = 0, binding = 2) writeonly buffer Out4 { uvec4 out4[]; };

void run_of_4(uint t, uint loc[NUM_OPERANDS]) {
  const uvec4 v = RUN_AT(in4, 0, loc[0]);
  uvec4 o;
  for (uint c = 0u; c < 4u; ++c) o[c] = out_bits(store_out(apply(load_in(in_from_bits(v[c])))));
  out4[t] = o;
}
#endif

#include "elementwise_main.glsl"
