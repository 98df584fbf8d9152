# sort_<in>_<out>: Sort writes the input's dtype, ArgSort uint32 (one variant
# serves both for uint32). int64's and uint64's keys are 64-bit (KEY64).
foreach(t ${_dtypes})
  set(extra "")
  if(t STREQUAL "int64" OR t STREQUAL "uint64")
    set(extra -DKEY64=1)
  endif()
  _add_variant(sort sort_${t}_${t} ${t} ${t} ${extra})
  if(NOT t STREQUAL "uint32")
    _add_variant(sort sort_${t}_uint32 ${t} uint32 ${extra})
  endif()
endforeach()
