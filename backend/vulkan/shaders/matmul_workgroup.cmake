# matmul_workgroup_<t>: a float16 or bfloat16 Matmul of whole tiles on
# workgroup-scope matrices (params/matmul_workgroup.h). Both are the same
# float16 shader: it runs only translated for VK_KHR_cooperative_matrix
# (khr_cooperative_matrix.h), the bfloat16 one with bfloat16 matrices.
foreach(t float16 bfloat16)
  _add_variant(matmul_workgroup matmul_workgroup_${t} ${t} ${t})
endforeach()
