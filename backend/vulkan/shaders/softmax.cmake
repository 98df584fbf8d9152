# softmax_<t>: Softmax (OP 0) and LogSumExp (OP 1) over the last axis.
foreach(t float32 float16 bfloat16)
  _add_variant(softmax softmax_${t} ${t} ${t})
endforeach()
