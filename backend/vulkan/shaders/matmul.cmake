# matmul_<t>_tile<64|128>: 64 x 64 or 128 x 128 output tiles, float
# accumulation. matmul_<t>_f32_tile<64|128>: the same writing float32 (a
# split K's partial products, matmul_partials.cmake adds them up; float32
# needs no variant).
foreach(t float32 float16 bfloat16)
  foreach(tile 64 128)
    _add_variant(matmul matmul_${t}_tile${tile} ${t} ${t} -DTILE=${tile})
    if(NOT t STREQUAL "float32")
      _add_variant(matmul matmul_${t}_f32_tile${tile} ${t} float32 -DTILE=${tile})
    endif()
  endforeach()
endforeach()
