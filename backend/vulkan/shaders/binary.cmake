# binary_<t>: arithmetic ops; binary_<t>_bool: comparisons.
foreach(t ${_dtypes})
  _add_variant(binary binary_${t} ${t} ${t})
  if(NOT t STREQUAL "bool")
    _add_variant(binary binary_${t}_bool ${t} bool)
  endif()
endforeach()
