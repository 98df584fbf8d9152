# matmul_coop_float16[_f32]_<wide|narrow>: a float16 Matmul on the matrix
# units in 128 x 256 or 128 x 128 tiles (params/matmul_coop.h), C in float16
# or, for a split K's partial products, float32. Each of the 8 subgroups
# computes 32 x 64 (wide) or 64 x 32 of the tile.
foreach(out float16 float32)
  set(suffix "")
  if(out STREQUAL "float32")
    set(suffix "_f32")
  endif()
  _add_variant(matmul_coop matmul_coop_float16${suffix}_wide float16 ${out} -DWIDE=1 -DWM=32u -DWN=64u)
  _add_variant(matmul_coop matmul_coop_float16${suffix}_narrow float16 ${out} -DWIDE=0 -DWM=64u -DWN=32u)
endforeach()
