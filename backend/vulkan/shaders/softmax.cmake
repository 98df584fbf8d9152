# softmax_<t>: Softmax (OP 0) and LogSumExp (OP 1) over the last axis;
# softmax_shuffle_<t> the same for devices with subgroup shuffles (a short
# line's stats combined by shuffles, softmax_stats.glsl).
foreach(t float32 float16 bfloat16)
  _add_variant(softmax softmax_${t} ${t} ${t})
  _add_variant(softmax softmax_shuffle_${t} ${t} ${t} -DSUBGROUP_SHUFFLE=1)
endforeach()
