// Reads the shape block (params/shape_block.h): binding 0, a uniform buffer
// of int64 words (std140: two per 16-byte vector) after the family's table,
// if it has one (it defines MLX_SHAPE_BLOCK_TABLE as the table's members
// before including this). Include after common.glsl and the family's
// parameter header.
layout(set = 0, binding = 0, std140) uniform MlxShapeBlock {
#ifdef MLX_SHAPE_BLOCK_TABLE
  MLX_SHAPE_BLOCK_TABLE
#endif
  i64vec2 mlx_shape_words[kShapeBlockWords / 2];
};

int64_t shape_word(int i) { return mlx_shape_words[i >> 1][i & 1]; }

// Extent of dim d of a strided layout, and its stride in operand k.
int64_t dim_extent(ShapeRef r, int d) { return shape_word(r.at + d); }
int64_t dim_stride(ShapeRef r, int k, int d) { return shape_word(r.at + (1 + k) * r.ndim + d); }

// Where row-major element i of the layout lies in operand k, from that
// operand's first element.
//
// Shaders index a binding with a 32-bit element index, so the location is
// only needed modulo 2^32: it is computed in uint arithmetic, which wraps
// exactly (negative strides included) and costs GPUs a fraction of 64-bit
// multiplies. Only the coordinates need 64 bits, for layouts of 2^32
// elements or more: `small` (all of them fewer) takes 32-bit division,
// since GPUs emulate 64-bit division in tens of instructions.
uint locate(ShapeRef r, int k, int64_t i, bool small) {
  uint loc = 0u;
  if (small) {
    uint j = uint(i);
    for (int d = r.ndim - 1; d >= 0 && j > 0u; --d) {
      uint coord;
      j = divide(j, uint(dim_extent(r, d)), coord);
      loc += coord * uint(dim_stride(r, k, d));
    }
    return loc;
  }
  for (int d = r.ndim - 1; d >= 0 && i > 0; --d) {
    const int64_t e = dim_extent(r, d);
    loc += uint(i % e) * uint(dim_stride(r, k, d));
    i /= e;
  }
  return loc;
}

bool fits_32_bits(int64_t n) { return n <= int64_t(0xffffffffu); }
