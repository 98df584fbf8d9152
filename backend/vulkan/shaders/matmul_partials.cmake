# matmul_partials_<t>: a split-K Matmul's float32 partial products added up
# into C of dtype t.
foreach(t float32 float16 bfloat16)
  _add_variant(matmul_partials matmul_partials_${t} float32 ${t})
endforeach()
