# arange_<t>: Arange for every dtype but bool (which arange refuses).
foreach(t ${_dtypes})
  if(NOT t STREQUAL "bool")
    _add_variant(arange arange_${t} ${t} ${t})
  endif()
endforeach()
