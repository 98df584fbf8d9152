p='examples/grid_sample_tuned.h'
s=open(p).read()
hdr_old='''    for (int i = 0; i < XVPT; ++i) acc[i] += w * VT(CTV[q * CV + v + uint(i) * TPX]);
  }
}
)";'''
hdr_new='''    for (int i = 0; i < XVPT; ++i) acc[i] += w * VT(CTV[q * CV + v + uint(i) * TPX]);
  }
}

// The bucket bounds of pixel pix's cells (h + 1, w .. w + 2), at o[at..at + 2],
// and (h, w .. w + 2), at o[at + 3..at + 5].
void gs_pixel_offsets(uint pix, int H, int W, inout int o[6 * PPX], uint at) {
  uint hw = uint(H * W);
  uint n = pix / hw;
  uint rem = pix - n * hw;
  uint h = rem / uint(W);
  uint w = rem - h * uint(W);
  uint row1 = (n * uint(H + 1) + h + 1u) * uint(W + 1) + w;  // cell (h + 1, w)
  uint row0 = row1 - uint(W + 1);                             // cell (h, w)
  for (uint j = 0u; j < 3u; ++j) {
    o[at + j] = gs_offset(row1 + j);
    o[at + 3u + j] = gs_offset(row0 + j);
  }
}

// Pixel pix's x_grad vectors v + i * TPX, from its buckets' bounds at o[at..].
void gs_pixel(uint pix, uint v, int H, int W, int o[6 * PPX], uint at) {
  VT acc[XVPT];
  for (int i = 0; i < XVPT; ++i) acc[i] = VT(0.0);
  gs_bucket(acc, o[at + 1u], o[at + 2u], 0, v, H, W);  // cell (h + 1, w + 1): the nw corner
  gs_bucket(acc, o[at], o[at + 1u], 1, v, H, W);       // cell (h + 1, w): the ne corner
  gs_bucket(acc, o[at + 4u], o[at + 5u], 2, v, H, W);  // cell (h, w + 1): the sw corner
  gs_bucket(acc, o[at + 3u], o[at + 4u], 3, v, H, W);  // cell (h, w): the se corner
  for (int i = 0; i < XVPT; ++i) XGV[pix * CV + v + uint(i) * TPX] = ST(acc[i]);
}
)";'''
assert hdr_old in s
s=s.replace(hdr_old,hdr_new)
src0=s.index('inline constexpr const char* kXGradSource = R"(')
src1=s.index(')";',src0)+4
s=s[:src0]+'''inline constexpr const char* kXGradSource = R"(
  uint t = thread_position_in_grid.x;
  int H = x_shape[1], W = x_shape[2];
  uint pixels = uint(x_shape[0]) * uint(H * W);
  uint apart = (pixels + uint(PPX) - 1u) / uint(PPX);
  uint first = t / TPX;
  uint v = t - first * TPX;
  // Every bound of the thread's pixels first: their loads are in flight at once.
  int o[6 * PPX];
  for (uint k = 0u; k < uint(PPX); ++k) {
    if (first + k * apart < pixels) gs_pixel_offsets(first + k * apart, H, W, o, 6u * k);
  }
  for (uint k = 0u; k < uint(PPX); ++k) {
    if (first + k * apart < pixels) gs_pixel(first + k * apart, v, H, W, o, 6u * k);
  }
)";
'''+s[src1:]
# launch
old_launch='''  const int64_t threads = int64_t(N) * H * W * (C / vec / xvpt);
  if (threads > int64_t(INT32_MAX)) {
    throw std::invalid_argument("[grid_sample_tuned] x is too large.");
  }
  return x_grad_kernel(vec)({x, grid, cot, local, row_offset, sorted}, {x.shape()}, {x.dtype()},
                            {int(threads), 1, 1}, {256, 1, 1},
                            {{"CH", C}, {"XVPT", xvpt}, f16_arg(x)}, std::nullopt, false, kGpu)[0];'''
assert old_launch in s
new_launch='''  const int ppx = x_grad_pixels();
  const int64_t pixels = int64_t(N) * H * W;
  const int64_t threads = (pixels + ppx - 1) / ppx * (C / vec / xvpt);
  if (threads > int64_t(INT32_MAX)) {
    throw std::invalid_argument("[grid_sample_tuned] x is too large.");
  }
  return x_grad_kernel(vec)({x, grid, cot, local, row_offset, sorted}, {x.shape()}, {x.dtype()},
                            {int(threads), 1, 1}, {256, 1, 1},
                            {{"CH", C}, {"XVPT", xvpt}, {"PPX", ppx}, f16_arg(x)}, std::nullopt,
                            false, kGpu)[0];'''
s=s.replace(old_launch,new_launch)
s=s.replace('''namespace grid_sample_tuned_detail {

// Step 5's launch.''','''namespace grid_sample_tuned_detail {

// TUNING: pixels per thread of step 5.
inline int x_grad_pixels() {
  const char* env = std::getenv("TUNE_PPX");
  return env ? std::atoi(env) : 1;
}

// Step 5's launch.''')
s=s.replace('#include <cstdint>\n','#include <cstdint>\n#include <cstdlib>\n',1)
open(p,'w').write(s)
