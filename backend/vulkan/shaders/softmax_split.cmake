# softmax_split_stats_<t> and softmax_split_finish_<t>: Softmax and LogSumExp
# over few long lines, each spread over many workgroups (two dispatches).
foreach(t float32 float16 bfloat16)
  _add_variant(softmax_split softmax_split_stats_${t} ${t} ${t} -DFINISH=0)
  _add_variant(softmax_split softmax_split_finish_${t} ${t} ${t} -DFINISH=1)
endforeach()
