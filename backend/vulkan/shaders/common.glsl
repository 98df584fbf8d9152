// Shared by the built-in elementwise shaders. Each variant is compiled with
// its types as macros (backend/vulkan/CMakeLists.txt):
//   IN_STORAGE / OUT_STORAGE  the element type in the buffer
//   IN_COMPUTE / OUT_COMPUTE  the type arithmetic happens in (float for the
//                             16-bit floats, uint for bool and uint8)
//   IN_KIND / OUT_KIND        0 bool, 1 unsigned, 2 signed, 3 float
//   IN_BF16 / OUT_BF16        1 for bfloat16 (stored as its 16 bits)
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint OP = 0;
// All operands are dense row-major: element i of operand k is at offset_k + i.
layout(constant_id = 2) const bool CONTIGUOUS = false;

// [n, ndim, shape[ndim], then per input: offset, strides[ndim]], in elements.
layout(set = 0, binding = 0) readonly buffer Metadata { int64_t meta[]; };

// The row-major index of this thread; the host folds wide grids into y.
int64_t thread_index() {
  return int64_t(gl_GlobalInvocationID.x) +
         int64_t(gl_GlobalInvocationID.y) * int64_t(gl_NumWorkGroups.x * gl_WorkGroupSize.x);
}

// Where element i of input k lies in its buffer.
int64_t input_location(int k, int64_t i) {
  const int64_t ndim = meta[1];
  const int64_t base = 2 + ndim + k * (ndim + 1);
  int64_t loc = meta[int(base)];
  if (CONTIGUOUS) return loc + i;
  for (int64_t d = ndim - 1; d >= 0 && i > 0; --d) {
    const int64_t extent = meta[int(2 + d)];
    loc += (i % extent) * meta[int(base + 1 + d)];
    i /= extent;
  }
  return loc;
}

// bfloat16 is float's top half, rounded to nearest even; NaN stays quiet.
float bf16_to_float(uint16_t b) { return uintBitsToFloat(uint(b) << 16); }
uint16_t float_to_bf16(float f) {
  uint u = floatBitsToUint(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return uint16_t((u >> 16) | 0x40u);
  return uint16_t((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

IN_COMPUTE load_in(IN_STORAGE v) {
#if IN_BF16
  return bf16_to_float(v);
#else
  return IN_COMPUTE(v);
#endif
}

OUT_STORAGE store_out(OUT_COMPUTE c) {
#if OUT_BF16
  return float_to_bf16(c);
#elif OUT_KIND == 0
  return uint8_t(c != 0u ? 1u : 0u);
#else
  return OUT_STORAGE(c);
#endif
}

// The CPU's static_cast from IN's compute type to OUT's: to bool is != 0,
// float to integer truncates toward zero (through 64 bits, keeping the low
// bits as x86 does), integers convert modulo their width.
OUT_COMPUTE convert(IN_COMPUTE x) {
#if OUT_KIND == 0
  return x != IN_COMPUTE(0) ? 1u : 0u;
#elif IN_KIND == 3 && OUT_KIND != 3
  return OUT_COMPUTE(int64_t(x));
#else
  return OUT_COMPUTE(x);
#endif
}
