# select_<t>: where(cond, x, y) for x, y and the output of dtype t.
foreach(t ${_dtypes})
  _add_variant(select select_${t} ${t} ${t})
endforeach()
