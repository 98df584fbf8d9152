// Shared by every built-in shader: the storage and compute types of the
// dtype variants, thread indices, and the CPU's conversions and 16-bit float
// rounding. Each variant is compiled with its types as macros
// (backend/vulkan/shaders.cmake):
//   IN_STORAGE / OUT_STORAGE  the dtype's element type: uint8_t (bool, uint8),
//                             uint16_t (uint16, and bfloat16's bits), uint,
//                             uint64_t, int8_t, int16_t, int, int64_t,
//                             float16_t, float
//   IN_COMPUTE / OUT_COMPUTE  the type arithmetic happens in (float for the
//                             three float dtypes, uint for bool, uint8 and
//                             uint16, int for int8 and int16: narrow integers
//                             are stored modulo their width, as C++ casts)
//   IN_KIND / OUT_KIND        0 bool, 1 unsigned, 2 signed, 3 float
//   IN_BF16 / OUT_BF16        1 for bfloat16
//   IN_BITS / OUT_BITS        the dtype's width: 8, 16, 32 or 64
// A shader's parameters, specialization constants and bindings are declared
// in its family's header, params/<family>.h, which the host includes too.
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require

// ---------------------------------------------------------------------------
// Types. float16 is held as its 16 bits (uint16_t in the buffer) and
// converted by hand exactly as mlx_lite/types/half_types.h does: a driver's
// float<->half conversion may round toward zero, flush half subnormals or
// quiet NaNs (Vulkan allows all three), and keeping float16_t out of the
// shaders needs no shaderFloat16 feature.
//
// glslang cannot paste tokens inside #if, so the storage type the build
// passes is mapped by pasting outside it: to the buffer's element type, and
// to a number that constants below compare (dead branches fold away).
#define MLX_CAT_(a, b) a##b
#define MLX_CAT(a, b) MLX_CAT_(a, b)
#define MLX_ELEM_uint8_t uint8_t
#define MLX_ELEM_uint uint
#define MLX_ELEM_int int
#define MLX_ELEM_int64_t int64_t
#define MLX_ELEM_float16_t uint16_t
#define MLX_ELEM_uint16_t uint16_t
#define MLX_ELEM_float float
#define MLX_ELEM_int8_t int8_t
#define MLX_ELEM_int16_t int16_t
#define MLX_ELEM_uint64_t uint64_t
#define MLX_TYPEID_uint8_t 1
#define MLX_TYPEID_uint 2
#define MLX_TYPEID_int 3
#define MLX_TYPEID_int64_t 4
#define MLX_TYPEID_float16_t 5
#define MLX_TYPEID_uint16_t 6
#define MLX_TYPEID_float 7
#define MLX_TYPEID_int8_t 8
#define MLX_TYPEID_int16_t 9
#define MLX_TYPEID_uint64_t 10
#define IN_ELEM MLX_CAT(MLX_ELEM_, IN_STORAGE)
#define OUT_ELEM MLX_CAT(MLX_ELEM_, OUT_STORAGE)
const int IN_TYPEID = MLX_CAT(MLX_TYPEID_, IN_STORAGE);
const int OUT_TYPEID = MLX_CAT(MLX_TYPEID_, OUT_STORAGE);
const bool IN_HALF = IN_TYPEID == 5;
const bool OUT_HALF = OUT_TYPEID == 5;
// uint64, whose values past 2^63 int64_t cannot hold: accumulators and
// comparisons use uint64_t for it.
#define IN_U64 (IN_KIND == 1 && IN_BITS == 64)
#define OUT_U64 (OUT_KIND == 1 && OUT_BITS == 64)
// Input and output are one dtype (bool and uint8 share a storage type, not a
// kind; so do uint16 and bfloat16).
const bool SAME_DTYPE = IN_TYPEID == OUT_TYPEID && IN_KIND == OUT_KIND;

// ---------------------------------------------------------------------------
// Indexing.

// The row-major index of this thread. The host folds grids wider than
// maxComputeWorkGroupCount.x into y; 64-bit so that arrays past 2^32 elements
// and x counts past 2^32 / local_size (NVIDIA allows 2^31 - 1) stay exact.
int64_t thread_index() {
  return int64_t(gl_GlobalInvocationID.x) +
         int64_t(gl_GlobalInvocationID.y) * (int64_t(gl_NumWorkGroups.x) * int64_t(gl_WorkGroupSize.x));
}

// The linear index of this workgroup (the host folds wide grids into y).
int64_t workgroup_index() {
  return int64_t(gl_WorkGroupID.x) + int64_t(gl_WorkGroupID.y) * int64_t(gl_NumWorkGroups.x);
}

// j / extent, leaving j % extent in `rem`: a shift and a mask for powers of
// two (most ML extents; the branch is uniform), else 32-bit division, which
// GPUs run as a sequence of tens of instructions.
uint divide(uint j, uint extent, out uint rem) {
  if ((extent & (extent - 1u)) == 0u) {
    rem = j & (extent - 1u);
    return j >> findLSB(extent);
  }
  rem = j % extent;
  return j / extent;
}

// ---------------------------------------------------------------------------
// 16-bit floats, bit for bit as mlx_lite/types/half_types.h.

// bfloat16 is float's top half, rounded to nearest even; NaN stays quiet.
float bf16_to_float(uint b) { return uintBitsToFloat(b << 16); }
uint float_to_bf16(float f) {
  const uint u = floatBitsToUint(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (u >> 16) | 0x40u;
  return (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
}

// Selects rather than branches: the tiled matmul converts 8 elements a
// thread a step, where branches that diverge would run one after another.
float half_to_float(uint h) {
  const uint sign = (h & 0x8000u) << 16;
  const uint exponent = (h >> 10) & 0x1fu;
  const uint mantissa = h & 0x3ffu;
  const uint normal = sign | ((exponent + 112u) << 23) | (mantissa << 13);
  const uint special = sign | 0x7f800000u | (mantissa << 13);  // inf or nan
  // Zero or subnormal: mantissa * 2^-24, exact (and normal) in float.
  const uint small = sign | floatBitsToUint(float(mantissa) * 5.9604644775390625e-8);
  return uintBitsToFloat(exponent == 0x1fu ? special : (exponent == 0u ? small : normal));
}

uint float_to_half(float value) {
  const uint f = floatBitsToUint(value);
  const uint sign = (f >> 16) & 0x8000u;
  const uint a = f & 0x7fffffffu;
  if (a >= 0x7f800000u) return sign | 0x7c00u | (a > 0x7f800000u ? 0x200u : 0u);  // inf, quiet nan
  if (a >= 0x477ff000u) return sign | 0x7c00u;  // rounds past the largest half
  if (a < 0x38800000u) {                        // half subnormal or zero
    if (a < 0x33000000u) return sign;           // below half the smallest subnormal
    const uint mantissa = (a & 0x7fffffu) | 0x800000u;
    const uint shift = 126u - (a >> 23);  // 14..24
    uint half_ = mantissa >> shift;
    const uint rest = mantissa & ((1u << shift) - 1u);
    const uint halfway = 1u << (shift - 1u);
    if (rest > halfway || (rest == halfway && (half_ & 1u) != 0u)) ++half_;
    return sign | half_;
  }
  uint half_ = (a - 0x38000000u) >> 13;  // rebias the exponent 127 -> 15
  const uint rest = a & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half_ & 1u) != 0u)) ++half_;
  return sign | half_;
}

// ---------------------------------------------------------------------------
// Loads, stores and conversions between compute types.

IN_COMPUTE load_in(IN_ELEM v) {
#if IN_BF16
  return bf16_to_float(uint(v));
#else
  if (IN_HALF) return IN_COMPUTE(half_to_float(uint(v)));
  return IN_COMPUTE(v);
#endif
}

#if IN_BITS == 32
// A 32-bit element's value from its bits, as a uvec4 view of the input's
// binding (runs of 4 loaded as vectors) reads them.
IN_COMPUTE load_in_bits(uint bits) {
#if IN_KIND == 3
  return uintBitsToFloat(bits);
#else
  return IN_COMPUTE(bits);  // int(uint) keeps the bits
#endif
}
#endif

OUT_ELEM store_out(OUT_COMPUTE c) {
#if OUT_BF16
  return uint16_t(float_to_bf16(c));
#elif OUT_KIND == 0
  return uint8_t(c != 0u ? 1u : 0u);
#else
  if (OUT_HALF) return OUT_ELEM(float_to_half(float(c)));
  // Narrower integers keep the low bits (uint8 from uint), as C++ does.
  return OUT_ELEM(c);
#endif
}

// The CPU's static_cast from IN's compute type to OUT's: to bool is != 0;
// float to integer truncates toward zero, through 64 bits so that negative
// values wrap into the unsigned types as they do on x86-64; integers convert
// modulo their width; integers to float round to nearest.
OUT_COMPUTE convert(IN_COMPUTE x) {
#if OUT_KIND == 0
  return x != IN_COMPUTE(0) ? 1u : 0u;
#elif IN_KIND == 3 && OUT_U64
  // uint64 from float: the CPU's conversion is exact up to 2^64 (negative
  // values wrap through int64 as they do on x86-64).
  return x >= 9223372036854775808.0 ? uint64_t(x) : uint64_t(int64_t(x));
#elif IN_KIND == 3 && OUT_KIND != 3
  return OUT_COMPUTE(int64_t(x));
#else
  return OUT_COMPUTE(x);
#endif
}
