#version 450
#extension GL_GOOGLE_include_directive : require
// Arange: out[i] = start + i * step exactly as backend/cpu/creation.cpp
// computes it: in double (two roundings, no fused multiply-add), then
// truncated through int64 for integer dtypes or rounded to float (and from
// there to float16 / bfloat16) for float dtypes. Vulkan devices need not
// support float64 (and this library does not ask for it), so the double
// arithmetic is done on the bits with 64-bit integers, rounding to nearest
// even as IEEE 754 does: bit for bit the CPU's result, out-of-range
// conversions included (x86-64's cvttsd2si gives INT64_MIN).
// Variants arange_<dtype> (OUT is the dtype). Parameters: params/arange.h.
#include "common.glsl"
#include "params/arange.h"


layout(set = 0, binding = 1) writeonly buffer Out { OUT_ELEM out0[]; };

const uint64_t SIGN = 0x8000000000000000ul;
const uint64_t INF = 0x7ff0000000000000ul;
const uint64_t QUIET = 0x0008000000000000ul;
const uint64_t DEFAULT_NAN = 0xfff8000000000000ul;  // x86's "indefinite"
const uint64_t FRACTION = 0x000ffffffffffffful;
const uint64_t HIDDEN = 0x0010000000000000ul;

// The index of the highest set bit, -1 for 0.
int msb64(uint64_t x) {
  const uint hi = uint(x >> 32);
  return hi != 0u ? 32 + findMSB(hi) : findMSB(uint(x));
}

// A finite double as m * 2^e (m an integer below 2^53).
void unpack(uint64_t bits, out bool negative, out int e, out uint64_t m) {
  negative = (bits & SIGN) != 0ul;
  const int biased = int(bits >> 52) & 0x7ff;
  m = bits & FRACTION;
  if (biased == 0) {
    e = -1074;  // subnormal (or zero)
  } else {
    m |= HIDDEN;
    e = biased - 1075;
  }
}

bool is_special(uint64_t bits) { return (bits & INF) == INF; }
bool is_nan(uint64_t bits) { return (bits & ~SIGN) > INF; }

// The 128-bit integer (hi, lo) divided by 2^shift (shift >= 1), rounded to
// nearest, ties to even. Callers keep the result below 2^54.
uint64_t shift_round(uint64_t hi, uint64_t lo, int shift) {
  uint64_t q;          // (hi, lo) >> shift
  bool round_bit;      // bit shift - 1
  bool sticky;         // any bit below it
  if (shift >= 128) {
    q = 0ul;
    round_bit = shift == 128 && (hi >> 63) != 0ul;
    sticky = shift == 128 ? ((hi << 1) | lo) != 0ul : (hi | lo) != 0ul;
  } else if (shift >= 64) {
    const int s = shift - 64;  // 0..63, within hi
    q = s == 0 ? hi : hi >> s;
    if (s == 0) {
      round_bit = (lo >> 63) != 0ul;
      sticky = (lo << 1) != 0ul;
    } else {
      round_bit = ((hi >> (s - 1)) & 1ul) != 0ul;
      sticky = (hi & ((1ul << (s - 1)) - 1ul)) != 0ul || lo != 0ul;
    }
  } else {
    q = (lo >> shift) | (hi << (64 - shift));
    round_bit = ((lo >> (shift - 1)) & 1ul) != 0ul;
    sticky = (lo & ((1ul << (shift - 1)) - 1ul)) != 0ul;
  }
  if (round_bit && (sticky || (q & 1ul) != 0ul)) ++q;
  return q;
}

// The double nearest (hi, lo) * 2^e, a nonzero 128-bit integer times a power
// of two, with its sign: IEEE 754's rounding of an exact result.
uint64_t round_pack(bool negative, int e, uint64_t hi, uint64_t lo) {
  const uint64_t sign = negative ? SIGN : 0ul;
  const int p = hi != 0ul ? 64 + msb64(hi) : msb64(lo);
  if (p + e > 1023) return sign | INF;  // at least 2^1024 before rounding
  // Keep 53 significant bits, or fewer where the value is subnormal (the
  // last bit is then worth 2^-1074).
  const int shift = max(p - 52, -1074 - e);
  // Here the value is below 2^53 (hi is 0) and fits exactly.
  const uint64_t m = shift <= 0 ? lo << (-shift) : shift_round(hi, lo, shift);
  // m's top bit (2^52, or 2^53 after rounding up) lands in the exponent
  // field, which is how normal numbers get their implicit bit, subnormals
  // rounding up become normal, and a carry moves to the next binade.
  const uint64_t bits = (uint64_t(e + shift + 1074) << 52) + m;
  return sign | min(bits, INF);
}

// double(i) * x, as the CPU multiplies.
uint64_t mul_index(uint i, uint64_t x) {
  if (is_special(x)) {
    if (is_nan(x)) return x | QUIET;
    return i == 0u ? DEFAULT_NAN : x;  // 0 * inf
  }
  bool negative;
  int e;
  uint64_t m;
  unpack(x, negative, e, m);
  if (i == 0u || m == 0ul) return negative ? SIGN : 0ul;
  // i * m below 2^85 as (hi, lo): m = mh * 2^32 + ml with mh below 2^21.
  const uint64_t low = uint64_t(i) * (m & 0xfffffffful);
  const uint64_t high = uint64_t(i) * (m >> 32);
  const uint64_t lo = low + (high << 32);
  const uint64_t hi = (high >> 32) + (lo < low ? 1ul : 0ul);
  return round_pack(negative, e, hi, lo);
}

// a + b, as the CPU adds.
uint64_t add(uint64_t a, uint64_t b) {
  if (is_special(a) || is_special(b)) {
    if (is_nan(a)) return a | QUIET;
    if (is_nan(b)) return b | QUIET;
    if (is_special(a) && is_special(b)) return a == b ? a : DEFAULT_NAN;  // inf - inf
    return is_special(a) ? a : b;
  }
  bool na, nb;
  int ea, eb;
  uint64_t ma, mb;
  unpack(a, na, ea, ma);
  unpack(b, nb, eb, mb);
  if (ma == 0ul && mb == 0ul) return (na && nb) ? SIGN : 0ul;  // -0 only from -0 + -0
  if (ma == 0ul) return b;
  if (mb == 0ul) return a;
  if (ea < eb) {  // a has the larger exponent from here on
    const uint64_t t = a;
    a = b;
    b = t;
    const bool tn = na;
    na = nb;
    nb = tn;
    const int te = ea;
    ea = eb;
    eb = te;
    const uint64_t tm = ma;
    ma = mb;
    mb = tm;
  }
  const int diff = ea - eb;
  // b is below 2^(ea - 11) while a (normal, as ea > eb) is a multiple of
  // 2^ea: b is less than a quarter of any ulp next to a and cannot move it.
  if (diff > 64) return a;
  // a and b exactly, as 128-bit multiples of 2^eb.
  uint64_t ahi = diff == 0 ? 0ul : (diff == 64 ? ma : ma >> (64 - diff));
  uint64_t alo = diff == 64 ? 0ul : ma << diff;
  uint64_t hi, lo;
  bool negative;
  if (na == nb) {
    lo = alo + mb;
    hi = ahi + (lo < alo ? 1ul : 0ul);
    negative = na;
  } else {
    const bool a_larger = ahi != 0ul || alo > mb;
    if (!a_larger && alo == mb) return 0ul;  // x - x is +0
    if (a_larger) {
      lo = alo - mb;
      hi = ahi - (alo < mb ? 1ul : 0ul);
    } else {
      lo = mb - alo;
      hi = 0ul;
    }
    negative = a_larger ? na : nb;
  }
  return round_pack(negative, eb, hi, lo);
}

// (float) of a double, rounded to nearest even as cvtsd2ss does; NaNs keep
// their sign and top payload bits and become quiet.
uint to_float_bits(uint64_t x) {
  const uint sign = uint(x >> 32) & 0x80000000u;
  if (is_special(x)) {
    if (is_nan(x)) return sign | 0x7fc00000u | uint((x & FRACTION) >> 29);
    return sign | 0x7f800000u;
  }
  bool negative;
  int e;
  uint64_t m;
  unpack(x, negative, e, m);
  if (m == 0ul) return sign;
  const int p = msb64(m);
  if (p + e > 127) return sign | 0x7f800000u;
  // 24 significant bits, fewer in float's subnormal range (2^-149 steps).
  const int shift = max(p - 23, -149 - e);
  const uint f = uint(shift <= 0 ? m << (-shift) : shift_round(0ul, m, shift));
  // As in round_pack: the top bit carries into the exponent field.
  return sign | min((uint(e + shift + 149) << 23) + f, 0x7f800000u);
}

// (int64_t) of a double, truncating toward zero; NaN and values out of
// range give INT64_MIN, as x86-64's cvttsd2si.
int64_t to_int64(uint64_t x) {
  const int64_t indefinite = int64_t(SIGN);
  if (is_special(x)) return indefinite;
  bool negative;
  int e;
  uint64_t m;
  unpack(x, negative, e, m);
  if (m == 0ul) return 0l;
  uint64_t magnitude;
  if (e >= 0) {
    if (msb64(m) + e >= 63) return indefinite;  // |x| >= 2^63 (-2^63 is INT64_MIN too)
    magnitude = m << e;
  } else {
    magnitude = -e >= 64 ? 0ul : m >> (-e);
  }
  return negative ? -int64_t(magnitude) : int64_t(magnitude);
}

void main() {
  const int64_t i = thread_index();
  if (i >= params.n) return;
  const uint64_t v = add(params.start_bits, mul_index(uint(i), params.step_bits));
#if OUT_KIND == 3
  out0[uint(i)] = store_out(uintBitsToFloat(to_float_bits(v)));
#else
  out0[uint(i)] = store_out(OUT_COMPUTE(to_int64(v)));
#endif
}
