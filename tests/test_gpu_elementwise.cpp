// Differential tests: the elementwise GPU kernels (copy, astype, unary,
// binary) against the CPU backend, for every dtype, on contiguous, strided,
// transposed and broadcast inputs and odd sizes.
#include <gtest/gtest.h>

#include <cmath>

#include "gpu_test_util.h"

using namespace mlx_lite;
using namespace gpu_test;

namespace {

// The layouts each kernel must read: dense, a negative-step slice with an
// offset, a transpose, and a broadcast.
std::vector<std::pair<std::string, array>> layouts(const array& base) {
  // base is (6, 10).
  return {{"dense", base},
          {"reversed_strided", slice(base, {5, 9}, {-7, -11}, {-2, -3})},
          {"transposed", transpose(base)},
          {"broadcast", broadcast_to(slice(base, {2, 0}, {3, 10}), {4, 10})}};
}

class GpuElementwise : public gpu_test::GpuTest {};

}  // namespace

TEST_F(GpuElementwise, AsTypeEveryPairEveryLayout) {
  for (auto from : gpu_test::gpu_dtypes) {
    array base = reshape(test_values({60}, from, 1, -300, 300), {6, 10});
    for (auto& [name, in] : layouts(base)) {
      for (auto to : gpu_test::gpu_dtypes) {
        expect_close(
            astype(in, to, kGpu), astype(in, to, kCpu), 0, 0,
            std::string(dtype_name(from)) + "->" + std::string(dtype_name(to)) + " " + name);
      }
    }
  }
}

TEST_F(GpuElementwise, ContiguousCopiesOnTheGpu) {
  array base = reshape(test_values({60}, float32, 2), {6, 10});
  for (auto& [name, in] : layouts(base)) {
    array g = contiguous(in, false, kGpu);
    eval(g);
    EXPECT_TRUE(g.flags().row_contiguous) << name;
    expect_close(g, in, 0, 0, name);
  }
  // A reshape that cannot be a view copies through the GPU.
  expect_close(reshape(transpose(base), {60}, kGpu), reshape(transpose(base), {60}, kCpu), 0, 0,
               "reshape of a transpose");
}

TEST_F(GpuElementwise, UnaryEveryOpEveryDtype) {
  using Fn = array (*)(const array&, StreamOrDevice);
  const std::vector<std::pair<std::string, Fn>> ops = {
      {"abs", abs},     {"floor", floor},     {"ceil", ceil},   {"round", round},
      {"exp", exp},     {"log", log},         {"log1p", log1p}, {"sqrt", sqrt},
      {"rsqrt", rsqrt}, {"square", square},   {"sin", sin},     {"cos", cos},
      {"tanh", tanh},   {"sigmoid", sigmoid}, {"erf", erf},     {"logical_not", logical_not},
  };
  for (auto dtype : gpu_test::gpu_dtypes) {
    array base = reshape(test_values({60}, dtype, 3), {6, 10});
    for (auto& [name, in] : layouts(base)) {
      for (auto& [op_name, op] : ops) {
        array c = op(in, kCpu);
        expect_close(op(in, kGpu), c, rtol_of(c.dtype()), 1e-6,
                     op_name + " " + std::string(dtype_name(dtype)) + " " + name);
      }
      if (dtype != bool_) {
        array c = negative(in, kCpu);
        expect_close(negative(in, kGpu), c, 0, 0, "negative " + name);
      }
    }
  }
  for (auto dtype : {float32, float16, bfloat16}) {
    array x = test_values({999}, dtype, 4, -0.99f, 0.99f);
    expect_close(erfinv(x, kGpu), erfinv(x, kCpu), rtol_of(dtype), 1e-6, "erfinv");
  }
}

TEST_F(GpuElementwise, BinaryEveryOpEveryDtype) {
  using Fn = array (*)(const array&, const array&, StreamOrDevice);
  const std::vector<std::pair<std::string, Fn>> ops = {
      {"add", add},
      {"subtract", subtract},
      {"multiply", multiply},
      {"divide", divide},
      {"maximum", maximum},
      {"minimum", minimum},
      {"power", power},
      {"equal", equal},
      {"not_equal", not_equal},
      {"greater", greater},
      {"greater_equal", greater_equal},
      {"less", less},
      {"less_equal", less_equal},
      {"logical_and", logical_and},
      {"logical_or", logical_or},
  };
  for (auto dtype : gpu_test::gpu_dtypes) {
    array a_base = reshape(test_values({60}, dtype, 5), {6, 10});
    array b_base = reshape(test_values({60}, dtype, 6, 0.5f, 3.0f), {6, 10});
    auto a_layouts = layouts(a_base), b_layouts = layouts(b_base);
    for (size_t i = 0; i < a_layouts.size(); ++i) {
      // Pair each layout of a with a different layout of b.
      const auto& [name, a] = a_layouts[i];
      const array& b = b_layouts[(i + 1) % b_layouts.size()].second;
      array bb =
          a.shape() == b.shape() ? b : broadcast_to(slice(b_base, {0, 0}, {1, 1}), a.shape());
      for (auto& [op_name, op] : ops) {
        if (op_name == "power" && dtype == int64) continue;  // overflow differs by design: skip
        array c = op(a, bb, kCpu);
        expect_close(op(a, bb, kGpu), c, is_floating_point(c.dtype()) ? rtol_of(c.dtype()) : 0, 0,
                     op_name + " " + std::string(dtype_name(dtype)) + " " + name);
      }
      if (!is_floating_point(dtype)) {
        expect_close(bitwise_and(a, bb, kGpu), bitwise_and(a, bb, kCpu), 0, 0, "bitwise_and");
        expect_close(bitwise_or(a, bb, kGpu), bitwise_or(a, bb, kCpu), 0, 0, "bitwise_or");
      }
    }
  }
}

TEST_F(GpuElementwise, OddSizesAndAMillionElements) {
  for (int n : {1, 7, 1000003}) {
    array a = test_values({n}, float32, 7);
    array b = test_values({n}, float32, 8);
    expect_close(add(a, b, kGpu), add(a, b, kCpu), 0, 0, "add n=" + std::to_string(n));
    expect_close(exp(a, kGpu), exp(a, kCpu), 2e-6, 0, "exp n=" + std::to_string(n));
  }
}

// Shapes and strides of many dims: operands of rank 6 that no dims merge in
// take 6 + 2 x 6 words of the shape block (shaders/shape_block.glsl), once
// past what the push constants held before the shape block existed, on both
// paths (a small array, one element per thread; a large one, runs of 4).
TEST_F(GpuElementwise, MetadataPastThePushConstants) {
  for (int inner : {3, 2048}) {
    const Shape shape = {2, 3, 2, 3, 2, inner};
    array a =
        transpose(reshape(test_values({6 * 6 * 2 * inner}, float32, 40), {inner, 2, 3, 2, 3, 2}),
                  {5, 4, 3, 2, 1, 0});
    array b = slice(test_values({4, 3, 4, 3, 4, inner}, float32, 41), {0, 0, 0, 0, 0, 0},
                    {4, 3, 4, 3, 4, inner}, {2, 1, 2, 1, 2, 1});
    ASSERT_EQ(a.shape(), shape);
    ASSERT_EQ(b.shape(), shape);
    expect_close(subtract(a, b, kGpu), subtract(a, b, kCpu), 0, 0,
                 "rank-6 strided operands, innermost " + std::to_string(inner));
  }
}

TEST_F(GpuElementwise, GridPastTheWorkgroupCountLimitIsFolded) {
  // 65535 workgroups of 256 threads cover 16,776,960 elements; one more
  // element needs the second grid dimension.
  const int n = 65535 * 256 + 1;
  array a = astype(arange(n, kCpu), float32, kCpu);
  array b = add(a, array(1.0f), kGpu);
  eval(b);
  EXPECT_EQ(b.data<float>()[n - 1], static_cast<float>(n));
  EXPECT_EQ(b.data<float>()[0], 1.0f);
}

TEST_F(GpuElementwise, ManyOpsInOneEvalAreBatched) {
  array x = test_values({1000}, float32, 9);
  array y = x;
  for (int i = 0; i < 1000; ++i) y = add(y, array(1.0f), kGpu);
  array cpu = add(x, array(1000.0f), kCpu);
  expect_close(y, cpu, 1e-6, 1e-3, "1000 chained adds");
}

// Arrays of 2^16 elements or more take runs of 4 innermost elements per thread
// on the strided path (shaders/elementwise_main.glsl) where the innermost dim
// has at least 4 elements; the cases below hit it (long, odd and non-unit-stride
// innermost dims, broadcast operands, an output donated by an input) and miss
// it (an innermost dim of 3, a small array).
TEST_F(GpuElementwise, RunsAlongTheInnermostDim) {
  auto check_multiply = [](const array& a, const array& b, const std::string& what) {
    expect_close(multiply(a, b, kGpu), multiply(a, b, kCpu), rtol_of(float32), 0, what);
  };
  array rows = test_values({1024, 64}, float32, 10);
  check_multiply(rows, test_values({1024, 1}, float32, 11), "(1024, 64) * (1024, 1)");
  array odd = test_values({4099, 17}, float32, 12);
  check_multiply(odd, test_values({17}, float32, 13), "(4099, 17) * (17,)");
  check_multiply(odd, test_values({4099, 1}, float32, 14), "(4099, 17) * (4099, 1)");
  array wide = test_values({300, 257}, float32, 15);
  check_multiply(transpose(wide), test_values({257, 1}, float32, 16), "transposed * column");
  check_multiply(slice(wide, {299, 256}, {-301, -258}, {-1, -2}), array(3.0f),
                 "reversed slice * scalar");
  check_multiply(test_values({30000, 3}, float32, 17), test_values({30000, 1}, float32, 18),
                 "(30000, 3) * (30000, 1): innermost dim too short");
  check_multiply(test_values({64, 64}, float32, 19), test_values({64, 1}, float32, 20),
                 "(64, 64) * (64, 1): too small");
  // Other dtypes and the other elementwise shaders.
  for (auto dtype : {float16, int64, uint8}) {
    array a = test_values({512, 130}, dtype, 21);
    array b = test_values({512, 1}, dtype, 22);
    expect_close(add(a, b, kGpu), add(a, b, kCpu), is_floating_point(dtype) ? rtol_of(dtype) : 0, 0,
                 std::string("add ") + std::string(dtype_name(dtype)));
    expect_close(astype(transpose(a), float32, kGpu), astype(transpose(a), float32, kCpu), 0, 0,
                 std::string("astype of a transpose ") + std::string(dtype_name(dtype)));
  }
  expect_close(exp(transpose(wide), kGpu), exp(transpose(wide), kCpu), rtol_of(float32), 0,
               "exp of a transpose");
  expect_close(contiguous(broadcast_to(test_values({1, 70}, float32, 23), {1000, 70}), false, kGpu),
               broadcast_to(test_values({1, 70}, float32, 23), {1000, 70}), 0, 0,
               "contiguous broadcast");
  array c = test_values({700, 1}, bool_, 24);
  array y = test_values({700, 150}, float32, 25);
  expect_close(where(c, transpose(test_values({150, 700}, float32, 26)), y, kGpu),
               where(c, transpose(test_values({150, 700}, float32, 26)), y, kCpu), 0, 0,
               "where with a broadcast condition");
  // Concatenate writes each part into a strided view of its output.
  array left = test_values({700, 100}, float32, 27), right = test_values({700, 37}, float32, 28);
  expect_close(concatenate({left, right}, 1, kGpu), concatenate({left, right}, 1, kCpu), 0, 0,
               "concatenate along the innermost dim");
  // exp's output is a temporary only the multiply reads: the multiply writes
  // in place over it.
  expect_close(multiply(exp(rows, kGpu), test_values({1024, 1}, float32, 29), kGpu),
               multiply(exp(rows, kCpu), test_values({1024, 1}, float32, 29), kCpu),
               rtol_of(float32) * 2, 0, "multiply donated its input");
}

// Dense operands of 4-byte elements from 2^16 elements on take runs of 4 as
// 16-byte vectors (copy, unary, binary); a size or an offset that is no
// multiple of 4, or a 2-byte dtype, takes the element path. Both against the
// CPU, with an input donated to the output (the in-place write) among them.
TEST_F(GpuElementwise, RunsOfFourAsVectors) {
  for (int n : {1 << 16, (1 << 16) + 4, (1 << 16) + 2}) {
    const std::string size = " n=" + std::to_string(n);
    for (Dtype t : {float32, int32, uint32, float16}) {
      const std::string what = std::string(dtype_name(t)) + size;
      array a = test_values({n + 8}, t, 30);
      array b = test_values({n + 8}, t, 31, 0.5f, 3.0f);
      for (int offset : {0, 4, 1}) {
        const std::string at = what + " offset " + std::to_string(offset);
        array sa = slice(a, {offset}, {offset + n}), sb = slice(b, {8 - offset}, {8 - offset + n});
        expect_close(copy(sa, kGpu), copy(sa, kCpu), 0, 0, "copy " + at);
        expect_close(add(sa, sb, kGpu), add(sa, sb, kCpu), 0, 0, "add " + at);
        expect_close(multiply(sa, sb, kGpu), multiply(sa, sb, kCpu), 0, 0, "multiply " + at);
        expect_close(negative(sa, kGpu), negative(sa, kCpu), 0, 0, "negative " + at);
        expect_close(abs(sa, kGpu), abs(sa, kCpu), 0, 0, "abs " + at);
      }
      array f = astype(a, float32, kCpu);
      expect_close(astype(f, t, kGpu), astype(f, t, kCpu), 0, 0, "astype float32 to " + what);
    }
    array x = test_values({n}, float32, 32);
    expect_close(exp(x, kGpu), exp(x, kCpu), 2e-6, 0, "exp" + size);
    expect_close(multiply(exp(x, kGpu), x, kGpu), multiply(exp(x, kCpu), x, kCpu), 4e-6, 0,
                 "multiply over a donated input" + size);
  }
}

// A broadcast scalar (x * 2, a fill) is a splat: the dense path reads its one
// element for every position, as runs of 4 where the other operands allow
// (even from an offset that is no multiple of 4), element by element
// otherwise (a size that is no multiple of 4, 2- and 8-byte dtypes, a small
// array). Every result against the CPU.
TEST_F(GpuElementwise, BroadcastScalarsAreSplats) {
  for (int n : {1 << 16, (1 << 16) + 2, 37}) {
    for (Dtype t : {float32, int32, float16, int64, bool_}) {
      const std::string what = std::string(dtype_name(t)) + " n=" + std::to_string(n);
      array base = test_values({n + 8}, t, 33, 0.5f, 3.0f);
      array x = slice(base, {4}, {4 + n});
      for (int at : {0, 3}) {  // the scalar's offset in its buffer
        const std::string place = what + " scalar at " + std::to_string(at);
        array s = broadcast_to(slice(base, {at}, {at + 1}), {n});
        expect_close(copy(s, kGpu), copy(s, kCpu), 0, 0, "copy of " + place);
        if (t == bool_) continue;
        expect_close(multiply(x, s, kGpu), multiply(x, s, kCpu), 0, 0, "x * s, " + place);
        expect_close(subtract(s, x, kGpu), subtract(s, x, kCpu), 0, 0, "s - x, " + place);
        expect_close(negative(s, kGpu), negative(s, kCpu), 0, 0, "negative of " + place);
        expect_close(astype(s, float16, kGpu), astype(s, float16, kCpu), 0, 0,
                     "astype of " + place);
        array c = greater(x, array(1.5f, t), kCpu);
        expect_close(where(c, s, x, kGpu), where(c, s, x, kCpu), 0, 0, "where(c, s, x), " + place);
      }
      expect_close(full({n}, array(2.5f), t, kGpu), full({n}, array(2.5f), t, kCpu), 0, 0,
                   "full " + what);
      expect_close(zeros({2, n}, t, kGpu), zeros({2, n}, t, kCpu), 0, 0, "zeros " + what);
    }
  }
  // A splat of a 2-d broadcast (stride 0 in both dims) beside a dense operand.
  array m = test_values({300, 256}, float32, 34);
  array s = broadcast_to(reshape(array(3.0f), {1, 1}), {300, 256});
  expect_close(add(m, s, kGpu), add(m, s, kCpu), 0, 0, "m + 2-d splat");
}

// A host scalar of out's dtype broadcast to out fills its buffer with
// vkCmdFillBuffer, the element's bits repeated through 32-bit words (sizes
// that end inside a word included); a scalar GPU work wrote, an int64 whose
// halves differ and a scalar of another dtype take the copy kernel. All
// against the CPU.
TEST_F(GpuElementwise, HostScalarsFillTheBuffer) {
  for (Dtype t : {bool_, uint8, int8, uint16, int16, float16, bfloat16, uint32, int32, float32,
                  uint64, int64}) {
    for (int n : {1, 2, 3, 5, 37, 4099}) {
      const std::string what = std::string(dtype_name(t)) + " n=" + std::to_string(n);
      for (int v : {0, 1, -3, 77}) {
        if (v < 0 && (t == bool_ || t == uint8 || t == uint16 || t == uint32 || t == uint64)) {
          continue;
        }
        const array s = broadcast_to(array(v, t), {n});
        expect_close(copy(s, kGpu), copy(s, kCpu), 0, 0, what + " of " + std::to_string(v));
      }
      expect_close(zeros({n, 3}, t, kGpu), zeros({n, 3}, t, kCpu), 0, 0, "zeros " + what);
      expect_close(ones({3, n}, t, kGpu), ones({3, n}, t, kCpu), 0, 0, "ones " + what);
    }
  }
  // A scalar computed on the GPU in the same eval, and one of another dtype.
  array x = test_values({1000}, float32, 43);
  const array total = broadcast_to(sum(x, kGpu), {513});
  expect_close(copy(total, kGpu), copy(broadcast_to(sum(x, kCpu), {513}), kCpu), 1e-5f, 1e-5f,
               "a GPU-computed scalar");
  const array other = broadcast_to(array(2.5f), {513});
  expect_close(astype(other, float16, kGpu), astype(other, float16, kCpu), 0, 0,
               "a float32 scalar into float16");
}

// On the strided path too, 4-byte operands take runs of 4 as 16-byte vectors
// where the innermost merged dim is a multiple of 4 long and each input is
// unit-strided along it with aligned runs (offset and other strides
// multiples of 4) or broadcast along it (read once a run). Those cases, and
// the near misses that go element by element (an offset, a stride or an
// innermost dim that is no multiple of 4, 2-byte elements), against the CPU.
TEST_F(GpuElementwise, StridedRunsOfFour) {
  auto check = [](const array& gpu, const array& cpu, const std::string& what) {
    expect_close(gpu, cpu, 0, 0, what);
  };
  for (Dtype t : {float32, int32, uint32, float16}) {
    const std::string type = std::string(dtype_name(t)) + ": ";
    array m = test_values({2048, 64}, t, 40, 0.5f, 3.0f);
    array column = test_values({2048, 1}, t, 41, 0.5f, 3.0f);
    array row = test_values({64}, t, 42, 0.5f, 3.0f);
    check(multiply(m, column, kGpu), multiply(m, column, kCpu), type + "(2048, 64) * (2048, 1)");
    check(multiply(column, m, kGpu), multiply(column, m, kCpu), type + "(2048, 1) * (2048, 64)");
    check(add(m, row, kGpu), add(m, row, kCpu), type + "(2048, 64) + (64,)");
    array cube = test_values({8, 128, 64}, t, 43, 0.5f, 3.0f);
    array plane = test_values({8, 1, 64}, t, 44, 0.5f, 3.0f);
    check(subtract(cube, plane, kGpu), subtract(cube, plane, kCpu),
          type + "(8, 128, 64) - (8, 1, 64)");
    // Views of a (2048, 132) array: aligned columns 4 to 68, then misaligned
    // ones (offset 1), then a row stride of 66 (a (2048, 66) array's columns).
    array wide = test_values({2048, 132}, t, 45, 0.5f, 3.0f);
    array aligned = slice(wide, {0, 4}, {2048, 68});
    check(multiply(aligned, column, kGpu), multiply(aligned, column, kCpu),
          type + "aligned view * column");
    check(copy(aligned, kGpu), copy(aligned, kCpu), type + "copy of an aligned view");
    check(negative(aligned, kGpu), negative(aligned, kCpu), type + "negative of an aligned view");
    array misaligned = slice(wide, {0, 1}, {2048, 65});
    check(multiply(misaligned, column, kGpu), multiply(misaligned, column, kCpu),
          type + "misaligned view * column");
    array odd_rows = slice(test_values({2048, 66}, t, 46, 0.5f, 3.0f), {0, 0}, {2048, 64});
    check(add(odd_rows, row, kGpu), add(odd_rows, row, kCpu), type + "row stride 66 + row");
    // Rows of 62 (runs would straddle them), with the other strides aligned.
    array short_rows = slice(wide, {0, 0}, {2048, 62});
    check(multiply(short_rows, column, kGpu), multiply(short_rows, column, kCpu),
          type + "(2048, 62) view * (2048, 1)");
    // A broadcast copied dense: the copy's input is read once a run.
    array spread = broadcast_to(column, {2048, 64});
    check(copy(spread, kGpu), copy(spread, kCpu), type + "copy of (2048, 1) broadcast");
  }
  // Conversions on the strided path, by runs (4-byte to 4-byte) and not.
  array f = slice(test_values({2048, 132}, float32, 48, 0.5f, 3.0f), {0, 4}, {2048, 68});
  check(astype(f, int32, kGpu), astype(f, int32, kCpu), "astype of an aligned view to int32");
  check(astype(f, float16, kGpu), astype(f, float16, kCpu), "astype of an aligned view to float16");
  expect_close(exp(f, kGpu), exp(f, kCpu), 2e-6, 0, "exp of an aligned view");
}
