# unary_<t>: every UnaryOp on one dtype.
foreach(t ${_dtypes})
  _add_variant(unary unary_${t} ${t} ${t})
endforeach()
