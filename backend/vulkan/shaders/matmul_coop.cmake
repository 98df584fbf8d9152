# matmul_coop_float16[_f32]: a float16 Matmul on the matrix units in
# 128 x 128 tiles (params/matmul_coop.h), C in float16 or, for a split K's
# partial products, float32.
_add_variant(matmul_coop matmul_coop_float16 float16 float16)
_add_variant(matmul_coop matmul_coop_float16_f32 float16 float32)
