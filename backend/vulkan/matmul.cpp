// GPU kernel of Matmul (shaders/matmul.comp): one workgroup per output tile,
// operands read through their strides (no copies of transposed operands).
#include <fmt/format.h>

#include "backend/common/buffers.h"
#include "backend/common/layout.h"
#include "backend/vulkan/encoder.h"
#include "mlx_lite/primitives/linalg.h"

namespace mlx_lite {

void Matmul::eval_gpu(const std::vector<array>& inputs, array& out) {
  const array& a = inputs[0];
  const array& b = inputs[1];
  common::allocate(out);
  if (out.size() == 0) return;
  const int nd = out.ndim();
  const int64_t M = a.shape(-2), K = a.shape(-1), N = b.shape(-1);
  const int64_t ars = a.strides()[nd - 2], acs = a.strides()[nd - 1];
  const int64_t brs = b.strides()[nd - 2], bcs = b.strides()[nd - 1];

  // The batch dims (already broadcast by the op: stride 0 where an operand
  // is shared), merged where both operands allow.
  Shape batch(out.shape().begin(), out.shape().end() - 2);
  Strides a_batch(a.strides().begin(), a.strides().end() - 2);
  Strides b_batch(b.strides().begin(), b.strides().end() - 2);
  auto [dims, st] = common::collapse_dims<2>(batch, {&a_batch, &b_batch});
  const int64_t batches = static_cast<int64_t>(out.size()) / (M * N);

  // The shader indexes in 32 bits: a bound buffer holds fewer than 2^32
  // elements of 2 or 4 bytes (maxStorageBufferRange < 4 GiB).
  std::vector<int64_t> words = {
      M, N, K, ars, acs, brs, bcs, a.offset(), b.offset(), static_cast<int64_t>(dims.size())};
  words.insert(words.end(), dims.begin(), dims.end());
  words.insert(words.end(), st[0].begin(), st[0].end());
  words.insert(words.end(), st[1].begin(), st[1].end());

  // Consecutive threads load along the operand's unit-strided dim (coalesced
  // reads); a dim of size 1 is never walked, so the other one is taken.
  const bool a_k_fast = M == 1 || (K > 1 && acs == 1);
  const bool b_n_fast = K == 1 || (N > 1 && bcs == 1);

  // 128 x 128 tiles (8 x 8 per thread) do twice the arithmetic per load of
  // 64 x 64 ones, but need enough of them to keep every core busy, and
  // matrices large enough not to waste most of each tile.
  constexpr int64_t kWideTilesMin = 256;
  const int64_t wide_tiles = batches * ((M + 127) / 128) * ((N + 127) / 128);
  const int tile = M > 64 && N > 64 && wide_tiles >= kWideTilesMin ? 8 : 4;
  const int64_t tile_size = 16 * tile;
  const int64_t groups =
      batches * ((M + tile_size - 1) / tile_size) * ((N + tile_size - 1) / tile_size);

  auto& encoder = vulkan::Encoder::get();
  auto metadata = encoder.metadata(words);
  constexpr uint32_t kThreads = 256;  // matmul.comp's 16 x 16 threads
  encoder.dispatch(
      fmt::format("matmul_{}_tile{}", dtype_name(out.dtype()), tile),
      {kThreads, 0u, 0u, a_k_fast ? 1u : 0u, b_n_fast ? 1u : 0u},
      {metadata, vulkan::input_binding(a), vulkan::input_binding(b), vulkan::output_binding(out)},
      static_cast<uint64_t>(groups) * kThreads);
}

}  // namespace mlx_lite
