# random_<out>: RandomBits into uint8 (width 1) or uint32 (widths 2 and 4).
_add_variant(random random_uint8 uint32 uint8)
_add_variant(random random_uint32 uint32 uint32)
