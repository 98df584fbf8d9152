// GPU kernel of Matmul (shaders/matmul.comp): one workgroup per output tile,
// operands read through their strides (no copies of transposed operands).
#include "backend/vulkan/shaders/params/matmul.h"

#include <fmt/format.h>

#include "backend/common/buffers.h"
#include "backend/common/layout.h"
#include "backend/vulkan/encoder.h"
#include "mlx_lite/primitives/linalg.h"

namespace mlx_lite {

namespace params = vulkan::params;

namespace {

using MatmulKernel = vulkan::Kernel<params::MatmulParams, params::MatmulSpec>;

// matmul_<dtype>_tile<4 or 8>: 64 x 64 or 128 x 128 output tiles.
const MatmulKernel& kernel(Dtype t, int tile) {
  static const vulkan::KernelsByDtype<MatmulKernel> tile4("matmul_{}_tile4");
  static const vulkan::KernelsByDtype<MatmulKernel> tile8("matmul_{}_tile8");
  return tile == 8 ? tile8(t) : tile4(t);
}

}  // namespace

void Matmul::eval_gpu(const std::vector<array>& inputs, array& out) {
  const array& a = inputs[0];
  const array& b = inputs[1];
  common::allocate(out);
  if (out.size() == 0) return;
  const int nd = out.ndim();
  const int64_t M = a.shape(-2), K = a.shape(-1), N = b.shape(-1);

  // The batch dims (already broadcast by the op: stride 0 where an operand
  // is shared), merged where both operands allow.
  Shape batch(out.shape().begin(), out.shape().end() - 2);
  Strides a_batch(a.strides().begin(), a.strides().end() - 2);
  Strides b_batch(b.strides().begin(), b.strides().end() - 2);
  auto [dims, st] = common::collapse_dims<2>(batch, {&a_batch, &b_batch});
  const int64_t batches = static_cast<int64_t>(out.size()) / (M * N);

  // The shader indexes in 32 bits: a bound buffer holds fewer than 2^32
  // elements of 2 or 4 bytes (maxStorageBufferRange < 4 GiB).
  vulkan::ShapeBlock shapes;
  const params::MatmulParams p{.M = M,
                               .N = N,
                               .K = K,
                               .a_row_stride = a.strides()[nd - 2],
                               .a_col_stride = a.strides()[nd - 1],
                               .b_row_stride = b.strides()[nd - 2],
                               .b_col_stride = b.strides()[nd - 1],
                               .a_offset = a.offset(),
                               .b_offset = b.offset(),
                               .batch = shapes.add<2>(dims, st)};

  // Consecutive threads load along the operand's unit-strided dim (coalesced
  // reads); a dim of size 1 is never walked, so the other one is taken.
  const params::MatmulSpec spec{.workgroup_size = params::kMatmulThreads,
                                .A_K_FAST = M == 1 || (K > 1 && p.a_col_stride == 1),
                                .B_N_FAST = K == 1 || (N > 1 && p.b_col_stride == 1)};

  // 128 x 128 tiles (8 x 8 per thread) do twice the arithmetic per load of
  // 64 x 64 ones, but need enough of them to keep every core busy, and
  // matrices large enough not to waste most of each tile.
  constexpr int64_t kWideTilesMin = 256;
  const int64_t wide_tiles = batches * ((M + 127) / 128) * ((N + 127) / 128);
  const int tile = M > 64 && N > 64 && wide_tiles >= kWideTilesMin ? 8 : 4;
  const int64_t tile_size = 16 * tile;
  const int64_t groups =
      batches * ((M + tile_size - 1) / tile_size) * ((N + tile_size - 1) / tile_size);

  vulkan::encoder(stream()).dispatch(kernel(out.dtype(), tile), spec, p, shapes,
                                     {vulkan::input(a), vulkan::input(b), vulkan::output(out)},
                                     vulkan::Grid::workgroups(groups));
}

}  // namespace mlx_lite
