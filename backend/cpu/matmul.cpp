// CPU kernel of Matmul: Eigen's GEMM on each batch matrix.
//
// A float32 matrix whose rows or columns are unit-strided is mapped in place
// (a transposed row-major matrix is a column-major one); anything else (other
// strides, or a 16-bit dtype) is first converted to a float32 row-major buffer.
// float64 does the same in double.
#include <Eigen/Core>
#include <vector>

#include "backend/cpu/strided.h"
#include "mlx_lite/primitives/linalg.h"

namespace mlx_lite {

namespace {

// One matrix as Eigen sees it: S data (float, or double for float64), its
// storage order and leading dim.
template <typename S>
struct MatView {
  const S* data;
  bool row_major;
  int64_t ld;
};

// Views the rows x cols matrix at `p` with strides (rs, cs), copying into
// `buf` only when it cannot be mapped directly.
template <typename S, typename T>
MatView<S> view(const T* p, int64_t rows, int64_t cols, int64_t rs, int64_t cs,
                std::vector<S>& buf) {
  // The stride of a dim of size 1 is never used: pick the one that lets the
  // other dim map in place (a strided row is a column-major 1 x n matrix).
  if (rows == 1) rs = cs == 1 ? std::max<int64_t>(cols, 1) : 1;
  if (cols == 1) cs = rs == 1 ? std::max<int64_t>(rows, 1) : 1;
  if constexpr (std::is_same_v<T, S>) {
    if (cs == 1 && rs >= cols) return {p, true, rs};
    if (rs == 1 && cs >= rows) return {p, false, cs};
  }
  buf.resize(rows * cols);
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) buf[i * cols + j] = static_cast<S>(p[i * rs + j * cs]);
  }
  return {buf.data(), true, std::max<int64_t>(cols, 1)};
}

template <int OrderA, int OrderB, typename S>
void gemm(const MatView<S>& a, const MatView<S>& b, S* c, int64_t M, int64_t N, int64_t K) {
  using MatA = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic, OrderA>;
  using MatB = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic, OrderB>;
  using MatC = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Eigen::Map<const MatA, Eigen::Unaligned, Eigen::OuterStride<>> A(a.data, M, K,
                                                                   Eigen::OuterStride<>(a.ld));
  Eigen::Map<const MatB, Eigen::Unaligned, Eigen::OuterStride<>> B(b.data, K, N,
                                                                   Eigen::OuterStride<>(b.ld));
  Eigen::Map<MatC> C(c, M, N);
  C.noalias() = A * B;
}

// c (M x N, row-major) = a (M x K) * b (K x N).
template <typename S>
void gemm(const MatView<S>& a, const MatView<S>& b, S* c, int64_t M, int64_t N, int64_t K) {
  if (K == 0) {
    std::fill_n(c, M * N, S(0));
  } else if (a.row_major && b.row_major) {
    gemm<Eigen::RowMajor, Eigen::RowMajor, S>(a, b, c, M, N, K);
  } else if (a.row_major) {
    gemm<Eigen::RowMajor, Eigen::ColMajor, S>(a, b, c, M, N, K);
  } else if (b.row_major) {
    gemm<Eigen::ColMajor, Eigen::RowMajor, S>(a, b, c, M, N, K);
  } else {
    gemm<Eigen::ColMajor, Eigen::ColMajor, S>(a, b, c, M, N, K);
  }
}

// Whether a's batch dims stack its matrices into one taller matrix with the
// same row stride (so a batch times one shared b is a single GEMM).
bool batch_folds_into_rows(const array& a) {
  const int nd = a.ndim();
  int64_t expected = a.strides()[nd - 2] * a.shape(-2);
  for (int d = nd - 3; d >= 0; --d) {
    if (a.shape(d) == 1) continue;
    if (a.strides()[d] != expected) return false;
    expected *= a.shape(d);
  }
  return true;
}

template <typename T>
void matmul(const array& a, const array& b, array& out) {
  const int nd = out.ndim();
  const int64_t M = a.shape(-2), K = a.shape(-1), N = b.shape(-1);
  auto* pa = static_cast<const T*>(a.raw_data());
  auto* pb = static_cast<const T*>(b.raw_data());
  auto* po = static_cast<T*>(out.raw_data());
  const int64_t ars = a.strides()[nd - 2], acs = a.strides()[nd - 1];
  const int64_t brs = b.strides()[nd - 2], bcs = b.strides()[nd - 1];

  using S = std::conditional_t<std::is_same_v<T, double>, double, float>;
  std::vector<S> buf_a, buf_b, buf_c;
  // Computes one (rows x N) block of the output at po + out_off.
  auto block = [&](const T* ap, const T* bp, int64_t rows, int64_t out_off) {
    auto va = view(ap, rows, K, ars, acs, buf_a);
    auto vb = view(bp, K, N, brs, bcs, buf_b);
    if constexpr (std::is_same_v<T, S>) {
      gemm(va, vb, po + out_off, rows, N, K);
    } else {
      buf_c.resize(rows * N);
      gemm(va, vb, buf_c.data(), rows, N, K);
      for (int64_t i = 0; i < rows * N; ++i) po[out_off + i] = static_cast<T>(buf_c[i]);
    }
  };

  Shape batch(out.shape().begin(), out.shape().end() - 2);
  Strides a_batch(a.strides().begin(), a.strides().end() - 2);
  Strides b_batch(b.strides().begin(), b.strides().end() - 2);
  int64_t batch_size = 1;
  for (auto d : batch) batch_size *= d;
  bool b_shared = true;
  for (size_t d = 0; d < batch.size(); ++d)
    b_shared = b_shared && (batch[d] == 1 || b_batch[d] == 0);
  if (batch_size > 1 && b_shared && batch_folds_into_rows(a)) {
    block(pa, pb, batch_size * M, 0);
    return;
  }
  int64_t i = 0;
  cpu::for_each_offset<2>(batch, {&a_batch, &b_batch}, [&](const auto& off) {
    block(pa + off[0], pb + off[1], M, (i++) * M * N);
  });
}

}  // namespace

void Matmul::eval_cpu(const std::vector<array>& inputs, array& out) {
  const auto& a = inputs[0];
  const auto& b = inputs[1];
  common::allocate(out);
  if (out.size() == 0) return;
  dispatch_dtype(out.dtype(), [&]<typename T>() {
    if constexpr (std::is_floating_point_v<compute_type_t<T>>) {
      matmul<T>(a, b, out);
    } else {
      throw std::invalid_argument("[Matmul] Expected floating point inputs.");
    }
  });
}

}  // namespace mlx_lite
