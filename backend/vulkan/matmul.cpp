// GPU kernels of Matmul: one workgroup per output tile, operands read
// through their strides (no copies of transposed operands), on the device's
// matrix units where it has them for the dtype (whole tiles on
// workgroup-scope matrices, shaders/matmul_workgroup.comp, where the device
// has those; else subgroup fragments, shaders/matmul_coop.comp), else tiled
// in registers (shaders/matmul.comp). A long K is split across
// workgroups whose float32 partial products a second dispatch adds up
// (shaders/matmul_partials.comp).
#include "backend/vulkan/shaders/params/matmul.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <utility>

#include "backend/common/buffers.h"
#include "backend/common/layout.h"
#include "backend/vulkan/builtin_shaders.h"
#include "backend/vulkan/elementwise.h"
#include "backend/vulkan/encoder.h"
#include "backend/vulkan/matrix_units.h"
#include "backend/vulkan/shaders/params/matmul_coop.h"
#include "backend/vulkan/shaders/params/matmul_partials.h"
#include "backend/vulkan/shaders/params/matmul_workgroup.h"
#include "mlx_lite/primitives/linalg.h"

namespace mlx_lite {

namespace params = vulkan::params;

namespace {

using MatmulKernel = vulkan::Kernel<params::MatmulParams, params::MatmulSpec>;
using CoopKernel = vulkan::Kernel<params::MatmulParams, params::MatmulCoopSpec>;
using WorkgroupKernel = vulkan::Kernel<params::MatmulParams, params::MatmulWorkgroupSpec>;
using PartialsKernel = vulkan::Kernel<params::MatmulPartialsParams, params::MatmulPartialsSpec>;

// matmul_<dtype>_tile<64 or 128>[_step8]: 64 x 64 or 128 x 128 output
// tiles (64 x 64 stepping along K by 8 where `short_step`), written in the
// dtype or (partials) in float32.
const MatmulKernel& kernel(Dtype t, bool wide, bool short_step, bool partials) {
  static const vulkan::KernelsByDtype<MatmulKernel> tile64("matmul_{}_tile64");
  static const vulkan::KernelsByDtype<MatmulKernel> tile64_step8("matmul_{}_tile64_step8");
  static const vulkan::KernelsByDtype<MatmulKernel> tile128("matmul_{}_tile128");
  static const vulkan::KernelsByDtype<MatmulKernel> f32_tile64("matmul_{}_f32_tile64");
  static const vulkan::KernelsByDtype<MatmulKernel> f32_tile64_step8("matmul_{}_f32_tile64_step8");
  static const vulkan::KernelsByDtype<MatmulKernel> f32_tile128("matmul_{}_f32_tile128");
  if (partials && t != float32) {
    return wide ? f32_tile128(t) : short_step ? f32_tile64_step8(t) : f32_tile64(t);
  }
  return wide ? tile128(t) : short_step ? tile64_step8(t) : tile64(t);
}

// Built-in shader `name` translated for KHR cooperative matrices, every
// float16 matrix made bfloat16 where `bfloat16`.
template <class K>
K khr_kernel(const char* name, bool bfloat16) {
  return K(vulkan::Shader::translated_builtin(
      name, vulkan::khr_builtin_shader(name, {.float16_as_bfloat16 = bfloat16})));
}

// matmul_coop_<t>[_f32]: 128 x 128 tiles on the matrix units, C in t or
// (partials) float32; as compiled (NV cooperative matrices) or translated
// for KHR ones (bfloat16 only there: its fragments are KHR types).
const CoopKernel& coop_kernel(Dtype t, bool partials, vulkan::MatrixExtension ext) {
  auto khr = khr_kernel<CoopKernel>;
  if (t == bfloat16) {
    static const CoopKernel c = khr("matmul_coop_bfloat16", true);
    static const CoopKernel f32 = khr("matmul_coop_bfloat16_f32", true);
    return partials ? f32 : c;
  }
  if (ext == vulkan::MatrixExtension::khr) {
    static const CoopKernel c = khr("matmul_coop_float16", false);
    static const CoopKernel f32 = khr("matmul_coop_float16_f32", false);
    return partials ? f32 : c;
  }
  static const CoopKernel c("matmul_coop_float16"), f32("matmul_coop_float16_f32");
  return partials ? f32 : c;
}

// matmul_workgroup_<t>, translated for KHR matrices (bfloat16's with every
// float16 matrix made bfloat16).
const WorkgroupKernel& workgroup_kernel(Dtype t) {
  static const WorkgroupKernel f16 = khr_kernel<WorkgroupKernel>("matmul_workgroup_float16", false);
  static const WorkgroupKernel bf16 =
      khr_kernel<WorkgroupKernel>("matmul_workgroup_bfloat16", true);
  return t == bfloat16 ? bf16 : f16;
}

// The most K one workgroup walks. lavapipe stops an invocation after 65,535
// loop iterations in all (Mesa's LP_MAX_TGSI_LOOP_ITERATIONS), silently; a
// step of 16 along K costs 2 of them with either tile (its inner loops are
// unrolled), measured as the K at which a product of ones came out short:
// 524,256. This chunk keeps within an eighth of the cap (8,192 iterations),
// and within a quarter where 64 x 64 tiles step by 8 (same loop, 8,192 steps);
// an H100 would need no split, but takes it too, so both devices add in the
// same order, and K this long is rare.
constexpr int64_t kMaxK = int64_t{1} << 16;

// 64 x 64 tiles over at least this many workgroups (tiles times splits of
// K) step along K by 8 (kMatmulShortStepK), not 16: half the shared memory
// and next-panel registers (95 registers against 131 on an H200) let 5
// workgroups share an SM instead of 3, which pays where there are
// workgroups to fill them. Measured on an H200 (float32): batched 64 x
// 256^2 (1,024 tiles) ran 1.11x and 512 x 64^2 (512) 1.17x faster; 1024^2
// (256 tiles) 1.03x, 512^2 (64) 1.15x and 64^2 by a long K (128 and 256
// splits) 1.13-1.34x slower, with twice the barriers along K. A thread adds
// its products along K in the same order either way: same results.
constexpr int64_t kShortStepWorkgroups = 512;

// Workgroups enough to keep a large GPU busy (an H100 has 132 SMs).
constexpr int64_t kBusyWorkgroups = 256;
// Few output tiles over a long K would leave most of a large GPU idle while
// one workgroup walks all of K (64 x 64 by 65,536: 3.4 ms on an H100,
// cuBLAS 0.04 ms), so K is split for them too, into chunks of at least this.
constexpr int64_t kMinKChunk = 512;
// 128 x 128 tiles where there are at least kWideTiles of them, or half as
// many over a K of at least kWideTileK. Measured on an H200: 64 x 256^2 (256
// tiles of K = 256) ran 1.2x faster in 64 x 64 tiles, 2048^2 (256 tiles of
// K = 2048) 1.1x slower.
constexpr int64_t kWideTiles = 512;
constexpr int64_t kWideTileK = 1024;

// How a K is split: `splits` chunks of k_chunk (a multiple of the kernel's
// step of 16, at least 1), as even as that allows. It depends on the shapes
// only, so every device adds in the same order.
struct KSplit {
  int64_t splits, k_chunk;
};
KSplit split_k(int64_t K, int64_t most, int64_t tiles) {
  int64_t splits = (K + most - 1) / most;
  if (tiles < kBusyWorkgroups) {
    splits = std::max(splits, std::min((kBusyWorkgroups + tiles - 1) / tiles, K / kMinKChunk));
  }
  if (splits <= 1) return {1, std::max<int64_t>(K, 1)};
  const int64_t k_chunk = ((K + splits - 1) / splits + 15) / 16 * 16;
  return {(K + k_chunk - 1) / k_chunk, k_chunk};
}

// Dispatches `kernel` over `tiles` output tiles per split of K, then, where
// K is split, the sum of the splits' float32 partial products (written by
// `partials_kernel`) into C.
template <class K, class S>
void dispatch_tiles(vulkan::Encoder& encoder, const K& kernel, const K& partials_kernel,
                    const S& spec, params::MatmulParams p, const vulkan::ShapeBlock& shapes,
                    const array& a, const array& b, array& out, int64_t tiles, KSplit split) {
  p.k_chunk = split.k_chunk;
  if (split.splits == 1) {
    encoder.dispatch(kernel, spec, p, shapes,
                     {vulkan::input(a), vulkan::input(b), vulkan::output(out)},
                     vulkan::Grid::workgroups(tiles));
    return;
  }
  // Each split's product in float32, then their sum in C's dtype (the
  // partials must fit one binding, as any array).
  const int64_t n = static_cast<int64_t>(out.size());
  array partials(allocator::malloc(split.splits * n * size_of(float32)),
                 {static_cast<ShapeElem>(split.splits), static_cast<ShapeElem>(n)}, float32);
  encoder.dispatch(partials_kernel, spec, p, shapes,
                   {vulkan::input(a), vulkan::input(b), vulkan::output(partials)},
                   vulkan::Grid::workgroups(split.splits * tiles));
  static const vulkan::KernelsByDtype<PartialsKernel> sum_partials("matmul_partials_{}");
  encoder.dispatch(sum_partials(out.dtype()), params::MatmulPartialsSpec{.workgroup_size = 256},
                   params::MatmulPartialsParams{.n = n, .splits = split.splits}, {},
                   {vulkan::input(partials), vulkan::output(out)}, vulkan::Grid::threads(n));
}

// Whether runs of `run` elements along an operand's unit-strided dim (rows
// along `fast_stride`) start at multiples of `run` elements, so that a
// kernel loads them as vectors: the run's dim is unit-strided, and the
// offset, the other dim's stride and the batch strides are multiples of
// `run`.
bool runs_aligned(int64_t run, int64_t fast_stride, int64_t slow_stride, int64_t offset,
                  const Strides& batch_strides) {
  auto aligned = [run](int64_t v) { return v % run == 0; };
  return fast_stride == 1 && aligned(slow_stride) && aligned(offset) &&
         std::all_of(batch_strides.begin(), batch_strides.end(), aligned);
}

// Whether `device` can run matmul_workgroup.comp for operands of `t`: a
// workgroup-scope shape for its 256 threads whose granularities divide its
// tile, within the dimensions and shared memory the driver allows.
bool workgroup_kernel_fits(const vulkan::Device& device, Dtype t) {
  const vulkan::CooperativeMatrixShape* shape =
      vulkan::matmul_workgroup_shape(device, t, params::kMatmulWorkgroupThreads);
  if (shape == nullptr) return false;
  const vulkan::DeviceFeatures& f = device.features();
  const uint64_t shared = 16 * (params::kMatmulWorkgroupARuns + params::kMatmulWorkgroupBRuns) +
                          uint64_t{f.workgroup_matrix_reserved_shared_memory};
  return params::kMatmulWorkgroupTileM % shape->m == 0 &&
         params::kMatmulWorkgroupTileN % shape->n == 0 &&
         params::kMatmulWorkgroupStepK % shape->k == 0 &&
         std::max(params::kMatmulWorkgroupTileM, params::kMatmulWorkgroupTileN) <=
             f.workgroup_matrix_max_dimension &&
         shared <= device.limits().max_shared_memory;
}

// C on workgroup-scope matrices (shaders/matmul_workgroup.comp), where the
// device has them for the dtype, the tiles are whole and K needs no split
// (both operands' runs of 8 aligned, checked by the caller); false where
// the subgroup kernel is to run instead.
bool dispatch_workgroup_tiles(vulkan::Encoder& encoder, const vulkan::Device& device,
                              const params::MatmulParams& p, const vulkan::ShapeBlock& shapes,
                              const array& a, const array& b, array& out, int64_t batches,
                              bool a_k_fast, bool b_n_fast) {
  const int64_t tm = params::kMatmulWorkgroupTileM, tn = params::kMatmulWorkgroupTileN;
  if (p.M % tm != 0 || p.N % tn != 0 || p.K % params::kMatmulWorkgroupStepK != 0) return false;
  const int64_t tiles = batches * (p.M / tm) * (p.N / tn);
  if (split_k(p.K, std::numeric_limits<int32_t>::max(), tiles).splits != 1) return false;
  static const bool f16 = workgroup_kernel_fits(device, float16);
  static const bool bf16 = workgroup_kernel_fits(device, bfloat16);
  if (!(a.dtype() == float16 ? f16 : a.dtype() == bfloat16 && bf16)) return false;
  const params::MatmulWorkgroupSpec spec{.workgroup_size = params::kMatmulWorkgroupThreads,
                                         .A_K_FAST = a_k_fast,
                                         .B_N_FAST = b_n_fast};
  encoder.dispatch(workgroup_kernel(a.dtype()), spec, p, shapes,
                   {vulkan::input(a), vulkan::input(b), vulkan::output(out)},
                   vulkan::Grid::workgroups(tiles));
  return true;
}

// Whether a float16 product takes its operands converted to float32 once,
// on a device without matrix units. The tiled kernel converts float16 with
// integer arithmetic (exact, subnormals included, where Vulkan lets the
// hardware's conversion flush them) each time a tile loads an element:
// 0.78x float32's rate at 4096^2 on an H200. Converting once and taking the
// float32 product runs the same kernel in the same order, so the result has
// the same bits; it pays where the product is large and every dim long
// enough that the conversions' memory traffic is small beside it.
constexpr int64_t kConvertOnceDim = 256;
constexpr int64_t kConvertOnceWork = int64_t{1} << 30;  // multiply-adds

// The first and last elements of a's buffer that its (non-empty) view
// reads: one matrix of a broadcast batch, no more of a slice's source than
// its extent.
std::pair<int64_t, int64_t> view_span(const array& a) {
  int64_t first = a.offset(), last = a.offset();
  for (int i = 0; i < a.ndim(); ++i) {
    const int64_t reach = (a.shape(i) - 1) * a.strides()[i];
    (reach < 0 ? first : last) += reach;
  }
  return {first, last};
}

// The elements of `a`'s view, converted to float32 by one copy: a view with
// a's strides into a float32 copy of its span of a's buffer.
array float32_view(vulkan::Encoder& encoder, const array& a) {
  const auto [first, last] = view_span(a);
  array span({static_cast<ShapeElem>(last - first + 1)}, a.dtype(), nullptr, {});
  span.copy_shared_buffer(a, {1}, first);
  array span32(span.shape(), float32, nullptr, {});
  vulkan::copy_gpu(encoder, span, span32);
  array view(a.shape(), float32, nullptr, {});
  view.copy_shared_buffer(span32, a.strides(), a.offset() - first);
  return view;
}

// Whether float32 copies of a's and b's spans and of C fit one binding each.
bool float32_copies_fit(const array& a, const array& b, const array& out) {
  const uint64_t range = vulkan::Device::get().limits().max_storage_buffer_range;
  auto fits = [range](const array& x) {
    const auto [first, last] = view_span(x);
    return static_cast<uint64_t>(last - first + 1) * size_of(float32) <= range;
  };
  return fits(a) && fits(b) && out.size() * size_of(float32) <= range;
}

}  // namespace

void Matmul::eval_gpu(const std::vector<array>& inputs, array& out) {
  const array& a = inputs[0];
  const array& b = inputs[1];
  if (out.dtype() == float16 && out.size() > 0) {
    const int64_t M = a.shape(-2), K = a.shape(-1), N = b.shape(-1);
    const int64_t work = static_cast<int64_t>(out.size()) * K;
    const vulkan::Device& device = vulkan::Device::get();
    if (std::min({M, N, K}) >= kConvertOnceDim && work >= kConvertOnceWork &&
        vulkan::matmul_matrix_extension(device, float16) == vulkan::MatrixExtension::none &&
        float32_copies_fit(a, b, out)) {
      auto& encoder = vulkan::encoder(stream());
      array c32(out.shape(), float32, nullptr, {});
      eval_gpu({float32_view(encoder, a), float32_view(encoder, b)}, c32);
      vulkan::copy_gpu(encoder, c32, out);
      return;
    }
  }
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
                               .k_chunk = K,
                               .a_row_stride = a.strides()[nd - 2],
                               .a_col_stride = a.strides()[nd - 1],
                               .b_row_stride = b.strides()[nd - 2],
                               .b_col_stride = b.strides()[nd - 1],
                               .a_offset = a.offset(),
                               .b_offset = b.offset(),
                               .batch = shapes.add<2>(dims, st)};
  // Consecutive threads load along the operand's unit-strided dim (coalesced
  // reads); a dim of size 1 is never walked, so the other one is taken.
  const bool a_k_fast = M == 1 || (K > 1 && p.a_col_stride == 1);
  const bool b_n_fast = K == 1 || (N > 1 && p.b_col_stride == 1);
  auto& encoder = vulkan::encoder(stream());
  // Whether each operand's runs of `run` along the dim its loads walk are
  // aligned (runs_aligned; st holds the batch strides).
  auto a_runs = [&](int64_t run) {
    return a_k_fast ? runs_aligned(run, p.a_col_stride, p.a_row_stride, p.a_offset, st[0])
                    : runs_aligned(run, p.a_row_stride, p.a_col_stride, p.a_offset, st[0]);
  };
  auto b_runs = [&](int64_t run) {
    return b_n_fast ? runs_aligned(run, p.b_col_stride, p.b_row_stride, p.b_offset, st[1])
                    : runs_aligned(run, p.b_row_stride, p.b_col_stride, p.b_offset, st[1]);
  };

  const vulkan::Device& device = vulkan::Device::get();
  const vulkan::MatrixExtension ext = vulkan::matmul_matrix_extension(device, a.dtype());
  if (ext != vulkan::MatrixExtension::none) {
    // Shared memory keeps each operand's layout: its runs of 8 lie along
    // the unit-strided dim where there is one.
    const bool a_vec = a_runs(8), b_vec = b_runs(8);
    if (a_vec && b_vec &&
        dispatch_workgroup_tiles(encoder, device, p, shapes, a, b, out, batches, a_k_fast,
                                 b_n_fast)) {
      return;
    }
    const int64_t tm = params::kMatmulCoopTileM, tn = params::kMatmulCoopTileN;
    const int64_t tiles = batches * ((M + tm - 1) / tm) * ((N + tn - 1) / tn);
    // Matrix-unit devices have no loop cap to keep under: K is split only
    // to give an idle GPU more workgroups.
    const KSplit split = split_k(K, std::numeric_limits<int32_t>::max(), tiles);
    // Every split of K is then a multiple of the step too (split_k's
    // chunks are).
    const bool whole_tiles =
        a_vec && b_vec && M % tm == 0 && N % tn == 0 && K % params::kMatmulCoopStepK == 0;
    const params::MatmulCoopSpec spec{.workgroup_size = params::kMatmulCoopThreads,
                                      .A_K_FAST = a_k_fast,
                                      .B_N_FAST = b_n_fast,
                                      .A_VEC = a_vec,
                                      .B_VEC = b_vec,
                                      .WHOLE_TILES = whole_tiles};
    dispatch_tiles(encoder, coop_kernel(a.dtype(), false, ext), coop_kernel(a.dtype(), true, ext),
                   spec, p, shapes, a, b, out, tiles, split);
    return;
  }

  // 128 x 128 tiles (8 x 8 per thread) do twice the arithmetic per load of
  // 64 x 64 ones (8 x 4 per thread), but need enough of them to keep every core busy, and
  // matrices large enough not to waste most of each tile.
  // Few tiles over a long K take them too where K's splits (split_k) make
  // up the workgroups: 256^2 by 262,144 ran 1.3x faster on an H200 in 4
  // wide tiles by 64 splits than in 16 narrow ones by 16.
  const int64_t wide_tiles = batches * ((M + 127) / 128) * ((N + 127) / 128);
  const bool wide = wide_tiles >= kWideTiles || (wide_tiles >= kWideTiles / 2 && K >= kWideTileK) ||
                    wide_tiles * (K / kMinKChunk) >= kBusyWorkgroups;
  const bool tile128 = M > 64 && N > 64 && wide;
  const int64_t tile_size = tile128 ? 128 : 64;
  const int64_t tiles =
      batches * ((M + tile_size - 1) / tile_size) * ((N + tile_size - 1) / tile_size);
  const KSplit split = split_k(K, kMaxK, tiles);
  // Runs of 4 along the unit-strided dim load as vectors where they are
  // aligned and that dim's extent leaves none cut by the edge (splits of K
  // are multiples of 16). Not float32 runs along k: on an H200 they made
  // nn 10% and nt 20% slower than loading element by element; 16-bit runs
  // along k made the float16 and bfloat16 nn 1.6x and 1.4x faster.
  const bool k_runs = size_of(a.dtype()) == 2;
  const bool a_vec = (a_k_fast ? k_runs && K % 4 == 0 : M % 4 == 0) && a_runs(4);
  const bool b_vec = (b_n_fast ? N % 4 == 0 : k_runs && K % 4 == 0) && b_runs(4);
  // 32-bit operands read along k load in blocks of 4 rows by a pair of k in
  // 128 x 128 tiles (shaders/matmul.comp says what it measured).
  const bool k_pairs = tile128 && !k_runs && K % 2 == 0;
  const bool a_pairs = k_pairs && a_k_fast && a_runs(2);
  const bool b_pairs = k_pairs && !b_n_fast && b_runs(2);
  // Padded panels: two buffers of A's and B's kMatmulStepK rows of
  // tile_size / 4 + 1 vec4s (shaders/matmul.comp).
  const uint64_t padded_bytes = 2 * 2 * params::kMatmulStepK * (tile_size / 4 + 1) * 16;
  // Whole tiles and steps along K (a split's chunk is a multiple of the
  // step) load without bounds checks; K = 0 loads nothing.
  const bool whole_tiles =
      M % tile_size == 0 && N % tile_size == 0 && K > 0 && K % params::kMatmulStepK == 0;
  const params::MatmulSpec spec{
      .workgroup_size = tile128 ? params::kMatmulTile128Threads : params::kMatmulTile64Threads,
      .A_K_FAST = a_k_fast,
      .B_N_FAST = b_n_fast,
      .A_VEC = a_vec,
      .B_VEC = b_vec,
      .PAD_ROWS = padded_bytes <= device.limits().max_shared_memory,
      .WHOLE_TILES = whole_tiles,
      // On an H200, float32 4096^2 tn ran 3.8% faster so (nn 0.5%; nt 0.7%
      // and 1024^2 in 64 x 64 tiles 3% slower); nn and nt with k-fast
      // operands in pairs 1.6% and 2.7% faster than without.
      .SUBGROUP_BLOCKS = tile128 && (!a_k_fast || a_pairs),
      .A_PAIRS = a_pairs,
      .B_PAIRS = b_pairs};
  const bool short_step = !tile128 && tiles * split.splits >= kShortStepWorkgroups;
  dispatch_tiles(encoder, kernel(out.dtype(), tile128, short_step, false),
                 kernel(out.dtype(), tile128, short_step, true), spec, p, shapes, a, b, out, tiles,
                 split);
}

}  // namespace mlx_lite
