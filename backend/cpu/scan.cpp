// CPU kernel of Scan (cumsum): one sequential pass along the axis for each
// line, reading the input through its strides into a row-contiguous output.
#include "backend/cpu/strided.h"
#include "mlx_lite/primitives/reduction.h"

namespace mlx_lite {

namespace {

// Sums accumulate in double for floats (long cumulative sums stay accurate)
// and in 64 bits for integers (wrapping into the output type, as MLX does).
template <typename T>
using scan_acc_t = std::conditional_t<std::is_floating_point_v<compute_type_t<T>>, double,
                                      std::conditional_t<std::is_unsigned_v<T>, uint64_t, int64_t>>;

template <typename In, typename Out>
void cumsum(const array& in, array& out, int axis, bool reverse, bool inclusive) {
  using A = scan_acc_t<In>;
  auto* src = static_cast<const In*>(in.raw_data());
  auto* dst = static_cast<Out*>(out.raw_data());
  const int64_t n = in.shape(axis);
  const auto out_strides = row_major_strides(out.shape());
  // Walking backwards is walking forwards from the last element with negated strides.
  const int64_t si = reverse ? -in.strides()[axis] : in.strides()[axis];
  const int64_t so = reverse ? -out_strides[axis] : out_strides[axis];
  const int64_t start_i = reverse ? (n - 1) * in.strides()[axis] : 0;
  const int64_t start_o = reverse ? (n - 1) * out_strides[axis] : 0;

  Shape shape;
  Strides in_st, out_st;
  for (int i = 0; i < in.ndim(); ++i) {
    if (i == axis) continue;
    shape.push_back(in.shape(i));
    in_st.push_back(in.strides()[i]);
    out_st.push_back(out_strides[i]);
  }
  if (n == 0) return;
  cpu::for_each_offset<2>(shape, {&in_st, &out_st}, [&](const auto& off) {
    const In* p = src + off[0] + start_i;
    Out* q = dst + off[1] + start_o;
    A acc = 0;
    for (int64_t i = 0; i < n; ++i) {
      A x = static_cast<A>(static_cast<compute_type_t<In>>(p[i * si]));
      if (inclusive) acc += x;
      q[i * so] = static_cast<Out>(static_cast<compute_type_t<Out>>(acc));
      if (!inclusive) acc += x;
    }
  });
}

}  // namespace

void Scan::eval_cpu(const std::vector<array>& inputs, array& out) {
  const auto& in = inputs[0];
  common::allocate(out);
  dispatch_dtype(in.dtype(), [&]<typename T>() {
    // bool sums count, into int32 (as MLX); every other dtype keeps its type.
    using Out = std::conditional_t<std::is_same_v<T, bool>, int32_t, T>;
    cumsum<T, Out>(in, out, axis_, reverse_, inclusive_);
  });
}

}  // namespace mlx_lite
