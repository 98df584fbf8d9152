// MLX's semantics where issue 14 found mlx_lite differing: item/data type
// checks, streams and devices, the array API (data_size, iteration, raw
// pointers, is_tracer), and the regressions the MLX test suite exposed
// (take_along_axis on empty dims, integer arange steps, negative argnums,
// cotangent dtypes, the GPU asked for where there is none, integer sums
// that wrap). Expected values are hand-computed.
#include <gtest/gtest.h>

#include <climits>
#include <cstdint>
#include <cstring>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "mlx_lite/gpu.h"
#include "mlx_lite/mlx_lite.h"
#include "test_util.h"

namespace {

using namespace mlx_lite;
using test_util::values;
using test_util::values_as;

// ---- item<T> and data<T> read the dtype's own C++ type only.

TEST(ItemAndData, TypeMustBeTheDtypes) {
  array f(1.5f);
  EXPECT_EQ(f.item<float>(), 1.5f);
  // The bug: 4 bytes written into a 1- or 2-byte local, or float bits read as int.
  EXPECT_THROW(f.item<int8_t>(), std::invalid_argument);
  EXPECT_THROW(f.item<int16_t>(), std::invalid_argument);
  EXPECT_THROW(f.item<uint16_t>(), std::invalid_argument);
  EXPECT_THROW(f.item<int>(), std::invalid_argument);
  EXPECT_THROW(f.item<double>(), std::invalid_argument);
  EXPECT_THROW(f.data<int>(), std::invalid_argument);
  EXPECT_THROW(f.data<double>(), std::invalid_argument);

  array i(7);
  EXPECT_EQ(i.item<int32_t>(), 7);
  EXPECT_THROW(i.item<uint32_t>(), std::invalid_argument);  // same size, other signedness
  EXPECT_THROW(i.item<float>(), std::invalid_argument);

  array l(int64_t{-3}, int64);
  EXPECT_EQ(l.item<long long>(), -3);  // the same width and signedness as int64_t
  EXPECT_EQ(*l.data<int64_t>(), -3);

  array b(true);
  EXPECT_EQ(b.item<bool>(), true);
  EXPECT_THROW(b.item<uint8_t>(), std::invalid_argument);
  EXPECT_EQ(array(uint8_t{200}).item<uint8_t>(), 200);
}

TEST(ItemAndData, MessageNamesBothTypes) {
  try {
    array(1.0f).item<int>();
    FAIL() << "item<int> of float32 did not throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("float32"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("int32_t"), std::string::npos) << e.what();
  }
}

TEST(ItemAndData, ConstItemAndSizeCheck) {
  const array a = add(array(2), array(3));
  EXPECT_EQ(a.item<int>(), 5);
  EXPECT_THROW(array({1, 2}).item<int>(), std::invalid_argument);
}

// ---- Devices and streams.

TEST(Streams, DeviceAndStreamOrdering) {
  EXPECT_TRUE(Device(Device::cpu) < Device(Device::gpu));
  EXPECT_TRUE(Device(Device::gpu, 0) < Device(Device::gpu, 1));
  EXPECT_FALSE(Device(Device::gpu) < Device(Device::gpu));
  EXPECT_TRUE(Device(Device::gpu) == Device::gpu);
  EXPECT_TRUE(Device(Device::gpu) != Device(Device::cpu));
  Stream s1 = new_stream(Device::cpu), s2 = new_stream(Device::cpu);
  EXPECT_TRUE(s1 < s2);
  EXPECT_NE(s1, s2);
  std::set<Stream> set{s2, s1, s2};
  EXPECT_EQ(set.size(), 2u);
}

TEST(Streams, GetStreamsListsEveryStreamInOrder) {
  Stream cpu_default = default_stream(Device::cpu);
  const auto before = get_streams();
  Stream made = new_stream(Device::cpu);
  const auto after = get_streams();
  ASSERT_EQ(after.size(), before.size() + 1);
  EXPECT_EQ(after.back(), made);
  EXPECT_EQ(get_stream(made.index), made);
  EXPECT_EQ(get_stream(made.index).device, Device::cpu);
  EXPECT_NE(std::find(after.begin(), after.end(), cpu_default), after.end());
  EXPECT_THROW(get_stream(-1), std::invalid_argument);
  EXPECT_THROW(get_stream(static_cast<int>(after.size())), std::invalid_argument);
}

TEST(Streams, EachThreadHasItsOwnDefaultStream) {
  const size_t before = get_streams().size();
  std::vector<Stream> seen(4, Stream(-1, Device::cpu));
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&seen, t] { seen[t] = default_stream(Device::cpu); });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(std::set<Stream>(seen.begin(), seen.end()).size(), 4u);
  EXPECT_GE(get_streams().size(), before + 4);
}

TEST(Streams, StreamContextSetsAndRestoresTheDefaults) {
  const Device device = default_device();
  const Stream stream = default_stream(device);
  Stream other = new_stream(Device::cpu);
  {
    StreamContext ctx(other);
    EXPECT_EQ(default_device(), Device::cpu);
    EXPECT_EQ(default_stream(Device::cpu), other);
    array x = add(array(1.0f), array(2.0f));
    ASSERT_TRUE(x.has_primitive());
    EXPECT_EQ(x.primitive().stream(), other);
    EXPECT_EQ(x.item<float>(), 3.0f);
  }
  EXPECT_EQ(default_device(), device);
  EXPECT_EQ(default_stream(device), stream);
  {
    StreamContext ctx(Device::cpu);
    EXPECT_EQ(default_device(), Device::cpu);
  }
  EXPECT_EQ(default_device(), device);
  EXPECT_THROW(StreamContext(StreamOrDevice{}), std::runtime_error);  // as MLX
}

TEST(Streams, SynchronizeAStream) {
  Stream s = new_stream(default_device());
  array x = add(ones({64}), ones({64}), s);
  async_eval({x});
  synchronize(s);
  EXPECT_EQ(sum(x).item<float>(), 128.0f);
}

// ---- The array API.

TEST(ArrayApi, DataSize) {
  array dense = reshape(arange(12.0f), {3, 4});
  dense.eval();
  EXPECT_EQ(dense.data_size(), 12u);
  array t = transpose(dense);
  t.eval();
  EXPECT_EQ(t.data_size(), 12u);
  array strided = slice(dense, {0, 0}, {3, 4}, {2, 2});  // rows 0, 2; columns 0, 2
  strided.eval();
  EXPECT_EQ(strided.size(), 4u);
  EXPECT_EQ(strided.data_size(), 11u);  // elements 0 to 10 of the buffer
  array scalar_broadcast = broadcast_to(array(1.0f), {5, 5});
  scalar_broadcast.eval();
  EXPECT_EQ(scalar_broadcast.data_size(), 1u);
  array empty = zeros({0, 3});
  empty.eval();
  EXPECT_EQ(empty.data_size(), 0u);
}

TEST(ArrayApi, IteratesOverTheFirstAxis) {
  array a = reshape(arange(6), {3, 2});
  std::vector<std::vector<double>> rows;
  for (const array& row : a) {
    EXPECT_EQ(row.shape(), Shape{2});
    rows.push_back(values(row));
  }
  EXPECT_EQ(rows, (std::vector<std::vector<double>>{{0, 1}, {2, 3}, {4, 5}}));
  int n = 0;
  for (auto it = a.begin(); it != a.end(); ++it) ++n;
  EXPECT_EQ(n, 3);
  array e = zeros({0, 2});
  EXPECT_EQ(e.begin(), e.end());
  EXPECT_THROW(array(1.0f).begin(), std::invalid_argument);
}

TEST(ArrayApi, FromRawPointerCopiesAndCallsTheDeleter) {
  auto* data = new float[4]{1, 2, 3, 4};
  int deleted = 0;
  array a(static_cast<void*>(data), Shape{2, 2}, float32, [&](void* p) {
    EXPECT_EQ(p, data);
    ++deleted;
    delete[] static_cast<float*>(p);
  });
  EXPECT_EQ(deleted, 1);  // copied at once, so released at once
  EXPECT_EQ(values(a), (std::vector<double>{1, 2, 3, 4}));
  EXPECT_EQ(values(a * a), (std::vector<double>{1, 4, 9, 16}));
  array empty(nullptr, Shape{0}, int32, nullptr);
  EXPECT_EQ(empty.size(), 0u);
  EXPECT_THROW(array(nullptr, Shape{2}, int32, nullptr), std::invalid_argument);
}

TEST(ArrayApi, IsTracerOnlyWhileATransformRuns) {
  array x(2.0f);
  EXPECT_FALSE(x.is_tracer());
  bool traced_input = false, traced_result = false, untraced_constant = true;
  auto fun = [&](const array& in) {
    traced_input = in.is_tracer();
    array out = in * in;
    traced_result = out.is_tracer();
    untraced_constant = array(3.0f).is_tracer();
    return out;
  };
  auto [value, g] = vjp(fun, x, array(1.0f));
  EXPECT_TRUE(traced_input);
  EXPECT_TRUE(traced_result);
  EXPECT_FALSE(untraced_constant);
  EXPECT_FALSE(value.is_tracer());  // the transform has returned
  EXPECT_EQ(g.item<float>(), 4.0f);
}

TEST(ArrayApi, EmptyInitializerListIsAnEmptyFloatArray) {
  // array({}) once called memcpy(dst, nullptr, 0) (UBSan).
  array a({});
  EXPECT_EQ(a.shape(), Shape{0});
  EXPECT_EQ(a.dtype(), float32);
  array b({}, int32);
  EXPECT_EQ(b.dtype(), int32);
  EXPECT_EQ(values(concatenate({a, array({1.0f})})), std::vector<double>{1});
}

TEST(ArrayApi, ShapeAndStridesOfAMissingDimAreOutOfRange) {
  array a = zeros({2, 3});
  EXPECT_THROW(a.shape(2), std::out_of_range);
  EXPECT_THROW(a.shape(-3), std::out_of_range);
  EXPECT_THROW(a.strides(2), std::out_of_range);
  EXPECT_EQ(a.shape(-1), 3);
}

// ---- Exception types as MLX throws them (messages are mlx_lite's own).

TEST(ExceptionTypes, ReductionAxesOutOfRangeAsMlx) {
  array a = ones({2, 3});
  EXPECT_THROW(sum(a, 2), std::out_of_range);
  EXPECT_THROW(prod(a, -3), std::out_of_range);
  EXPECT_THROW(max(a, 5), std::out_of_range);
  EXPECT_THROW(min(a, std::vector<int>{0, 7}), std::out_of_range);
  EXPECT_THROW(all(a, 2), std::out_of_range);
  EXPECT_THROW(any(a, 2), std::out_of_range);
  EXPECT_THROW(argmax(a, 2), std::out_of_range);
  EXPECT_THROW(argmin(a, -3), std::out_of_range);
  EXPECT_THROW(logsumexp(a, 2), std::out_of_range);
  EXPECT_THROW(softmax(a, 2), std::out_of_range);
  // Range is checked before repeats, as MLX's reductions check.
  EXPECT_THROW(sum(a, std::vector<int>{0, 0, 9}), std::out_of_range);
  // A repeat alone is a bad argument.
  EXPECT_THROW(sum(a, std::vector<int>{0, -2}), std::invalid_argument);
  // 0-D softmax and logsumexp with axes: a bad argument, as MLX.
  EXPECT_THROW(softmax(array(1.0f), 0), std::invalid_argument);
  EXPECT_THROW(logsumexp(array(1.0f), 0), std::invalid_argument);
  // mean and var stay std::invalid_argument, as MLX.
  EXPECT_THROW(mean(a, 2), std::invalid_argument);
  EXPECT_THROW(var(a, 2), std::invalid_argument);
}

// ---- Regressions found by MLX's test suite.

TEST(Regressions, TakeAlongAxisWithAnEmptyDim) {
  for (const Device d : {Device(Device::cpu), Device(Device::gpu)}) {
    if (!is_available(d)) continue;
    array a = zeros({2, 0}, float32);
    array idx = zeros({2, 0}, int32);
    array out = take_along_axis(a, idx, 1, d);
    EXPECT_EQ(out.shape(), (Shape{2, 0}));
    eval(out);
    array b = zeros({0, 3});
    EXPECT_EQ(take_along_axis(b, zeros({0, 2}, int32), 1, d).shape(), (Shape{0, 2}));
    EXPECT_EQ(take_along_axis(b, zeros({0, 3}, int32), 0, d).shape(), (Shape{0, 3}));
    // put_along_axis writing nothing returns the array.
    array c = reshape(arange(6.0f), {2, 3});
    array put = put_along_axis(c, zeros({2, 0}, int32), array(9.0f), 1, d);
    EXPECT_EQ(values(put), values(c));
    // A non-empty result from an axis of length 0 has nothing to read.
    EXPECT_THROW(take_along_axis(zeros({2, 0}), zeros({2, 1}, int32), 1, d), std::invalid_argument);
    EXPECT_THROW(take_along_axis(b, zeros({1, 3}, int32), 0, d), std::invalid_argument);
  }
}

TEST(Regressions, IntegerArangeStepsByTheTruncatedStep) {
  for (const Device d : {Device(Device::cpu), Device(Device::gpu)}) {
    if (!is_available(d)) continue;
    array zeros10 = arange(0.0, 5.0, 0.5, int32, d);
    EXPECT_EQ(values(zeros10), std::vector<double>(10, 0.0));
    EXPECT_EQ(values(arange(0.0, 5.0, 1.5, int32, d)), (std::vector<double>{0, 1, 2, 3}));
    // int(-1.5) = -1, int(-1.5 + 2.5) = 1: steps of 2 from -1, length ceil(4.5 / 2.5) = 2.
    EXPECT_EQ(values(arange(-1.5, 3.0, 2.5, int64, d)), (std::vector<double>{-1, 1}));
    // int(5 - 1.5) - int(5) = -2.
    EXPECT_EQ(values(arange(5.0, 0.0, -1.5, int32, d)), (std::vector<double>{5, 3, 1, -1}));
    // Float ranges keep the exact step.
    EXPECT_EQ(values(arange(0.0, 2.0, 0.5, float32, d)), (std::vector<double>{0, 0.5, 1, 1.5}));
  }
}

TEST(Regressions, NegativeArgnumsCountFromTheEnd) {
  auto f = [](const std::vector<array>& in) { return in[0] * in[1] * in[1]; };
  array x(2.0f), y(3.0f);
  auto g_last = grad(f, {-1})({x, y});
  ASSERT_EQ(g_last.size(), 1u);
  EXPECT_EQ(g_last[0].item<float>(), 12.0f);  // d/dy x y^2 = 2 x y
  // Gradients come in input order, as MLX's, whatever order argnums lists.
  auto g_both = grad(f, {-1, 0})({x, y});
  ASSERT_EQ(g_both.size(), 2u);
  EXPECT_EQ(g_both[0].item<float>(), 9.0f);   // d/dx = y^2
  EXPECT_EQ(g_both[1].item<float>(), 12.0f);  // d/dy
  EXPECT_THROW(grad(f, {-3})({x, y}), std::invalid_argument);
  EXPECT_THROW(grad(f, {1, -1})({x, y}), std::invalid_argument);  // the same input twice
}

TEST(Regressions, CotangentsAndTangentsAreCastToTheDtype) {
  auto f = [](const array& x) { return x * array(3.0f); };
  auto [out, g] = vjp(f, array(2.0f), array(2));  // an int32 cotangent
  EXPECT_EQ(g.dtype(), float32);
  EXPECT_EQ(g.item<float>(), 6.0f);
  auto [out2, t] = jvp(f, array(2.0f), array(true));  // a bool tangent
  EXPECT_EQ(t.dtype(), float32);
  EXPECT_EQ(t.item<float>(), 3.0f);
  // Shapes must still match.
  EXPECT_THROW(vjp(f, array(2.0f), array({1.0f, 2.0f})), std::invalid_argument);
  EXPECT_THROW(jvp(f, array(2.0f), array({1.0f, 2.0f})), std::invalid_argument);
}

TEST(Regressions, Int64SumAndProdWrapAsNumpy) {
  // CPU only: the GPU's wrapping is tested by GpuReduce; here UBSan checks the
  // CPU's arithmetic is defined.
  const Device cpu(Device::cpu);
  array big = array({INT64_MAX, int64_t{1}}, int64);
  EXPECT_EQ(sum(big, cpu).item<int64_t>(), INT64_MIN);
  array p = array({int64_t{1} << 62, int64_t{4}}, int64);
  EXPECT_EQ(prod(p, cpu).item<int64_t>(), 0);  // 2^64 wraps to 0
  array neg = array({INT64_MIN, int64_t{-1}}, int64);
  EXPECT_EQ(sum(neg, cpu).item<int64_t>(), INT64_MAX);
}

// MLX_LITE_DEVICE=cpu: every call that names the GPU throws at once, as MLX
// throws where it has no GPU. The check runs in a child process, since the
// setting is read once per process.
TEST(Regressions, GpuRejectedUpFrontWhenUnavailable) {
  if (is_available(Device::gpu)) {
    GTEST_SKIP() << "covered by ctest's MLX_LITE_DEVICE=cpu run of this test "
                    "(MlxCompat.GpuRejectedUnderDeviceCpu, tests/CMakeLists.txt)";
  }
  EXPECT_THROW(set_default_device(Device::gpu), std::invalid_argument);
  EXPECT_THROW(default_stream(Device::gpu), std::invalid_argument);
  EXPECT_THROW(new_stream(Device::gpu), std::invalid_argument);
  EXPECT_THROW(add(array(1), array(2), Device::gpu), std::invalid_argument);
  EXPECT_EQ(default_device(), Device::cpu);
}

// Integer + - * and negation wrap on both devices, as numpy's and MLX's do;
// on the CPU they were signed overflows (undefined behaviour, caught by
// UBSan in random::randint's int64 range).
TEST(Regressions, IntegerArithmeticWrapsOnEveryDevice) {
  constexpr int64_t kMax64 = INT64_MAX, kMin64 = INT64_MIN;
  for (const Device& d : test_util::devices()) {
    const std::string on = d.type == Device::gpu ? "gpu" : "cpu";
    array a = array({kMax64, kMin64}, int64), one = array(int64_t{1}, int64);
    EXPECT_EQ(values_as<int64_t>(add(a, one, d)), (std::vector<int64_t>{kMin64, kMin64 + 1})) << on;
    EXPECT_EQ(values_as<int64_t>(subtract(a, negative(one, d), d)),
              (std::vector<int64_t>{kMin64, kMin64 + 1}))
        << on;
    EXPECT_EQ(values_as<int64_t>(subtract(array(kMax64, int64), array(kMin64, int64), d)),
              (std::vector<int64_t>{-1}))
        << on;
    EXPECT_EQ(values_as<int64_t>(multiply(a, array(int64_t{2}, int64), d)),
              (std::vector<int64_t>{-2, 0}))
        << on;
    EXPECT_EQ(values_as<int64_t>(negative(a, d)), (std::vector<int64_t>{-kMax64, kMin64})) << on;
    EXPECT_EQ(values_as<int64_t>(abs(a, d)), (std::vector<int64_t>{kMax64, kMin64})) << on;
    array i = array({INT_MAX, INT_MIN}, int32);
    EXPECT_EQ(values_as<int32_t>(add(i, array(1), d)), (std::vector<int32_t>{INT_MIN, INT_MIN + 1}))
        << on;
    EXPECT_EQ(values_as<int32_t>(square(i, d)), (std::vector<int32_t>{1, 0})) << on;
    // 65535^2 = 2^32 - 2^17 + 1, which is 1 modulo 2^16 (and past INT_MAX in
    // the int that uint16 promotes to in C++).
    EXPECT_EQ(values_as<uint16_t>(square(array({uint16_t{65535}}, uint16), d)),
              (std::vector<uint16_t>{1}))
        << on;
  }
}

}  // namespace
