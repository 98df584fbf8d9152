# unary_<t>: every UnaryOp on one dtype.
foreach(t ${_dtypes})
  _add_variant(unary unary_${t} ${t} ${t})
endforeach()
# unary_<float>_bool: IsFinite and IsInf, a float classified into bool.
foreach(t float16 bfloat16 float32)
  _add_variant(unary unary_${t}_bool ${t} bool)
endforeach()
