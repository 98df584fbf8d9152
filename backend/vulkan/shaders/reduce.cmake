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
# The two-pass path: partials in the accumulator type (int64 for bool and
# integers, float32 for floats), then partials to the output dtype.
foreach(t bool uint8 uint32 int32)
  _add_variant(reduce reduce_${t}_int64 ${t} int64)
  if(NOT t STREQUAL "bool")  # reduce_int64_bool is listed above
    _add_variant(reduce reduce_int64_${t} int64 ${t})
  endif()
endforeach()
foreach(t float16 bfloat16)
  _add_variant(reduce reduce_${t}_float32 ${t} float32)
  _add_variant(reduce reduce_float32_${t} float32 ${t})
endforeach()
