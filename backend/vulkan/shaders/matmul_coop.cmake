# matmul_coop_<t>[_f32]: a float16 or bfloat16 Matmul on the matrix units in
# 128 x 128 tiles (params/matmul_coop.h), C in t or, for a split K's partial
# products, float32. The bfloat16 variants are the same shader moving
# bfloat16 bits: float16 fragments until their SPIR-V is translated for
# VK_KHR_cooperative_matrix with bfloat16 operands (khr_cooperative_matrix.h),
# the only way they run.
foreach(t float16 bfloat16)
  _add_variant(matmul_coop matmul_coop_${t} ${t} ${t})
  _add_variant(matmul_coop matmul_coop_${t}_f32 ${t} float32)
endforeach()
