// Helpers shared by the test suites: building arrays and strided views of
// known values without any op under test, reading them back through their
// strides with plain loops (independent of the library's own walkers, so the
// tests keep an independent reference), index arithmetic, and comparing with
// a double-precision reference at a tolerance that fits the dtype.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "mlx_lite/mlx_lite.h"

namespace test_util {

using namespace mlx_lite;

// ---- Index arithmetic.

// The number of elements of an array of `shape`.
inline int64_t numel(const Shape& shape) {
  int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

// Row-major multi-index of element `i` of `shape`.
inline std::vector<int64_t> unravel(int64_t i, const Shape& shape) {
  std::vector<int64_t> idx(shape.size());
  for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
    idx[d] = i % shape[d];
    i /= shape[d];
  }
  return idx;
}

// Row-major flat index of multi-index `idx` of `shape`.
inline int64_t ravel(const std::vector<int64_t>& idx, const Shape& shape) {
  int64_t i = 0;
  for (size_t d = 0; d < shape.size(); ++d) i = i * shape[d] + idx[d];
  return i;
}

// ---- Reading arrays back.

// The elements of `a` in row-major order as T (a's own dtype, or an integer
// type of its size), read through a's strides and offset with a plain loop.
template <typename T>
std::vector<T> values_as(array a) {
  a.eval();
  const T* p = a.data<T>();
  std::vector<T> out(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    int64_t loc = 0, rem = static_cast<int64_t>(i);
    for (int d = a.ndim() - 1; d >= 0; --d) {
      loc += (rem % a.shape(d)) * a.strides(d);
      rem /= a.shape(d);
    }
    out[i] = p[loc];
  }
  return out;
}

// The elements of `a` in row-major order as doubles, read through a's own
// strides and offset.
inline std::vector<double> values(const array& a) {
  return dispatch_dtype(a.dtype(), [&]<typename T>() {
    std::vector<double> out;
    out.reserve(a.size());
    for (T v : values_as<T>(a))
      out.push_back(static_cast<double>(static_cast<compute_type_t<T>>(v)));
    return out;
  });
}

// ---- Building arrays.

// A value as the dtype stores it (rounded to float16, truncated to int, ...).
inline double stored(double v, Dtype dt) {
  return dispatch_dtype(dt, [&]<typename T>() {
    T t = static_cast<T>(static_cast<compute_type_t<T>>(v));
    return static_cast<double>(static_cast<compute_type_t<T>>(t));
  });
}

// An integer result as the dtype stores it: modular for the integer types.
inline double wrap(double v, Dtype dt) {
  if (dt == bool_) return v != 0;
  return dispatch_dtype(dt, [&]<typename T>() {
    return static_cast<double>(static_cast<T>(static_cast<int64_t>(v)));
  });
}

// A row-contiguous array of `shape` holding `vals` (row-major) as `dt`.
inline array make_array(const std::vector<double>& vals, Shape shape, Dtype dt) {
  return dispatch_dtype(dt, [&]<typename T>() {
    std::vector<T> typed;
    typed.reserve(vals.size());
    for (double v : vals) typed.push_back(static_cast<T>(static_cast<compute_type_t<T>>(v)));
    return array(typed.begin(), std::move(shape), dt);
  });
}

// A view of `base`'s buffer with the given shape, strides and element offset,
// made directly (no shape op involved).
inline array strided_view(array base, Shape shape, Strides strides, int64_t offset) {
  base.eval();
  array view(std::move(shape), base.dtype(), nullptr, {});
  view.copy_shared_buffer(base, strides, base.offset() + offset);
  return view;
}

// A row-contiguous array of small integers (exact in every dtype), varied so
// that misplaced elements show.
inline array make(const Shape& shape, Dtype dtype, int seed = 0) {
  std::vector<float> v(numel(shape));
  for (int64_t i = 0; i < static_cast<int64_t>(v.size()); ++i)
    v[i] = static_cast<float>((i * 7 + seed) % 101);
  return array(v.begin(), shape, dtype);
}

// ---- Comparing.

// Relative tolerance of an elementwise result of a dtype (0 for exact types).
// The suites run on the default device, the GPU where there is one, and
// Vulkan allows exp, log and pow a few more ULP than libm (exp: 3 + 2|x| ULP),
// hence 4e-6 for float32.
inline double tolerance(Dtype dt) {
  if (dt == float32) return 4e-6;
  if (dt == float16) return 1e-3;
  if (dt == bfloat16) return 1e-2;
  if (dt == float64) return 1e-13;  // libm's double functions, a few ulp apart
  return 0.0;
}

// Relative tolerance of a result accumulated over many terms (reductions,
// matmul) of dtype d (0 for exact types).
inline double accumulation_tolerance(Dtype d) {
  if (d == float32) return 1e-5;
  if (d == float16) return 2e-3;
  if (d == bfloat16) return 1e-2;
  return 0.0;
}

// Whether `got` matches `want` to tolerance `tol` relative to max(|want|, 1);
// NaN matches NaN and infinities must match exactly.
inline bool close(double got, double want, double tol) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want) || std::isinf(got)) return got == want;
  return std::fabs(got - want) <= tol * std::max(std::fabs(want), 1.0);
}

// Checks every element of `out` against `want`, reporting the first few misses.
inline void expect_values(const array& out, const std::vector<double>& want, double tol,
                          const std::string& what) {
  auto got = values(out);
  ASSERT_EQ(got.size(), want.size()) << what;
  int misses = 0;
  for (size_t i = 0; i < want.size() && misses < 5; ++i) {
    if (!close(got[i], want[i], tol)) {
      ADD_FAILURE() << what << ": element " << i << " is " << got[i] << ", expected " << want[i]
                    << " (tolerance " << tol << ")";
      ++misses;
    }
  }
}

// One input layout: the array (maybe a view) and its logical row-major values.
struct Layout {
  std::string name;
  array a;
  std::vector<double> vals;
};

// The same logical (r, c) array of dtype dt, values gen(flat index), in several
// layouts: row-contiguous, transposed, negative steps on both axes (with an
// offset), and broadcast along each axis with stride 0 (whose values repeat).
inline std::vector<Layout> layouts(Dtype dt, int r, int c, const std::function<double(int)>& gen) {
  std::vector<Layout> out;
  const int n = r * c;
  std::vector<double> logical(n);
  for (int i = 0; i < n; ++i) logical[i] = stored(gen(i), dt);

  out.push_back({"contiguous", make_array(logical, {r, c}, dt), logical});

  std::vector<double> t(n);  // buffer of shape (c, r) holding the transpose
  for (int i = 0; i < r; ++i)
    for (int j = 0; j < c; ++j) t[j * r + i] = logical[i * c + j];
  out.push_back(
      {"transposed", strided_view(make_array(t, {c, r}, dt), {r, c}, {1, r}, 0), logical});

  // Buffer of shape (r, 2c): element (i, j) at row r-1-i, column 2c-1-2j.
  std::vector<double> rev(2 * n, logical[0]);
  for (int i = 0; i < r; ++i)
    for (int j = 0; j < c; ++j) rev[(r - 1 - i) * 2 * c + (2 * c - 1 - 2 * j)] = logical[i * c + j];
  out.push_back({"negative_step",
                 strided_view(make_array(rev, {r, 2 * c}, dt), {r, c}, {-2 * c, -2},
                              static_cast<int64_t>(r - 1) * 2 * c + 2 * c - 1),
                 logical});

  std::vector<double> row(logical.begin(), logical.begin() + c), rows(n);
  for (int i = 0; i < n; ++i) rows[i] = row[i % c];
  out.push_back(
      {"broadcast_rows", strided_view(make_array(row, {c}, dt), {r, c}, {0, 1}, 0), rows});

  std::vector<double> col(r), cols(n);
  for (int i = 0; i < r; ++i) col[i] = logical[i * c];
  for (int i = 0; i < n; ++i) cols[i] = col[i / c];
  out.push_back(
      {"broadcast_cols", strided_view(make_array(col, {r}, dt), {r, c}, {1, 0}, 0), cols});
  return out;
}

// The logical shapes every elementwise op is tried on: sizes 1, 7, 21, 1003.
inline const std::vector<std::pair<int, int>>& test_shapes() {
  static const std::vector<std::pair<int, int>> shapes = {{1, 1}, {1, 7}, {7, 3}, {17, 59}};
  return shapes;
}

// "float16 transposed (17,59)", for failure messages.
inline std::string describe(Dtype dt, const std::string& layout, int r, int c) {
  return std::string(dtype_name(dt)) + " " + layout + " (" + std::to_string(r) + "," +
         std::to_string(c) + ")";
}

// The devices a test runs on: the CPU, and the GPU where one can be used.
inline std::vector<Device> devices() {
  std::vector<Device> out{Device::cpu};
  if (is_available(Device::gpu)) out.push_back(Device::gpu);
  return out;
}

// Whether ops in `dt` run on `d`: every dtype on the CPU, every one but
// float64 on the GPU (CPU only, as in MLX). Where they do not, it checks that
// building an op there throws std::invalid_argument, so a loop over
// all_dtypes that skips the pair still tests what the GPU does with it.
inline bool runs_on(Dtype dt, const Device& d) {
  if (!(dt == float64 && d.type == Device::gpu)) return true;
  array x = zeros({2}, dt, Device::cpu);
  EXPECT_THROW(add(x, x, d), std::invalid_argument) << "float64 on the GPU";
  EXPECT_THROW(astype(x, float32, d), std::invalid_argument) << "float64 on the GPU";
  return false;
}

// The dtypes ops on the default device compute in: all_dtypes, less float64
// when the default device is the GPU (runs_on and test_mlx_dtypes check that
// the GPU refuses it).
inline std::vector<Dtype> default_device_dtypes() {
  std::vector<Dtype> out;
  for (Dtype t : all_dtypes) {
    if (t != float64 || default_device().type == Device::cpu) out.push_back(t);
  }
  return out;
}

// "cpu" or "gpu", for messages and test names.
inline std::string device_name(const Device& d) {
  return d.type == Device::cpu ? "cpu" : "gpu";
}

// The message of the std::invalid_argument that f throws ("" if none).
template <typename Exception = std::invalid_argument>
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Exception& e) {
    return e.what();
  }
  return "";
}

}  // namespace test_util

// That `text` (a message) contains `part`, printing the whole text where not.
#define EXPECT_CONTAINS(text, part)                          \
  EXPECT_NE(std::string(text).find(part), std::string::npos) \
      << "expected to find \"" << (part) << "\" in:\n"       \
      << (text)
