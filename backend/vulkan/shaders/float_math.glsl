// Float helpers of the elementwise shaders that more than one needs
// (unary.comp, binary.comp), for float compute types only. Each matches the
// C library's function on the CPU within a few ulp on every Vulkan device,
// where GLSL's built-ins may be far less precise.
#if IN_KIND == 3
const float kPi = 3.14159265358979;
const float kHalfPi = 1.57079632679490;
const float kLn2 = 0.693147180559945;
// (glslang cannot fold uintBitsToFloat into a global constant.)
#define kNaN uintBitsToFloat(0x7fc00000u)
#define kInf uintBitsToFloat(0x7f800000u)

// r with the sign bit of x (r >= 0 or NaN), keeping -0.0 as the CPU does.
float with_sign_of(float r, float x) {
  return uintBitsToFloat(floatBitsToUint(r) | (floatBitsToUint(x) & 0x80000000u));
}

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

// Cephes' atanf: reduction to |x| <= tan(pi/8), then a degree-9 odd
// polynomial; about 2 ulp.
float atan_(float x) {
  float a = abs(x), base = 0.0;
  if (a > 2.414213562373095) {
    base = kHalfPi;
    a = -1.0 / a;
  } else if (a > 0.4142135623730950) {
    base = 0.25 * kPi;
    a = (a - 1.0) / (a + 1.0);
  }
  const float z = a * a;
  float p = 8.05374449538e-2;
  p = fma(p, z, -1.38776856032e-1);
  p = fma(p, z, 1.99777106478e-1);
  p = fma(p, z, -3.33329491539e-1);
  return with_sign_of(base + fma(p * z, a, a), x);
}

#endif
