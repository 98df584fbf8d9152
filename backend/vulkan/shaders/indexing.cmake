# Gather and Scatter (replace) only move elements: one variant per element
# size, named by its bits. Scatter's sums add in the dtype: one variant per
# dtype, and for float32 one with float atomics (for devices that have them)
# and one with compare-and-swap. ATOMIC is explained in scatter.comp.
_add_variant(gather gather_8 uint8 uint8)
_add_variant(gather gather_16 bfloat16 bfloat16)
_add_variant(gather gather_32 uint32 uint32)
_add_variant(gather gather_64 int64 int64)
_add_variant(scatter scatter_8 uint8 uint8 -DSUM=0 -DATOMIC=0)
_add_variant(scatter scatter_16 bfloat16 bfloat16 -DSUM=0 -DATOMIC=0)
_add_variant(scatter scatter_32 uint32 uint32 -DSUM=0 -DATOMIC=0)
_add_variant(scatter scatter_64 int64 int64 -DSUM=0 -DATOMIC=0)
foreach(t bool uint8 float16 bfloat16 float32)
  _add_variant(scatter scatter_add_${t} ${t} ${t} -DSUM=1 -DATOMIC=0)
endforeach()
_add_variant(scatter scatter_add_int32 int32 int32 -DSUM=1 -DATOMIC=1)
_add_variant(scatter scatter_add_uint32 uint32 uint32 -DSUM=1 -DATOMIC=1)
_add_variant(scatter scatter_add_int64 int64 int64 -DSUM=1 -DATOMIC=2)
_add_variant(scatter scatter_add_float32_atomic float32 float32 -DSUM=1 -DATOMIC=3)
