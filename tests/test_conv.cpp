// Convolutions (conv1d/2d/3d, conv_general, conv_transpose1d/2d/3d): every
// result is checked against a direct double-precision loop written here (over
// output positions, kernel taps and channels for conv_general; the scatter
// form, input position times kernel tap, for the transposed convolutions), on
// the CPU and the GPU, in every floating dtype, with strided inputs; the GPU
// also against the CPU; gradients through check_grads; then edge cases and
// errors.
#include <gtest/gtest.h>

#include <climits>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "mlx_lite/mlx_lite.h"
#include "mlx_lite/testing.h"
#include "tests/test_util.h"

using namespace mlx_lite;
using test_util::devices;
using test_util::error_of;
using test_util::numel;
using test_util::ravel;
using test_util::unravel;
using test_util::values;

namespace {

// One conv_general call: input and weight shapes and every parameter, one
// value per spatial axis.
struct Case {
  Shape x, w;
  std::vector<int> stride, lo, hi, kdil, idil;
  int groups = 1;
  bool flip = false;
};

int64_t dilated(int64_t n, int64_t d) {
  return n == 0 ? 0 : (n - 1) * d + 1;
}

// The output shape of `c`, from the formula (not from the library).
Shape out_shape(const Case& c) {
  const int dims = static_cast<int>(c.x.size()) - 2;
  Shape out{c.x[0]};
  for (int i = 0; i < dims; ++i) {
    const int64_t padded = dilated(c.x[i + 1], c.idil[i]) + c.lo[i] + c.hi[i];
    out.push_back(static_cast<int>((padded - dilated(c.w[i + 1], c.kdil[i])) / c.stride[i] + 1));
  }
  out.push_back(c.w[0]);
  return out;
}

// conv_general by definition: out[n, o..., co] = sum over taps k and the
// group's channels of xd[n, o * stride + k * kdil - lo, ...] * w[co, k', c],
// where xd is x with idil - 1 zeros between neighbours (zero outside) and k'
// is k, or K - 1 - k with flip.
std::vector<double> ref_conv(const Case& c, const std::vector<double>& xv,
                             const std::vector<double>& wv) {
  const int dims = static_cast<int>(c.x.size()) - 2;
  const Shape out = out_shape(c);
  const int cg = c.w.back(), og = c.w[0] / c.groups;
  Shape kernel(c.w.begin() + 1, c.w.end() - 1);
  std::vector<double> res(numel(out), 0.0);
  for (int64_t f = 0; f < numel(out); ++f) {
    auto o = unravel(f, out);
    const int64_t co = o.back(), g = co / og;
    double acc = 0;
    for (int64_t kf = 0; kf < numel(kernel); ++kf) {
      auto k = unravel(kf, kernel);
      std::vector<int64_t> xi{o[0]}, wi{co};
      bool inside = true;
      for (int i = 0; i < dims; ++i) {
        const int64_t t = o[i + 1] * c.stride[i] + k[i] * c.kdil[i] - c.lo[i];
        if (t < 0 || t >= dilated(c.x[i + 1], c.idil[i]) || t % c.idil[i] != 0) inside = false;
        xi.push_back(t / c.idil[i]);
        wi.push_back(c.flip ? kernel[i] - 1 - k[i] : k[i]);
      }
      if (!inside) continue;
      for (int ch = 0; ch < cg; ++ch) {
        xi.push_back(g * cg + ch);
        wi.push_back(ch);
        acc += xv[ravel(xi, c.x)] * wv[ravel(wi, c.w)];
        xi.pop_back();
        wi.pop_back();
      }
    }
    res[f] = acc;
  }
  return res;
}

array normal(const Shape& shape, uint64_t seed, Dtype dt = float32) {
  return astype(random::normal(shape, float32, 0.0f, 1.0f, random::key(seed)), dt, Device::cpu);
}

// The same values as a view with reversed strides (a transposed copy,
// transposed back): the conv must read through strides.
array strided(const array& a) {
  std::vector<int> perm(a.ndim());
  for (size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int>(perm.size() - 1 - i);
  return transpose(contiguous(transpose(a, perm, Device::cpu), false, Device::cpu), perm,
                   Device::cpu);
}

using V = std::vector<int>;

// conv_general in its 10-argument form (as in MLX, the two overloads are
// ambiguous for shorter calls whose trailing arguments are braced lists).
array general(const array& x, const array& w, V stride, V lo = {}, V hi = {}, V kdil = {},
              V idil = {}, int groups = 1, bool flip = false, StreamOrDevice d = {}) {
  return conv_general(x, w, stride, lo, hi, kdil, idil, groups, flip, d);
}

array run(const Case& c, const array& x, const array& w, Device d) {
  return conv_general(x, w, c.stride, c.lo, c.hi, c.kdil, c.idil, c.groups, c.flip, d);
}

// Tolerance relative to max(|want|, 1) for sums of a few dozen products of
// standard normals.
double tol(Dtype dt) {
  if (dt == float16) return 1e-2;
  if (dt == bfloat16) return 5e-2;
  return 1e-5;
}

std::string describe(const Case& c, Dtype dt, Device d) {
  return fmt::format("{} {} x{} w{} stride({}) lo({}) hi({}) kdil({}) idil({}) groups {} flip {}",
                     test_util::device_name(d), dt, test_util::numel(c.x), test_util::numel(c.w),
                     fmt::join(c.stride, ","), fmt::join(c.lo, ","), fmt::join(c.hi, ","),
                     fmt::join(c.kdil, ","), fmt::join(c.idil, ","), c.groups, c.flip);
}

// Checks case `c` on every device, dtype and layout (dense, and input and
// weight both strided) against ref_conv,
// and the GPU against the CPU.
void check_case(const Case& c, uint64_t seed) {
  for (Dtype dt : {float32, float16, bfloat16}) {
    array x = normal(c.x, seed, dt), w = normal(c.w, seed + 1, dt);
    const auto want = ref_conv(c, values(x), values(w));
    std::vector<double> cpu;
    for (Device d : devices()) {
      for (const auto& [xin, win] : {std::pair{x, w}, std::pair{strided(x), strided(w)}}) {
        array y = run(c, xin, win, d);
        const std::string what = describe(c, dt, d);
        ASSERT_EQ(y.shape(), out_shape(c)) << what;
        ASSERT_EQ(y.dtype(), dt) << what;
        test_util::expect_values(y, want, tol(dt), what);
        if (d == Device::cpu) cpu = values(y);
        if (d == Device::gpu) test_util::expect_values(y, cpu, tol(dt), what + " (GPU vs CPU)");
      }
    }
  }
}

Case case1d(Shape x, Shape w, int stride, int lo, int hi, int kdil, int idil, int groups = 1,
            bool flip = false) {
  return {x, w, {stride}, {lo}, {hi}, {kdil}, {idil}, groups, flip};
}

}  // namespace

TEST(Conv, HandComputed) {
  // MLX's own test: two channels in two groups, flipped kernel 0,1,2,3 over
  // the signal 0..4 (a true convolution): 0*3+1*2+2*1+3*0 = 4 at position 0,
  // 1*3+2*2+3*1+4*0 = 10 at position 1.
  for (Device d : devices()) {
    array x = reshape(broadcast_to(arange(5.0f, d), {2, 5}, d), {2, 5}, d);
    x = expand_dims(transpose(x, d), 0, d);                                  // (1, 5, 2)
    array w = expand_dims(broadcast_to(arange(4.0f, d), {2, 4}, d), -1, d);  // (2, 4, 1)
    array y = general(x, w, {}, {}, {}, {}, {}, 2, true, d);
    EXPECT_EQ(y.shape(), (Shape{1, 2, 2}));
    EXPECT_EQ(values(y), (std::vector<double>{4, 4, 10, 10})) << test_util::device_name(d);
    // conv1d of 1,2,3,4 with 1,1 and padding 1: 1, 3, 5, 7, 4.
    array s = reshape(arange(1.0f, 5.0f, d), {1, 4, 1}, d);
    EXPECT_EQ(values(conv1d(s, ones({1, 2, 1}), 1, 1, 1, 1, d)),
              (std::vector<double>{1, 3, 5, 7, 4}));
  }
}

TEST(Conv, Conv1d) {
  // (N, L, C_in) with (C_out, K, C_in / groups): stride, padding, dilation, groups.
  check_case(case1d({2, 9, 3}, {4, 3, 3}, 1, 0, 0, 1, 1), 1);
  check_case(case1d({2, 9, 3}, {4, 3, 3}, 2, 1, 1, 1, 1), 2);
  check_case(case1d({1, 10, 2}, {3, 3, 2}, 1, 2, 2, 2, 1), 3);
  check_case(case1d({3, 8, 4}, {6, 2, 2}, 3, 1, 1, 1, 1, 2), 4);
  check_case(case1d({2, 9, 3}, {3, 3, 1}, 2, 2, 1, 2, 1, 3), 7);  // depthwise
  check_case(case1d({2, 9, 3}, {6, 3, 1}, 1, 1, 1, 1, 1, 3), 8);  // channel multiplier 2
  check_case(case1d({2, 6, 1}, {1, 4, 1}, 1, 1, 2, 1, 1), 9);     // one channel
  for (Device d : devices()) {
    array x = normal({2, 9, 4}, 5), w = normal({6, 3, 2}, 6);
    Case c = case1d({2, 9, 4}, {6, 3, 2}, 2, 1, 1, 2, 1, 2);
    test_util::expect_values(conv1d(x, w, 2, 1, 2, 2, d), ref_conv(c, values(x), values(w)), 1e-5,
                             "conv1d");
  }
}

TEST(Conv, Conv2d) {
  check_case({{2, 7, 6, 3}, {5, 3, 2, 3}, {2, 1}, {1, 0}, {1, 0}, {1, 2}, {1, 1}}, 10);
  check_case({{1, 5, 5, 4}, {4, 3, 3, 1}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, 4},
             11);  // depthwise
  check_case({{2, 6, 5, 4}, {6, 1, 1, 2}, {1, 2}, {0, 0}, {0, 0}, {1, 1}, {1, 1}, 2}, 12);  // 1x1
  for (Device d : devices()) {
    array x = normal({2, 6, 7, 4}, 13), w = normal({3, 3, 2, 4}, 14);
    Case c{{2, 6, 7, 4}, {3, 3, 2, 4}, {2, 3}, {1, 2}, {1, 2}, {2, 1}, {1, 1}};
    test_util::expect_values(conv2d(x, w, {2, 3}, {1, 2}, {2, 1}, 1, d),
                             ref_conv(c, values(x), values(w)), 1e-5, "conv2d");
  }
}

TEST(Conv, Conv3d) {
  check_case(
      {{1, 4, 5, 3, 2}, {3, 2, 3, 2, 2}, {1, 2, 1}, {1, 0, 1}, {1, 0, 1}, {1, 1, 2}, {1, 1, 1}},
      20);
  for (Device d : devices()) {
    array x = normal({2, 3, 4, 5, 4}, 21), w = normal({4, 2, 2, 3, 2}, 22);
    Case c{{2, 3, 4, 5, 4}, {4, 2, 2, 3, 2}, {1, 1, 2}, {1, 0, 1},
           {1, 0, 1},       {1, 2, 1},       {1, 1, 1}, 2};
    test_util::expect_values(conv3d(x, w, {1, 1, 2}, {1, 0, 1}, {1, 2, 1}, 2, d),
                             ref_conv(c, values(x), values(w)), 1e-5, "conv3d groups");
  }
}

TEST(Conv, GeneralPaddingDilationFlip) {
  // Asymmetric padding, input and kernel dilation, flip, negative padding
  // (crops the dilated input), groups, all together.
  check_case(case1d({2, 7, 2}, {3, 3, 2}, 1, 2, 0, 1, 1), 30);
  check_case(case1d({2, 7, 2}, {3, 3, 2}, 2, 0, 3, 2, 3, 1, true), 31);
  check_case(case1d({1, 6, 4}, {2, 2, 2}, 1, -1, -2, 1, 2, 2, true), 32);
  check_case({{2, 4, 5, 2}, {3, 2, 3, 2}, {1, 2}, {2, 0}, {1, 3}, {2, 1}, {3, 2}, 1, true}, 33);
  check_case({{1, 3, 3, 2, 3},
              {3, 2, 1, 2, 1},
              {2, 1, 1},
              {1, 0, -1},
              {0, 2, 1},
              {1, 1, 2},
              {2, 1, 3},
              3,
              true},
             34);
  // One value for every axis, and defaults.
  for (Device d : devices()) {
    array x = normal({1, 5, 6, 2}, 35), w = normal({2, 2, 3, 2}, 36);
    Case c{{1, 5, 6, 2}, {2, 2, 3, 2}, {2, 2}, {1, 1}, {0, 0}, {1, 1}, {2, 2}};
    test_util::expect_values(conv_general(x, w, {2}, {1}, {0}, {}, {2}, 1, false, d),
                             ref_conv(c, values(x), values(w)), 1e-5, "broadcast params");
    Case c0{{1, 5, 6, 2}, {2, 2, 3, 2}, {1, 1}, {0, 0}, {0, 0}, {1, 1}, {1, 1}};
    test_util::expect_values(general(x, w, {}), ref_conv(c0, values(x), values(w)), 1e-5,
                             "defaults");
    // The symmetric-padding overload.
    Case cs{{1, 5, 6, 2}, {2, 2, 3, 2}, {1, 2}, {1, 0}, {1, 0}, {1, 2}, {1, 1}};
    test_util::expect_values(conv_general(x, w, V{1, 2}, V{1, 0}, V{1, 2}, V{1}, 1, false, d),
                             ref_conv(cs, values(x), values(w)), 1e-5, "symmetric overload");
  }
}

namespace {

// conv_transpose by the scatter form: input position i, kernel tap k and
// channel c add x[i, c] * w[co, k, c] into output i * stride - padding +
// k * dilation (dropped outside the output), within each group.
std::vector<double> ref_transpose(const Shape& xs, const Shape& ws, const std::vector<int>& stride,
                                  const std::vector<int>& pad, const std::vector<int>& dil,
                                  const std::vector<int>& opad, int groups,
                                  const std::vector<double>& xv, const std::vector<double>& wv,
                                  Shape& out) {
  const int dims = static_cast<int>(xs.size()) - 2;
  out = {xs[0]};
  for (int i = 0; i < dims; ++i)
    out.push_back((xs[i + 1] - 1) * stride[i] - 2 * pad[i] + dil[i] * (ws[i + 1] - 1) + 1 +
                  opad[i]);
  out.push_back(ws[0]);
  const int cg = ws.back(), og = ws[0] / groups;
  Shape kernel(ws.begin() + 1, ws.end() - 1);
  std::vector<double> res(numel(out), 0.0);
  for (int64_t f = 0; f < numel(xs); ++f) {
    auto xi = unravel(f, xs);
    const int64_t g = xi.back() / cg, ch = xi.back() % cg;
    for (int64_t kf = 0; kf < numel(kernel); ++kf) {
      auto k = unravel(kf, kernel);
      std::vector<int64_t> oi{xi[0]};
      bool inside = true;
      for (int i = 0; i < dims; ++i) {
        const int64_t t = xi[i + 1] * stride[i] - pad[i] + k[i] * dil[i];
        inside &= t >= 0 && t < out[i + 1];
        oi.push_back(t);
      }
      if (!inside) continue;
      for (int64_t j = 0; j < og; ++j) {
        const int64_t co = g * og + j;
        std::vector<int64_t> wi{co};
        wi.insert(wi.end(), k.begin(), k.end());
        wi.push_back(ch);
        oi.push_back(co);
        res[ravel(oi, out)] += xv[f] * wv[ravel(wi, ws)];
        oi.pop_back();
      }
    }
  }
  return res;
}

}  // namespace

TEST(Conv, Transpose) {
  for (Device d : devices()) {
    for (Dtype dt : {float32, float16, bfloat16}) {
      const std::string at = test_util::device_name(d) + " " + std::string(dtype_name(dt));
      Shape out;
      {  // 1-D: stride 3, padding 1, dilation 2, output_padding 2, groups 2.
        array x = normal({2, 4, 4}, 40, dt), w = normal({4, 3, 2}, 41, dt);
        auto want =
            ref_transpose(x.shape(), w.shape(), {3}, {1}, {2}, {2}, 2, values(x), values(w), out);
        array y = conv_transpose1d(strided(x), w, 3, 1, 2, 2, 2, d);
        ASSERT_EQ(y.shape(), out) << at;
        test_util::expect_values(y, want, tol(dt), "conv_transpose1d " + at);
      }
      {  // 2-D: stride (2, 1), padding (1, 0), output_padding (1, 0).
        array x = normal({2, 3, 4, 3}, 42, dt), w = normal({2, 3, 2, 3}, 43, dt);
        auto want = ref_transpose(x.shape(), w.shape(), {2, 1}, {1, 0}, {1, 1}, {1, 0}, 1,
                                  values(x), values(w), out);
        array y = conv_transpose2d(x, w, {2, 1}, {1, 0}, {1, 1}, {1, 0}, 1, d);
        ASSERT_EQ(y.shape(), out) << at;
        test_util::expect_values(y, want, tol(dt), "conv_transpose2d " + at);
      }
      {  // 2-D with padding past the kernel extent (negative padding inside).
        array x = normal({1, 5, 4, 2}, 44, dt), w = normal({3, 3, 2, 2}, 45, dt);
        auto want = ref_transpose(x.shape(), w.shape(), {2, 3}, {3, 2}, {1, 1}, {1, 2}, 1,
                                  values(x), values(w), out);
        array y = conv_transpose2d(x, w, {2, 3}, {3, 2}, {1, 1}, {1, 2}, 1, d);
        ASSERT_EQ(y.shape(), out) << at;
        test_util::expect_values(y, want, tol(dt), "conv_transpose2d large padding " + at);
      }
      {  // 3-D.
        array x = normal({1, 2, 3, 2, 2}, 46, dt), w = normal({2, 2, 2, 3, 2}, 47, dt);
        auto want = ref_transpose(x.shape(), w.shape(), {2, 1, 2}, {0, 1, 1}, {1, 2, 1}, {1, 0, 1},
                                  1, values(x), values(w), out);
        array y = conv_transpose3d(x, w, {2, 1, 2}, {0, 1, 1}, {1, 2, 1}, {1, 0, 1}, 1, d);
        ASSERT_EQ(y.shape(), out) << at;
        test_util::expect_values(y, want, tol(dt), "conv_transpose3d " + at);
      }
    }
  }
}

TEST(Conv, DtypesAndShapes) {
  for (Device d : devices()) {
    // The weight is promoted with the input, as MLX.
    EXPECT_EQ(conv1d(zeros({1, 4, 2}, float16), zeros({1, 2, 2}, float32), 1, 0, 1, 1, d).dtype(),
              float32);
    EXPECT_EQ(conv1d(zeros({1, 4, 2}, bfloat16), zeros({1, 2, 2}, float16), 1, 0, 1, 1, d).dtype(),
              float32);
    EXPECT_EQ(conv1d(zeros({1, 4, 2}, float16), zeros({1, 2, 2}, int32), 1, 0, 1, 1, d).dtype(),
              float16);
    // Zero-size batch, zero channels, zero output channels.
    array e = conv2d(zeros({0, 5, 5, 3}), zeros({4, 3, 3, 3}), {1, 1}, {1, 1}, {1, 1}, 1, d);
    EXPECT_EQ(e.shape(), (Shape{0, 5, 5, 4}));
    e.eval();
    array z = conv1d(ones({2, 5, 0}), ones({3, 2, 0}), 1, 0, 1, 1, d);
    EXPECT_EQ(z.shape(), (Shape{2, 4, 3}));
    EXPECT_EQ(values(z), std::vector<double>(24, 0.0));
    EXPECT_EQ(conv1d(ones({2, 5, 2}), ones({0, 2, 2}), 1, 0, 1, 1, d).shape(), (Shape{2, 4, 0}));
    // An empty spatial axis padded out to the kernel: zeros.
    array p = conv1d(ones({1, 0, 1}), ones({1, 3, 1}), 1, 2, 1, 1, d);
    EXPECT_EQ(values(p), (std::vector<double>{0, 0}));
  }
}

namespace {

// check_grads of f on the CPU and the GPU (as the default device).
void grads_everywhere(const std::function<array(const array&, const array&)>& f, const array& x,
                      const array& w, const std::string& what) {
  const Device saved = default_device();
  for (Device d : devices()) {
    set_default_device(d);
    EXPECT_TRUE(test::check_grads(
        [&](const std::vector<array>& in) { return std::vector<array>{f(in[0], in[1])}; }, {x, w}))
        << what << " on " << test_util::device_name(d);
  }
  set_default_device(saved);
}

}  // namespace

TEST(Conv, Gradients) {
  grads_everywhere(
      [](const array& x, const array& w) {
        return conv2d(x, w, {2, 1}, {1, 0}, {1, 2}, 2);
      },
      normal({2, 5, 6, 4}, 50), normal({4, 2, 2, 2}, 51), "conv2d");
  grads_everywhere([](const array& x,
                      const array& w) { return general(x, w, {1}, {2}, {-1}, {2}, {2}, 1, true); },
                   normal({1, 5, 3}, 52), normal({2, 3, 3}, 53), "conv_general 1d");
  grads_everywhere(
      [](const array& x, const array& w) { return conv_transpose1d(x, w, 2, 1, 1, 1, 1); },
      normal({2, 4, 3}, 54), normal({2, 3, 3}, 55), "conv_transpose1d");
  grads_everywhere(  // depthwise
      [](const array& x, const array& w) {
        return conv2d(x, w, {1, 2}, {1, 1}, {1, 1}, 3);
      },
      normal({2, 4, 5, 3}, 58), normal({3, 3, 2, 1}, 59), "depthwise conv2d");
  grads_everywhere(
      [](const array& x, const array& w) {
        return conv3d(x, w, {1, 2, 1}, {0, 1, 0});
      },
      normal({1, 2, 3, 3, 2}, 56), normal({2, 2, 2, 2, 2}, 57), "conv3d");
}

TEST(Conv, Errors) {
  auto x = zeros({1, 5, 2}), w = zeros({3, 2, 2});
  auto message = [](const std::function<void()>& f) { return error_of(f); };
  EXPECT_NE(message([&] {
              conv1d(zeros({1, 5, 2}, int32), w);
            }).find("[conv] Invalid input array"),
            std::string::npos);
  EXPECT_THROW(conv1d(zeros({1, 5, 2}, bool_), w), std::invalid_argument);
  EXPECT_THROW(conv2d(x, w), std::invalid_argument);                    // rank
  EXPECT_THROW(conv1d(x, zeros({3, 2, 2, 1})), std::invalid_argument);  // weight rank
  EXPECT_THROW(conv1d(x, zeros({3, 2, 3})), std::invalid_argument);     // channels
  EXPECT_THROW(conv1d(zeros({1, 5, 3}), zeros({3, 2, 1}), 1, 0, 1, 2), std::invalid_argument);
  EXPECT_THROW(conv1d(zeros({1, 5, 4}), zeros({3, 2, 2}), 1, 0, 1, 2), std::invalid_argument);
  EXPECT_THROW(conv1d(x, w, 1, 0, 1, 0), std::invalid_argument);   // groups 0
  EXPECT_THROW(conv1d(x, w, 1, 0, 1, -2), std::invalid_argument);  // groups < 0
  EXPECT_THROW(conv1d(x, w, 0), std::invalid_argument);            // stride
  EXPECT_THROW(conv1d(x, w, -1), std::invalid_argument);
  EXPECT_THROW(conv1d(x, w, 1, 0, 0), std::invalid_argument);  // dilation
  EXPECT_THROW(general(x, w, {1}, {0}, {0}, {1}, {0}), std::invalid_argument);
  EXPECT_THROW(conv1d(x, zeros({3, 6, 2})), std::invalid_argument);  // kernel > input
  EXPECT_THROW(conv1d(x, zeros({3, 0, 2})), std::invalid_argument);  // empty kernel
  EXPECT_THROW(conv1d(x, w, 1, -2), std::invalid_argument);          // crops below the kernel
  EXPECT_THROW(general(zeros({1, 5, 5, 2}), zeros({3, 2, 2, 2}), {1, 1, 1}),
               std::invalid_argument);  // parameter count
  EXPECT_THROW(general(zeros({5, 2}), zeros({3, 2}), {}), std::invalid_argument);
  EXPECT_THROW(general(zeros({1, 2, 2, 2, 2, 2}), zeros({1, 1, 1, 1, 1, 2}), {}),
               std::invalid_argument);
  EXPECT_THROW(conv_transpose1d(x, w, 0), std::invalid_argument);
  const std::string m = message([&] { conv1d(x, zeros({3, 2, 3})); });
  EXPECT_EQ(m.rfind("[conv]", 0), 0u) << m;
  // Sizes past INT32_MAX throw std::overflow_error before any array is built.
  EXPECT_THROW(conv1d(x, w, 1, 0, INT_MAX), std::overflow_error);
  EXPECT_THROW(conv1d(x, w, 1, INT_MAX), std::overflow_error);
  EXPECT_THROW(general(x, w, {1}, {0}, {0}, {1}, {INT_MAX}), std::overflow_error);
  EXPECT_THROW(conv_transpose1d(x, w, INT_MAX), std::overflow_error);
  EXPECT_NE(error_of<std::overflow_error>([&] { conv1d(x, w, 1, INT_MAX); }).find("[conv]"),
            std::string::npos);
}
