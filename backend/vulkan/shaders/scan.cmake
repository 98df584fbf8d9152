# scan_<in>_<out>: scans keep the dtype, except cumsum of bool, which counts
# into int32, as MLX.
foreach(t ${_dtypes})
  if(NOT t STREQUAL "bool")
    _add_variant(scan scan_${t}_${t} ${t} ${t})
  endif()
endforeach()
_add_variant(scan scan_bool_int32 bool int32)
_add_variant(scan scan_bool_bool bool bool)
