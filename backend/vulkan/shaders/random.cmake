# random_<out>: RandomBits into uint8 (width 1), uint16 (width 2) or uint32 (width 4).
_add_variant(random random_uint8 uint32 uint8)
_add_variant(random random_uint16 uint32 uint16)
_add_variant(random random_uint32 uint32 uint32)
