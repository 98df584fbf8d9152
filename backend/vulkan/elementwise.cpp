#include "backend/vulkan/elementwise.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <optional>

#include "backend/common/buffers.h"
#include "backend/common/layout.h"

namespace mlx_lite::vulkan {

namespace {

constexpr uint32_t kWorkgroupSize = 256;
constexpr uint32_t kElementsPerThread = 4;
// Arrays from this size take several elements a thread.
constexpr uint64_t kManyElements = uint64_t{1} << 16;

// The parameters of N operands of `shape` (their strides and element
// offsets), the dims contiguous in every operand merged into `shapes`; and
// whether every operand is then row-major (the shaders' flat path).
struct Layout {
  params::ElementwiseParams params{};
  bool dense = true;
  bool runs_of_4 = false;  // RUNS_OF_4: 4-byte elements, aligned runs (params/elementwise.h)
  int64_t inner = 1;       // the innermost merged dim
  uint32_t splats = 0;     // SPLATS: operands read once for each run (params/elementwise.h)
  // From layout(), where every operand's runs of 4 along the innermost merged
  // dim are aligned or broadcast (strided_runs_of_4): the broadcast ones.
  std::optional<uint32_t> run_splats;
};

// Whether `a` is one element at every position (a broadcast scalar: every
// dim of extent above 1 has stride 0), which the dense path reads as a splat.
bool is_splat(const array& a) {
  for (int d = 0; d < a.ndim(); ++d) {
    if (a.shape(d) > 1 && a.strides()[d] != 0) return false;
  }
  return true;
}

// Runs of 4 on the strided path: the innermost merged dim (of `dims`) a
// multiple of 4 long, and each operand unit-strided along it, its runs
// aligned (offset and other strides multiples of 4), or broadcast along it
// (stride 0: one element for each run). The broadcast operands' bits, or
// nullopt where runs do not fit.
std::optional<uint32_t> strided_runs_of_4(const Shape& dims, std::span<const Strides> strides,
                                          std::span<const int64_t> offsets) {
  if (dims.empty() || dims.back() % 4 != 0) return std::nullopt;
  uint32_t broadcast = 0;
  for (size_t k = 0; k < strides.size(); ++k) {
    const Strides& s = strides[k];
    if (s.back() == 0) {
      broadcast |= 1u << k;
      continue;
    }
    const bool aligned = s.back() == 1 && offsets[k] % 4 == 0 &&
                         std::all_of(s.begin(), s.end() - 1, [](int64_t x) { return x % 4 == 0; });
    if (!aligned) return std::nullopt;
  }
  return broadcast;
}

Layout layout(const Shape& shape, std::span<const Strides* const> strides,
              std::span<const int64_t> offsets, ShapeBlock& shapes) {
  Layout l;
  std::array<const Strides*, params::kMaxElementwiseOperands> st_in{};
  std::ranges::copy(strides, st_in.begin());
  // Unused operands have stride 0, which merges anywhere.
  const Strides none(shape.size(), 0);
  for (size_t k = strides.size(); k < st_in.size(); ++k) st_in[k] = &none;
  auto [dims, st] = common::collapse_dims(shape, st_in);
  const Strides dense = row_major_strides(dims);
  std::array<const Strides*, params::kMaxElementwiseOperands> used;
  for (size_t k = 0; k < strides.size(); ++k) {
    l.params.offset[k] = offsets[k];
    l.dense &= st[k] == dense;
    used[k] = &st[k];
  }
  l.params.n = 1;
  for (auto d : shape) l.params.n *= d;
  l.inner = dims.empty() ? 1 : dims.back();
  l.params.dims = shapes.add(dims, std::span(used.data(), strides.size()));
  l.run_splats = strided_runs_of_4(dims, std::span(st.data(), strides.size()), offsets);
  return l;
}

// The elements per thread of an elementwise dispatch (elementwise_main.glsl)
// and the threads that takes: several for large arrays, where bandwidth
// counts (a run of 4 as vectors where the layout allows, else runs along
// the innermost dim on the strided path, which needs at least that many
// elements there), one for small ones, where latency does.
struct Threads {
  uint32_t per_thread;
  uint64_t count;
  bool runs_of_4 = false;
};

Threads threads_of(const Layout& l) {
  const uint64_t n = l.params.n;
  const uint64_t inner = l.inner;
  if (n < kManyElements || n > 0xffffffffu) return {1, n};
  if (l.runs_of_4) return {1, n / 4, true};
  if (l.dense) return {kElementsPerThread, (n + kElementsPerThread - 1) / kElementsPerThread};
  if (inner < kElementsPerThread) return {1, n};
  return {kElementsPerThread, n / inner * ((inner + kElementsPerThread - 1) / kElementsPerThread)};
}

void dispatch_over(Encoder& encoder, const ElementwiseKernel& kernel, uint32_t op, const Layout& l,
                   const ShapeBlock& shapes, std::initializer_list<Operand> operands) {
  const Threads t = threads_of(l);
  const params::ElementwiseSpec spec{.workgroup_size = kWorkgroupSize,
                                     .OP = op,
                                     .CONTIGUOUS = l.dense,
                                     .ELEMENTS_PER_THREAD = t.per_thread,
                                     .RUNS_OF_4 = t.runs_of_4,
                                     .SPLATS = l.splats};
  encoder.dispatch(kernel, spec, l.params, shapes, operands, Grid::threads(t.count));
}

const ElementwiseKernel& copy_kernel(const array& in, const array& out) {
  static const KernelsByDtype<ElementwiseKernel> kernels("copy_{}_{}");
  return kernels(in.dtype(), out.dtype());
}

}  // namespace

void dispatch_elementwise(Encoder& encoder, const ElementwiseKernel& kernel, uint32_t op,
                          const std::vector<array>& inputs, array& out) {
  // Each thread reads element i of its inputs, then writes element i.
  if (!std::ranges::any_of(inputs, [&](const array& in) { return common::try_donate(in, out); })) {
    common::allocate(out);
  }
  if (out.size() == 0) return;
  ShapeBlock shapes;
  Layout l;
  // Broadcast scalars (x * 2, full()'s copy) are splats on the dense path,
  // which a general layout would send down the strided path: element by
  // element (a fill of 2 GiB on an H200 ran at half a vec4 store's rate).
  uint32_t splats = 0;
  for (size_t k = 0; k < inputs.size(); ++k) splats |= is_splat(inputs[k]) ? 1u << k : 0u;
  auto splat = [&](size_t k) { return (splats >> k & 1u) != 0; };
  bool flat = true;
  for (size_t k = 0; k < inputs.size(); ++k) flat &= inputs[k].flags().row_contiguous || splat(k);
  // Runs of 4 elements as 16-byte vectors: 4-byte elements only (the
  // shaders' run_of_4), on either path where each input's runs allow.
  const bool words =
      out.size() % 4 == 0 && size_of(out.dtype()) == 4 &&
      std::ranges::all_of(inputs, [](const array& in) { return size_of(in.dtype()) == 4; });
  if (flat) {
    // One dense dim: what merging gives, without its work (small ops are
    // host-bound); the flat path reads no shapes.
    l.params.n = static_cast<int64_t>(out.size());
    l.splats = splats;
    l.runs_of_4 = words;  // every run aligned (a splat has no runs)
    for (size_t k = 0; k < inputs.size(); ++k) {
      l.params.offset[k] = inputs[k].offset();
      l.runs_of_4 &= inputs[k].offset() % 4 == 0 || splat(k);
    }
    l.inner = l.params.n;
  } else {
    std::array<const Strides*, params::kMaxElementwiseOperands> strides;
    std::array<int64_t, params::kMaxElementwiseOperands> offsets;
    for (size_t k = 0; k < inputs.size(); ++k) {
      strides[k] = &inputs[k].strides();
      offsets[k] = inputs[k].offset();
    }
    l = layout(inputs[0].shape(), std::span(strides.data(), inputs.size()),
               std::span(offsets.data(), inputs.size()), shapes);
    // A (rows, 64) op with a (rows, 1) or (1, 64) operand, as runs of 4: on
    // an H200, multiply by (rows, 1) read element by element ran at 0.7x of
    // a plain vec4 kernel's rate.
    l.runs_of_4 = words && l.run_splats.has_value();
    if (l.runs_of_4) l.splats = *l.run_splats;
  }
  switch (inputs.size()) {
    case 1:
      return dispatch_over(encoder, kernel, op, l, shapes, {input(inputs[0]), output(out)});
    case 2:
      return dispatch_over(encoder, kernel, op, l, shapes,
                           {input(inputs[0]), input(inputs[1]), output(out)});
    default:
      return dispatch_over(encoder, kernel, op, l, shapes,
                           {input(inputs[0]), input(inputs[1]), input(inputs[2]), output(out)});
  }
}

namespace {

// The 32 bits that repeat through a buffer of `in`'s one element, where `in`
// is a splat whose value the host has (zeros, ones, full of a host scalar):
// none where GPU work still to complete writes it, or where an 8-byte
// element's two halves differ.
std::optional<uint32_t> host_splat_word(const array& in) {
  if (in.size() == 0 || !is_splat(in) || written_by_pending_work(in.buffer())) return std::nullopt;
  return repeated_word(in.raw_data(), in.itemsize());
}

}  // namespace

void copy_gpu(Encoder& encoder, const array& in, array& out) {
  // A dense source of out's dtype that nothing else holds becomes out: no
  // copy at all (a Scatter over the previous scatter's result, as the vjp of
  // several gathers of one array builds).
  if (in.dtype() == out.dtype() && common::try_donate(in, out)) return;
  // A host scalar broadcast to out, of out's dtype: vkCmdFillBuffer, no
  // dispatch (a fill of 32M float32 on an H200: 34.3 against 35.1 us of GPU
  // time; on lavapipe, a memset: 8x faster). It writes whole words, so the
  // buffer is rounded up to them.
  const auto word = in.dtype() == out.dtype() ? host_splat_word(in) : std::nullopt;
  if (word && out.size() > 0) {
    const uint64_t bytes = (out.nbytes() + 3) / 4 * 4;
    out.set_data(allocator::malloc(bytes));
    encoder.fill(out, bytes, *word);
    return;
  }
  dispatch_elementwise(encoder, copy_kernel(in, out), params::kCopyDense, {in}, out);
}

void copy_gpu_into(Encoder& encoder, const array& in, const Strides& out_strides,
                   int64_t out_offset, array& out) {
  if (in.size() == 0) return;
  // The destination is operand 1, a view of out's buffer.
  ShapeBlock shapes;
  const std::array<const Strides*, 2> strides = {&in.strides(), &out_strides};
  const std::array<int64_t, 2> offsets = {in.offset(), out.offset() + out_offset};
  const Layout l = layout(in.shape(), strides, offsets, shapes);
  dispatch_over(encoder, copy_kernel(in, out), params::kCopyStridedOut, l, shapes,
                {input(in), output(out)});
}

void fill_gpu(Encoder& encoder, const array& value, array& out) {
  // value's one element, broadcast (zero strides) to out's shape.
  array broadcast(out.shape(), value.dtype(), nullptr, {});
  broadcast.copy_shared_buffer(value, Strides(out.ndim(), 0), value.offset());
  copy_gpu(encoder, broadcast, out);
}

}  // namespace mlx_lite::vulkan
