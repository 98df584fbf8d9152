# matmul_<t>_tile<64|128>: 64 x 64 or 128 x 128 output tiles, float
# accumulation; matmul_<t>_tile64_step8: 64 x 64 tiles stepping along K by 8
# (SHORT_STEP). matmul_<t>_f32_...: the same writing float32 (a split K's
# partial products, matmul_partials.cmake adds them up; float32 needs no
# variant).
foreach(t float32 float16 bfloat16)
  foreach(tile 64 128)
    _add_variant(matmul matmul_${t}_tile${tile} ${t} ${t} -DTILE=${tile})
    if(NOT t STREQUAL "float32")
      _add_variant(matmul matmul_${t}_f32_tile${tile} ${t} float32 -DTILE=${tile})
    endif()
  endforeach()
  _add_variant(matmul matmul_${t}_tile64_step8 ${t} ${t} -DTILE=64 -DSHORT_STEP)
  if(NOT t STREQUAL "float32")
    _add_variant(matmul matmul_${t}_f32_tile64_step8 ${t} float32 -DTILE=64 -DSHORT_STEP)
  endif()
endforeach()
