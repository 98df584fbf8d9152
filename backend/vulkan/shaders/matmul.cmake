# matmul_<t>_tile<4|8>: 64 x 64 or 128 x 128 output tiles, float accumulation.
foreach(t float32 float16 bfloat16)
  foreach(tile 4 8)
    _add_variant(matmul matmul_${t}_tile${tile} ${t} ${t} -DTILE=${tile}u)
  endforeach()
endforeach()
