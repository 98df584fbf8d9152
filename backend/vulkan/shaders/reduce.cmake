# reduce_<in>_<out>: sum, prod, min, max keep the dtype; all and any give bool.
foreach(t ${_dtypes})
  _add_variant(reduce reduce_${t}_${t} ${t} ${t})
  if(NOT t STREQUAL "bool")
    _add_variant(reduce reduce_${t}_bool ${t} bool)
  endif()
endforeach()
# Sums and products of bool and of integers narrower than 32 bits widen to 32
# bits of their signedness, as MLX's.
_add_variant(reduce reduce_bool_int32 bool int32)
foreach(t uint8 uint16)
  _add_variant(reduce reduce_${t}_uint32 ${t} uint32)
endforeach()
foreach(t int8 int16)
  _add_variant(reduce reduce_${t}_int32 ${t} int32)
endforeach()
# The two-pass path: partials in the accumulator type (int64 for bool and
# integers, uint64 for uint64, float32 for floats), then partials to the
# output dtype.
foreach(t bool uint8 uint16 uint32 int8 int16 int32)
  _add_variant(reduce reduce_${t}_int64 ${t} int64)
  if(NOT t STREQUAL "bool")  # reduce_int64_bool is listed above
    _add_variant(reduce reduce_int64_${t} int64 ${t})
  endif()
endforeach()
foreach(t float16 bfloat16)
  _add_variant(reduce reduce_${t}_float32 ${t} float32)
  _add_variant(reduce reduce_float32_${t} float32 ${t})
endforeach()
