// The order in which a Matmul's workgroups take output tiles.
#ifndef MLX_TILE_ORDER_GLSL
#define MLX_TILE_ORDER_GLSL

// Tile t of a tiles_m x tiles_n grid, in groups of 8 tile rows walked
// column by column, so that workgroups running together share panels of A
// and B in the L2 cache.
uvec2 tile_coord(uint t, uint tiles_m, uint tiles_n) {
  const uint group = t / (8u * tiles_n), first = 8u * group;
  const uint rows = min(tiles_m - first, 8u);
  const uint in_group = t - group * 8u * tiles_n;
  return uvec2(first + in_group % rows, in_group / rows);
}

#endif
