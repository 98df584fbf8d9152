# arg_reduce_<in>: argmin and argmax of any dtype, uint32 indices out.
foreach(t ${_dtypes})
  _add_variant(arg_reduce arg_reduce_${t} ${t} uint32)
endforeach()
