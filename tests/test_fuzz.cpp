// Fuzzing the public API: random calls of ops (elementwise, reductions,
// scans, shapes, indexing, matmul, conv, sort, creation, random) and of
// fast::vulkan_kernel, with arguments that are valid or not (axes out of
// range, shapes that do not fit, bad kernel names, grids and sources), on
// inputs of every GPU dtype, of rank 0 to 4, empty, non-contiguous and
// holding inf and NaN. Each call runs on both devices and ends in one of
// four classes:
//   ok:              both computed, and the results agree;
//   clear exception: both threw the same standard exception, whose message
//                    starts with "[op]";
//   disagreement:    anything else (one threw, the results differ, a message
//                    without its op) fails the test;
//   crash, hang:     end the process or meet MLX_LITE_GPU_TIMEOUT (the suite
//                    sets it), so they fail the run too.
// A validation message fails it as well (validation_check.cpp). The seeds
// are fixed, so a failure names a trial that reruns the same way;
// MLX_LITE_FUZZ_TRIALS=<n> runs more trials (the counts are printed).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <typeinfo>
#include <vector>

#include "gpu_test_util.h"

using namespace mlx_lite;
using gpu_test::kCpu;
using gpu_test::kGpu;

namespace {

using Rng = std::mt19937_64;

// ---- Random arguments.

int uniform_int(Rng& rng, int lo, int hi) {  // in [lo, hi]
  return std::uniform_int_distribution<int>(lo, hi)(rng);
}

bool chance(Rng& rng, double p) {
  return std::bernoulli_distribution(p)(rng);
}

template <typename T>
const T& pick(Rng& rng, const std::vector<T>& options) {
  return options[static_cast<size_t>(uniform_int(rng, 0, static_cast<int>(options.size()) - 1))];
}

// Rank 0 to 4, extents 0 to 5 (an empty array one time in ten).
Shape random_shape(Rng& rng) {
  Shape shape(static_cast<size_t>(uniform_int(rng, 0, 4)));
  for (auto& d : shape) d = uniform_int(rng, 1, 5);
  if (!shape.empty() && chance(rng, 0.1)) shape[0] = 0;
  return shape;
}

// An axis of an array of rank `ndim`, out of range one time in eight.
int random_axis(Rng& rng, int ndim) {
  if (chance(rng, 0.125) || ndim == 0) return pick(rng, std::vector<int>{ndim, -ndim - 1, 7});
  return uniform_int(rng, -ndim, ndim - 1);
}

// Values of `dtype` on the CPU: small numbers, sometimes with inf, -inf and
// NaN in float dtypes, sometimes seen through a transposed or sliced view.
array random_input(Rng& rng, const Shape& shape, Dtype dtype) {
  array a = gpu_test::test_values(shape, dtype, rng());
  if (is_floating_point(dtype) && a.size() > 0 && chance(rng, 0.2)) {
    array special = pick(rng, std::vector<array>{array(INFINITY), array(-INFINITY), array(NAN)});
    array mask = less(random::uniform(shape, float32, random::key(rng()), kCpu), array(0.2f), kCpu);
    a = where(mask, astype(special, dtype, kCpu), a, kCpu);
  }
  if (a.ndim() >= 2 && chance(rng, 0.3)) {
    a = transpose(a, kCpu);  // a view; the op sees strides that are not row-major
    a = transpose(contiguous(a, false, kCpu), kCpu);
  }
  eval(a);
  return a;
}

Dtype random_dtype(Rng& rng) {
  return pick(rng, gpu_test::gpu_dtypes);
}

// Float to integer conversions of inf, NaN, negative or out-of-range values
// are undefined in C++ and MLX (an H100 and lavapipe differ on them): `a`
// with its floats made finite and within [0, 100], which every dtype holds.
array convertible(array a) {
  if (is_floating_point(a.dtype())) {
    a = clip(nan_to_num(a, 0.0f, 100.0f, 0.0f, kCpu), array(0.0f), array(100.0f), kCpu);
  }
  eval(a);
  return a;
}

// ---- One call: its description and how to run it on a device.

struct Call {
  std::string what;
  std::function<array(Device)> run;
};

using Maker = std::function<Call(Rng&)>;

const std::vector<std::pair<std::string, std::function<array(const array&, Device)>>> kUnary = {
    {"abs", [](const array& a, Device d) { return abs(a, d); }},
    {"negative", [](const array& a, Device d) { return negative(a, d); }},
    {"floor", [](const array& a, Device d) { return floor(a, d); }},
    {"exp", [](const array& a, Device d) { return exp(a, d); }},
    {"log", [](const array& a, Device d) { return log(a, d); }},
    {"sqrt", [](const array& a, Device d) { return sqrt(a, d); }},
    {"sin", [](const array& a, Device d) { return sin(a, d); }},
    {"tanh", [](const array& a, Device d) { return tanh(a, d); }},
    {"sigmoid", [](const array& a, Device d) { return sigmoid(a, d); }},
    {"square", [](const array& a, Device d) { return square(a, d); }},
    {"sign", [](const array& a, Device d) { return sign(a, d); }},
    {"isfinite", [](const array& a, Device d) { return isfinite(a, d); }},
    {"isnan", [](const array& a, Device d) { return isnan(a, d); }},
    {"logical_not", [](const array& a, Device d) { return logical_not(a, d); }},
    {"bitwise_invert", [](const array& a, Device d) { return bitwise_invert(a, d); }},
};

const std::vector<std::pair<std::string, std::function<array(const array&, const array&, Device)>>>
    kBinary = {
        {"add", [](const array& a, const array& b, Device d) { return add(a, b, d); }},
        {"subtract", [](const array& a, const array& b, Device d) { return subtract(a, b, d); }},
        {"multiply", [](const array& a, const array& b, Device d) { return multiply(a, b, d); }},
        {"divide", [](const array& a, const array& b, Device d) { return divide(a, b, d); }},
        {"maximum", [](const array& a, const array& b, Device d) { return maximum(a, b, d); }},
        {"minimum", [](const array& a, const array& b, Device d) { return minimum(a, b, d); }},
        {"less", [](const array& a, const array& b, Device d) { return less(a, b, d); }},
        {"equal", [](const array& a, const array& b, Device d) { return equal(a, b, d); }},
        {"logaddexp", [](const array& a, const array& b, Device d) { return logaddexp(a, b, d); }},
        {"bitwise_xor",
         [](const array& a, const array& b, Device d) { return bitwise_xor(a, b, d); }},
        {"logical_or",
         [](const array& a, const array& b, Device d) { return logical_or(a, b, d); }},
};

Call unary_call(Rng& rng) {
  const auto& [name, op] = pick(rng, kUnary);
  array a = random_input(rng, random_shape(rng), random_dtype(rng));
  return {name, [a, op](Device d) { return op(a, d); }};
}

// Broadcastable shapes mostly; shapes that do not broadcast one time in six.
Call binary_call(Rng& rng) {
  const auto& [name, op] = pick(rng, kBinary);
  Shape sa = random_shape(rng);
  Shape sb = sa;
  for (auto& d : sb) {
    if (chance(rng, 0.3)) d = 1;
  }
  if (chance(rng, 0.3) && !sb.empty()) sb.erase(sb.begin());
  if (chance(rng, 1.0 / 6)) sb = random_shape(rng);
  if (chance(rng, 0.5)) std::swap(sa, sb);
  array a = random_input(rng, sa, random_dtype(rng));
  array b = random_input(rng, sb, random_dtype(rng));
  return {name, [a, b, op](Device d) { return op(a, b, d); }};
}

Call reduction_call(Rng& rng) {
  using Reduce = std::function<array(const array&, int, bool, Device)>;
  static const std::vector<std::pair<std::string, Reduce>> reductions = {
      {"sum", [](const array& a, int ax, bool k, Device d) { return sum(a, ax, k, d); }},
      {"prod", [](const array& a, int ax, bool k, Device d) { return prod(a, ax, k, d); }},
      {"max", [](const array& a, int ax, bool k, Device d) { return max(a, ax, k, d); }},
      {"min", [](const array& a, int ax, bool k, Device d) { return min(a, ax, k, d); }},
      {"mean", [](const array& a, int ax, bool k, Device d) { return mean(a, ax, k, d); }},
      {"any", [](const array& a, int ax, bool k, Device d) { return any(a, ax, k, d); }},
      {"argmax", [](const array& a, int ax, bool k, Device d) { return argmax(a, ax, k, d); }},
      {"logsumexp",
       [](const array& a, int ax, bool k, Device d) { return logsumexp(a, ax, k, d); }},
      {"softmax", [](const array& a, int ax, bool, Device d) { return softmax(a, ax, false, d); }},
      {"cumsum",
       [](const array& a, int ax, bool r, Device d) { return cumsum(a, ax, r, true, d); }},
      {"cumprod",
       [](const array& a, int ax, bool r, Device d) { return cumprod(a, ax, r, false, d); }},
      {"cummax",
       [](const array& a, int ax, bool r, Device d) { return cummax(a, ax, r, true, d); }},
  };
  const auto& [name, op] = pick(rng, reductions);
  array a = random_input(rng, random_shape(rng), random_dtype(rng));
  const int axis = random_axis(rng, a.ndim());
  const bool flag = chance(rng, 0.5);
  return {name, [a, op, axis, flag](Device d) { return op(a, axis, flag, d); }};
}

// A shape of the same size one time in two, any shape (often wrong) else.
Call reshape_call(Rng& rng) {
  array a = random_input(rng, random_shape(rng), random_dtype(rng));
  Shape shape = chance(rng, 0.5) ? Shape{static_cast<int>(a.size())} : random_shape(rng);
  if (chance(rng, 0.2)) shape.push_back(-1);
  return {"reshape", [a, shape](Device d) { return reshape(a, shape, d); }};
}

Call transpose_call(Rng& rng) {
  array a = random_input(rng, random_shape(rng), random_dtype(rng));
  std::vector<int> axes(a.ndim());
  for (size_t i = 0; i < axes.size(); ++i) axes[i] = static_cast<int>(i);
  std::shuffle(axes.begin(), axes.end(), rng);
  if (chance(rng, 0.2)) axes.push_back(0);  // a repeated or extra axis
  return {"transpose", [a, axes](Device d) { return contiguous(transpose(a, axes, d), false, d); }};
}

Call slice_call(Rng& rng) {
  array a = random_input(rng, random_shape(rng), random_dtype(rng));
  Shape start, stop, steps;
  for (int d : a.shape()) {
    start.push_back(uniform_int(rng, -d - 2, d + 2));
    stop.push_back(uniform_int(rng, -d - 2, d + 2));
    steps.push_back(pick(rng, std::vector<int>{1, 1, 2, -1, -3, 0}));
  }
  if (chance(rng, 0.1)) steps.push_back(1);  // one too many
  return {"slice", [=](Device d) { return contiguous(slice(a, start, stop, steps, d), false, d); }};
}

Call concatenate_call(Rng& rng) {
  Shape shape = random_shape(rng);
  std::vector<array> parts;
  const int n = uniform_int(rng, 1, 3);
  const int axis = random_axis(rng, static_cast<int>(shape.size()));
  for (int i = 0; i < n; ++i) {
    Shape s = shape;
    if (!s.empty())
      s[static_cast<size_t>(uniform_int(rng, 0, static_cast<int>(s.size()) - 1))] =
          uniform_int(rng, 0, 4);  // often the concatenated axis, sometimes another
    parts.push_back(random_input(rng, s, random_dtype(rng)));
  }
  return {"concatenate", [parts, axis](Device d) { return concatenate(parts, axis, d); }};
}

Call matmul_call(Rng& rng) {
  const Dtype t = pick(rng, std::vector<Dtype>{float32, float16, bfloat16, int32});
  const int m = uniform_int(rng, 1, 9), k = uniform_int(rng, 0, 9), n = uniform_int(rng, 1, 9);
  Shape sa{m, k}, sb{chance(rng, 0.15) ? k + 1 : k, n};
  if (chance(rng, 0.3)) sa.insert(sa.begin(), uniform_int(rng, 1, 3));
  array a = random_input(rng, sa, t);
  array b = random_input(rng, sb, t);
  return {"matmul", [a, b](Device d) { return matmul(a, b, d); }};
}

// Sorted values, compared position by position; argsort's indices gather
// the values (ties may come in either order).
Call sort_call(Rng& rng) {
  array a = random_input(rng, random_shape(rng), random_dtype(rng));
  const int axis = random_axis(rng, a.ndim());
  if (chance(rng, 0.4)) return {"sort", [a, axis](Device d) { return sort(a, axis, d); }};
  if (chance(rng, 0.3)) {
    // The k largest, in an order MLX leaves unspecified: compared sorted.
    const int k = uniform_int(rng, -1, 4);
    return {"topk", [a, axis, k](Device d) { return sort(topk(a, k, axis, d), axis, d); }};
  }
  return {"argsort",
          [a, axis](Device d) { return take_along_axis(a, argsort(a, axis, d), axis, d); }};
}

Call take_call(Rng& rng) {
  array a = random_input(rng, random_shape(rng), random_dtype(rng));
  const int axis = random_axis(rng, a.ndim());
  const int extent = axis >= -a.ndim() && axis < a.ndim() ? a.shape(axis) : 1;
  Shape ishape = random_shape(rng);
  // In range, negative ones counting from the end (out-of-range indices are
  // undefined in MLX: nothing to compare). An empty axis takes no index.
  const Dtype index_type = pick(rng, std::vector<Dtype>{int32, int64, uint32, int16});
  const int low = is_unsigned(index_type) ? 0 : -extent;
  array idx = extent == 0
                  ? zeros({0}, index_type, kCpu)
                  : random::randint(low, extent, ishape, index_type, random::key(rng()), kCpu);
  eval(idx);
  return {"take", [a, idx, axis](Device d) { return take(a, idx, axis, d); }};
}

Call astype_call(Rng& rng) {
  array a = convertible(random_input(rng, random_shape(rng), random_dtype(rng)));
  const Dtype to = random_dtype(rng);
  return {"astype", [a, to](Device d) { return astype(a, to, d); }};
}

Call where_call(Rng& rng) {
  Shape shape = random_shape(rng);
  array c = random_input(rng, shape, bool_);
  array x = random_input(rng, shape, random_dtype(rng));
  array y = random_input(rng, chance(rng, 0.8) ? Shape{} : random_shape(rng), random_dtype(rng));
  return {"where", [c, x, y](Device d) { return where(c, x, y, d); }};
}

// arange (a zero step among the steps), eye and full of random sizes.
Call creation_call(Rng& rng) {
  const Dtype t = random_dtype(rng);
  switch (uniform_int(rng, 0, 2)) {
    case 0: {
      const double start = uniform_int(rng, -20, 20) / 2.0, stop = uniform_int(rng, -20, 20) / 2.0;
      const double step = pick(rng, std::vector<double>{1, -1, 0.5, 3, -2.5, 0});
      return {"arange", [=](Device d) { return arange(start, stop, step, t, d); }};
    }
    case 1: {
      const int n = uniform_int(rng, -1, 6), m = uniform_int(rng, 0, 6),
                k = uniform_int(rng, -4, 4);
      return {"eye", [=](Device d) { return eye(n, m, k, t, d); }};
    }
    default: {
      Shape shape = random_shape(rng);
      if (chance(rng, 0.1) && !shape.empty()) shape[0] = -2;
      // The value is converted to t.
      array v = convertible(
          random_input(rng, chance(rng, 0.7) ? Shape{} : random_shape(rng), random_dtype(rng)));
      return {"full", [=](Device d) { return full(shape, v, t, d); }};
    }
  }
}

// The same key gives the same bits on both devices.
Call random_call(Rng& rng) {
  const Shape shape = random_shape(rng);
  const array key = random::key(rng());
  switch (uniform_int(rng, 0, 2)) {
    case 0: {
      const Dtype t = pick(rng, std::vector<Dtype>{float32, float16, bfloat16, int32});
      return {"uniform", [=](Device d) { return random::uniform(shape, t, key, d); }};
    }
    case 1:
      return {"normal", [=](Device d) { return random::normal(shape, float32, key, d); }};
    default: {
      const int lo = uniform_int(rng, -10, 10), hi = uniform_int(rng, -10, 10);
      return {"randint", [=](Device d) { return random::randint(lo, hi, shape, int32, key, d); }};
    }
  }
}

// scatter_add along an axis, indices in range: integer sums are exact in
// any order of the atomics, float ones within the tolerance.
Call scatter_call(Rng& rng) {
  array a = random_input(rng, random_shape(rng), random_dtype(rng));
  const int axis = random_axis(rng, a.ndim());
  const bool in_range = axis >= -a.ndim() && axis < a.ndim();
  const int extent = in_range ? a.shape(axis) : 1;
  Shape ishape = a.shape();
  if (in_range)
    ishape[static_cast<size_t>(axis < 0 ? axis + a.ndim() : axis)] = uniform_int(rng, 0, 4);
  array idx = extent == 0 ? zeros(ishape, int32, kCpu)
                          : random::randint(0, extent, ishape, int32, random::key(rng()), kCpu);
  array upd = random_input(rng, ishape, a.dtype());
  eval(idx);
  return {"scatter_add_axis", [=](Device d) { return scatter_add_axis(a, idx, upd, axis, d); }};
}

// conv1d over (N, L, C) with (O, K, C/groups) weights; sizes that do not fit
// one time in four.
Call conv_call(Rng& rng) {
  const int n = uniform_int(rng, 1, 2), l = uniform_int(rng, 1, 12),
            groups = uniform_int(rng, 1, 2);
  const int c = groups * uniform_int(rng, 1, 3), o = groups * uniform_int(rng, 1, 3);
  const int k = uniform_int(rng, 1, 4), stride = uniform_int(rng, 1, 3),
            pad = uniform_int(rng, 0, 2);
  const int wrong = chance(rng, 0.25) ? 1 : 0;
  array x = random_input(rng, {n, l, c}, float32);
  array w = random_input(rng, {o, k, c / groups + wrong}, float32);
  return {"conv1d", [=](Device d) { return conv1d(x, w, stride, pad, 1, groups, d); }};
}

const std::vector<std::pair<Maker, int>> kOpMakers = {
    {unary_call, 3},     {binary_call, 4}, {reduction_call, 4},   {reshape_call, 1},
    {transpose_call, 1}, {slice_call, 2},  {concatenate_call, 1}, {matmul_call, 2},
    {sort_call, 1},      {take_call, 2},   {astype_call, 1},      {where_call, 1},
    {creation_call, 1},  {random_call, 1}, {scatter_call, 1},     {conv_call, 1},
};

// ---- Running a call on a device, and classifying the pair of outcomes.

struct Outcome {
  std::optional<array> value;  // on the CPU, as float64 (exact for these small values)
  Dtype dtype = float32;
  Shape shape;
  std::string error;
  std::string error_type;
};

Outcome attempt(const Call& call, Device device) {
  Outcome out;
  try {
    array r = call.run(device);
    eval(r);
    out.dtype = r.dtype();
    out.shape = r.shape();
    array v = astype(r, float64, kCpu);
    eval(v);
    out.value = v;
  } catch (const std::exception& e) {
    out.error = e.what();
    out.error_type = typeid(e).name();
  }
  return out;
}

// What is wrong with a result pair that both devices computed, or "".
std::string compare_values(const Outcome& cpu, const Outcome& gpu) {
  if (cpu.shape != gpu.shape || cpu.dtype != gpu.dtype) return "shape or dtype differs";
  const double tol = cpu.dtype == float16 ? 4e-3 : cpu.dtype == bfloat16 ? 3e-2 : 1e-4;
  array c = contiguous(*cpu.value, false, kCpu), g = contiguous(*gpu.value, false, kCpu);
  eval({c, g});
  const double* cp = c.data<double>();
  const double* gp = g.data<double>();
  double scale = 1;
  for (size_t i = 0; i < c.size(); ++i) {
    if (std::isfinite(cp[i])) scale = std::max(scale, std::abs(cp[i]));
  }
  for (size_t i = 0; i < c.size(); ++i) {
    const bool same_special = (std::isnan(cp[i]) && std::isnan(gp[i])) || cp[i] == gp[i];
    if (same_special) continue;
    const bool exact = !is_floating_point(cpu.dtype);
    if (exact || !(std::abs(cp[i] - gp[i]) <= tol * scale)) {
      return "element " + std::to_string(i) + ": cpu " + std::to_string(cp[i]) + ", gpu " +
             std::to_string(gp[i]);
    }
  }
  return "";
}

// A clear exception names its op: "[op] ...".
bool is_clear(const std::string& message) {
  return message.size() > 3 && message[0] == '[' && message.find(']') != std::string::npos;
}

enum class Verdict { ok, clear_exception, disagreement };

Verdict judge(const Outcome& cpu, const Outcome& gpu, std::string& why) {
  const bool cpu_threw = !cpu.value, gpu_threw = !gpu.value;
  if (cpu_threw && gpu_threw) {
    if (cpu.error_type != gpu.error_type) {
      why = "different exceptions: cpu '" + cpu.error + "', gpu '" + gpu.error + "'";
    } else if (!is_clear(cpu.error) || !is_clear(gpu.error)) {
      why = "an exception without its op: cpu '" + cpu.error + "', gpu '" + gpu.error + "'";
    } else {
      return Verdict::clear_exception;
    }
    return Verdict::disagreement;
  }
  if (cpu_threw != gpu_threw) {
    why = cpu_threw ? "only the cpu threw: " + cpu.error : "only the gpu threw: " + gpu.error;
    return Verdict::disagreement;
  }
  why = compare_values(cpu, gpu);
  return why.empty() ? Verdict::ok : Verdict::disagreement;
}

size_t trials(size_t default_count) {
  if (const char* env = std::getenv("MLX_LITE_FUZZ_TRIALS")) return std::strtoull(env, nullptr, 10);
  return default_count;
}

// Verdicts, in all and per op ("ok/clear exception" per op shows that each
// op's valid and invalid arguments were both reached).
struct Tally {
  std::map<Verdict, size_t> counts;
  std::map<std::string, std::map<Verdict, size_t>> by_op;
  void add(const std::string& op, Verdict v) {
    ++counts[v];
    ++by_op[op][v];
  }
  void report(const std::string& what) const {
    auto at = [](const std::map<Verdict, size_t>& m, Verdict v) {
      return m.count(v) ? m.at(v) : size_t{0};
    };
    std::cout << "[fuzz] " << what << ": ok " << at(counts, Verdict::ok) << ", clear exception "
              << at(counts, Verdict::clear_exception) << ", disagreement "
              << at(counts, Verdict::disagreement) << ", crash 0, hang 0\n[fuzz]   ok/exception:";
    for (const auto& [op, m] : by_op) {
      std::cout << " " << op << " " << at(m, Verdict::ok) << "/" << at(m, Verdict::clear_exception);
    }
    std::cout << "\n";
  }
};

class Fuzz : public gpu_test::GpuTest {};

TEST_F(Fuzz, OpsAgreeOnBothDevicesOrThrowClearly) {
  std::vector<const Maker*> deck;  // each maker as often as its weight
  for (const auto& [maker, weight] : kOpMakers) {
    for (int i = 0; i < weight; ++i) deck.push_back(&maker);
  }
  Tally tally;
  const size_t n = trials(1500);
  for (size_t trial = 0; trial < n; ++trial) {
    Rng rng(trial);
    const Call call = (*deck[rng() % deck.size()])(rng);
    std::string why;
    const Verdict v = judge(attempt(call, kCpu), attempt(call, kGpu), why);
    tally.add(call.what, v);
    if (v == Verdict::disagreement)
      ADD_FAILURE() << "trial " << trial << " (" << call.what << "): " << why;
  }
  tally.report("ops");
}

// The judge itself: each kind of disagreement is caught (so a fuzz run with
// none means something).
TEST(FuzzJudge, CatchesEveryKindOfDisagreement) {
  auto verdict = [](std::function<array(Device)> run) {
    Call call{"probe", std::move(run)};
    std::string why;
    return judge(attempt(call, kCpu), attempt(call, kGpu), why);
  };
  auto on = [](Device d, array cpu, array gpu) { return d == kCpu ? cpu : gpu; };
  auto thrower = [](const char* message) {
    return [message](Device) -> array { throw std::invalid_argument(message); };
  };
  EXPECT_EQ(verdict([&](Device d) {
              return on(d, array({1.0f, 2.0f}), array({1.0f, 2.0f}));
            }),
            Verdict::ok);
  EXPECT_EQ(verdict([&](Device d) {
              return on(d, array({1.0f, NAN}), array({1.0f, NAN}));
            }),
            Verdict::ok);
  EXPECT_EQ(verdict([&](Device d) {
              return on(d, array({1.0f, 2.0f}), array({1.0f, 2.01f}));
            }),
            Verdict::disagreement);
  EXPECT_EQ(verdict([&](Device d) { return on(d, array({INFINITY}), array({NAN})); }),
            Verdict::disagreement);
  EXPECT_EQ(verdict([&](Device d) { return on(d, array({7}), array({8})); }),
            Verdict::disagreement);
  EXPECT_EQ(verdict([&](Device d) { return on(d, array({7}), array({7u})); }),
            Verdict::disagreement);  // dtype
  EXPECT_EQ(verdict([&](Device d) {
              return on(d, array({1, 2}), array({2, 1}));
            }),
            Verdict::disagreement);
  EXPECT_EQ(verdict(thrower("[op] bad axis")), Verdict::clear_exception);
  EXPECT_EQ(verdict(thrower("bad axis")), Verdict::disagreement);  // no [op]
  EXPECT_EQ(verdict([&](Device d) -> array {
              if (d == kCpu) throw std::invalid_argument("[op] bad");
              return array(1);
            }),
            Verdict::disagreement);
  EXPECT_EQ(verdict([&](Device d) -> array {
              if (d == kCpu) throw std::invalid_argument("[op] bad");
              throw std::out_of_range("[op] bad");
            }),
            Verdict::disagreement);
}

// ---- fast::vulkan_kernel.

// The arguments of one vulkan_kernel call and its launch.
struct KernelCall {
  std::string name = "fuzz";
  std::vector<std::string> input_names{"inp"}, output_names{"out"};
  std::string source, header;
  bool contiguous = true, atomic = false;
  std::vector<array> inputs;
  std::vector<Shape> output_shapes;
  std::vector<Dtype> output_dtypes{float32};
  std::tuple<int, int, int> grid, threadgroup;
  std::optional<float> init_value;
  Device device = kGpu;
  std::function<array()> reference;  // the expected output, on the CPU (valid calls only)
};

// Valid calls: an affine map over a line, a read through strides, a 2-D
// grid, a sum with one atomic per subgroup. Threadgroups of any size up to
// 1024, grids that are not multiples of them, empty grids.
KernelCall valid_kernel_call(Rng& rng) {
  KernelCall k;
  const Dtype t = pick(rng, std::vector<Dtype>{float32, float16, int32, uint8});
  const int n = uniform_int(rng, 1, 5000);  // a grid of 0 threads is an error
  k.threadgroup = {pick(rng, std::vector<int>{1, 3, 7, 32, 64, 100, 256, 1024}), 1, 1};
  switch (uniform_int(rng, 0, 3)) {
    case 0: {
      array x = random_input(rng, {n}, t);
      k.inputs = {x};
      k.source = "uint i = thread_position_in_grid.x; out[i] = float(inp[i]) * 2.0 + 1.0;";
      k.reference = [x] {
        return add(multiply(astype(x, float32, kCpu), array(2.0f), kCpu), array(1.0f), kCpu);
      };
      break;
    }
    case 1: {
      const int rows = uniform_int(rng, 1, 40);
      array x = transpose(random_input(rng, {rows, std::max(1, n / rows)}, t), kCpu);
      k.contiguous = false;
      k.inputs = {x};
      k.source =
          "uint i = thread_position_in_grid.x;"
          "out[i] = float(inp[elem_to_loc(i, inp_shape, inp_strides, inp_ndim)]);";
      k.reference = [x] { return flatten(astype(x, float32, kCpu), kCpu); };
      break;
    }
    case 2: {
      const int w = uniform_int(rng, 1, 70), h = uniform_int(rng, 1, 70);
      array x = random_input(rng, {h, w}, t);
      k.inputs = {x};
      k.source = "uvec2 p = thread_position_in_grid.xy; uint i = p.y * " + std::to_string(w) +
                 " + p.x; out[i] = float(inp[i]) - 3.0;";
      k.output_shapes = {{h, w}};
      k.grid = {w, h, 1};
      k.threadgroup = {pick(rng, std::vector<int>{1, 8, 16, 32}),
                       pick(rng, std::vector<int>{1, 4, 8}), 1};
      k.reference = [x] { return subtract(astype(x, float32, kCpu), array(3.0f), kCpu); };
      return k;
    }
    default: {
      // Integers: the sum is exact whatever the order of the atomics.
      array x = random_input(rng, {n}, pick(rng, std::vector<Dtype>{int32, uint8}));
      k.inputs = {x};
      k.atomic = true;
      k.init_value = 0.0f;
      k.source =
          "uint i = thread_position_in_grid.x; float v = simd_sum(float(inp[i]));"
          "if (thread_index_in_simdgroup == 0) atomic_fetch_add_explicit(&out[0], v, "
          "memory_order_relaxed);";
      k.output_shapes = {{1}};
      k.grid = {n, 1, 1};
      k.reference = [x] { return reshape(sum(astype(x, float32, kCpu), false, kCpu), {1}, kCpu); };
      return k;
    }
  }
  k.output_shapes = {{static_cast<int>(k.inputs[0].size())}};
  k.grid = {static_cast<int>(k.inputs[0].size()), 1, 1};
  return k;
}

// A valid call with one thing wrong.
KernelCall invalid_kernel_call(Rng& rng) {
  KernelCall k = valid_kernel_call(rng);
  k.reference = nullptr;
  switch (uniform_int(rng, 0, 11)) {
    case 0:
      k.name =
          pick(rng, std::vector<std::string>{"", "1k", "a b", "x\nvoid main() {}", "k\"", "k;"});
      break;
    case 1:
      k.input_names = {pick(rng, std::vector<std::string>{"", "in put", "2x", "out", "a-b"})};
      break;
    case 2:
      k.inputs.push_back(k.inputs[0]);
      break;  // more inputs than names
    case 3:
      k.output_shapes.push_back({1});
      break;
    case 4:
      k.output_dtypes = {};
      break;
    case 5:
      std::get<0>(k.grid) = pick(rng, std::vector<int>{0, -1, -4096});
      if (std::get<0>(k.grid) == 0) k.output_shapes = {{1}};
      break;
    case 6:
      k.threadgroup = {pick(rng, std::vector<int>{0, -2, 1025, 4096}), 1, 1};
      break;
    case 7:
      k.threadgroup = {64, 64, 1};
      break;  // 4096 threads in a group
    case 8:
      k.source =
          pick(rng, std::vector<std::string>{"out[0] = ;", "undefined_function();", "int x = 1"});
      break;
    case 9:
      k.device = kCpu;
      break;
    case 10:
      k.output_shapes = {{-3}};
      break;
    default:
      k.output_dtypes = {float64};
      break;
  }
  return k;
}

Outcome launch(const KernelCall& k) {
  Outcome out;
  try {
    auto kernel = fast::vulkan_kernel(k.name, k.input_names, k.output_names, k.source, k.header,
                                      k.contiguous, k.atomic);
    array r = kernel(k.inputs, k.output_shapes, k.output_dtypes, k.grid, k.threadgroup, {},
                     k.init_value, false, k.device)[0];
    eval(r);
    out.dtype = r.dtype();
    out.shape = r.shape();
    out.value = astype(r, float64, kCpu);
    eval(*out.value);
  } catch (const std::exception& e) {
    out.error = e.what();
    out.error_type = typeid(e).name();
  }
  return out;
}

Verdict judge_kernel(const KernelCall& k, const Outcome& got, std::string& why) {
  if (!k.reference) {
    if (got.value) {
      why = "an invalid call ran";
    } else if (!is_clear(got.error)) {
      why = "an exception without its op: " + got.error;
    } else {
      return Verdict::clear_exception;
    }
    return Verdict::disagreement;
  }
  if (!got.value) {
    why = "a valid call threw: " + got.error;
    return Verdict::disagreement;
  }
  Outcome expected;
  array r = k.reference();
  eval(r);
  expected.dtype = r.dtype();
  expected.shape = r.shape();
  expected.value = astype(r, float64, kCpu);
  why = compare_values(expected, got);
  return why.empty() ? Verdict::ok : Verdict::disagreement;
}

TEST_F(Fuzz, CustomKernelsComputeOrThrowClearly) {
  Tally tally;
  const size_t n = trials(1500) / 5;
  for (size_t trial = 0; trial < n; ++trial) {
    Rng rng(1'000'000 + trial);
    const KernelCall k = chance(rng, 0.5) ? valid_kernel_call(rng) : invalid_kernel_call(rng);
    std::string why;
    const Verdict v = judge_kernel(k, launch(k), why);
    tally.add(k.reference ? "valid" : "invalid", v);
    if (v == Verdict::disagreement) {
      ADD_FAILURE() << "trial " << trial << " (kernel '" << k.name << "'): " << why;
    }
  }
  tally.report("custom kernels");
}

}  // namespace
