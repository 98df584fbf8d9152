# reduce_<in>_<out>: sum, prod, min, max keep the dtype; all and any give bool.
foreach(t ${_dtypes})
  _add_variant(reduce reduce_${t}_${t} ${t} ${t})
  if(NOT t STREQUAL "bool")
    _add_variant(reduce reduce_${t}_bool ${t} bool)
  endif()
endforeach()
# Sums and products of bool and uint8 widen, as MLX's.
_add_variant(reduce reduce_bool_int32 bool int32)
_add_variant(reduce reduce_uint8_uint32 uint8 uint32)
