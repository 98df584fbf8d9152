# copy_<in>_<out>: copies and dtype conversions between every pair of dtypes.
foreach(in ${_dtypes})
  foreach(out ${_dtypes})
    _add_variant(copy copy_${in}_${out} ${in} ${out})
  endforeach()
endforeach()
