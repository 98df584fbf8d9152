#include "backend/vulkan/kernel_simd.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <set>

namespace mlx_lite::vulkan {

namespace {

// A scalar type the helpers take, and how its value travels through the
// emulation's uint slots.
struct Scalar {
  std::string_view name;
  std::string_view to_bits;    // fmt pattern of an expression of the type
  std::string_view from_bits;  // fmt pattern of a uint expression
  bool numeric;                // sums, products, max, min
  bool integer;                // and, or, xor
};

constexpr Scalar kFloat{"float", "floatBitsToUint({})", "uintBitsToFloat({})", true, false};
constexpr Scalar kInt{"int", "uint({})", "int({})", true, true};
constexpr Scalar kUint{"uint", "{}", "{}", true, true};
constexpr Scalar kBool{"bool", "uint({})", "({} != 0u)", false, false};
constexpr std::array<Scalar, 4> kScalars = {kFloat, kInt, kUint, kBool};

enum class Kind { reduce, scan, shuffle };

// A simd_ helper: its kind, the subgroup operation behind it, and for
// reductions and scans how two values combine (fmt pattern) and the
// identity (scans).
struct Op {
  std::string_view name;  // after "simd_"
  Kind kind;
  std::string_view subgroup_op;
  std::string_view combine = "";
  std::string_view identity = "";
  bool integer_only = false;
  bool bool_only = false;
};

const std::vector<Op>& ops() {
  static const std::vector<Op> all = {
      {"sum", Kind::reduce, "subgroupAdd", "{} + {}"},
      {"product", Kind::reduce, "subgroupMul", "{} * {}"},
      {"max", Kind::reduce, "subgroupMax", "max({}, {})"},
      {"min", Kind::reduce, "subgroupMin", "min({}, {})"},
      {"and", Kind::reduce, "subgroupAnd", "{} & {}", "", true},
      {"or", Kind::reduce, "subgroupOr", "{} | {}", "", true},
      {"xor", Kind::reduce, "subgroupXor", "{} ^ {}", "", true},
      {"all", Kind::reduce, "subgroupAll", "{} && {}", "", false, true},
      {"any", Kind::reduce, "subgroupAny", "{} || {}", "", false, true},
      {"prefix_exclusive_sum", Kind::scan, "subgroupExclusiveAdd", "{} + {}", "0"},
      {"prefix_inclusive_sum", Kind::scan, "subgroupInclusiveAdd", "{} + {}", "0"},
      {"prefix_exclusive_product", Kind::scan, "subgroupExclusiveMul", "{} * {}", "1"},
      {"prefix_inclusive_product", Kind::scan, "subgroupInclusiveMul", "{} * {}", "1"},
      {"shuffle", Kind::shuffle, "subgroupShuffle"},
      {"broadcast", Kind::shuffle, "subgroupShuffle"},
      {"broadcast_first", Kind::shuffle, "subgroupBroadcastFirst"},
      {"shuffle_down", Kind::shuffle, "subgroupShuffleDown"},
      {"shuffle_up", Kind::shuffle, "subgroupShuffleUp"},
      {"shuffle_xor", Kind::shuffle, "subgroupShuffleXor"},
  };
  return all;
}

bool takes(const Op& op, const Scalar& s) {
  if (op.bool_only) return s.name == "bool";
  if (op.integer_only) return s.integer;
  return op.kind == Kind::shuffle || s.numeric;
}

// The shuffles' second argument (none for broadcast_first).
std::string_view extra_parameter(const Op& op) {
  if (op.kind != Kind::shuffle || op.name == "broadcast_first") return "";
  if (op.name == "shuffle" || op.name == "broadcast") return ", uint mlx_lane";
  return op.name == "shuffle_xor" ? ", uint mlx_mask" : ", uint mlx_delta";
}
std::string_view extra_argument(const Op& op) {
  if (op.kind != Kind::shuffle || op.name == "broadcast_first") return "";
  if (op.name == "shuffle" || op.name == "broadcast") return ", mlx_lane";
  return op.name == "shuffle_xor" ? ", mlx_mask" : ", mlx_delta";
}

// The source lane a shuffle reads and whether it exists (out-of-range
// shuffles return the caller's own value, on every device).
std::string shuffle_source(const Op& op) {
  if (op.name == "broadcast_first") return "0u, true";
  if (op.name == "shuffle" || op.name == "broadcast") return "mlx_lane, true";
  if (op.name == "shuffle_down") return "mlx_simd32_lane() + mlx_delta, mlx_delta < 32u";
  if (op.name == "shuffle_up")
    return "mlx_simd32_lane() - mlx_delta, mlx_simd32_lane() >= mlx_delta";
  return "mlx_simd32_lane() ^ mlx_mask, mlx_mask < 32u";
}

std::string bits(const Scalar& s, std::string_view e) {
  return fmt::format(fmt::runtime(s.to_bits), e);
}
std::string value(const Scalar& s, std::string_view e) {
  return fmt::format(fmt::runtime(s.from_bits), e);
}
std::string combine(const Op& op, std::string_view a, std::string_view b) {
  return fmt::format(fmt::runtime(op.combine), a, b);
}

// Where simdgroups are the device's subgroups of 32.
constexpr std::string_view kNativeBase = R"(
uint mlx_simd32_lane() { return gl_SubgroupInvocationID; }
uint mlx_simd32_group() { return gl_SubgroupID; }
// Threads in the caller's simdgroup (the last one of a threadgroup of other
// than 32 n threads has fewer).
uint mlx_simd32_lanes() { return min(32u, mlx_threads - gl_SubgroupID * 32u); }
// Whether lane `l` of the caller's simdgroup runs (threads past the grid do not).
bool mlx_simd32_alive(uint mlx_l) { return subgroupBallotBitExtract(subgroupBallot(true), mlx_l); }
void mlx_simdgroup_barrier() { subgroupMemoryBarrier(); subgroupBarrier(); }
)";

// Where they are emulated: each call publishes the caller's value in its slot
// (double-buffered: every call has one barrier, so a slot written two calls
// later cannot be read by a thread still in this one) and reads its
// simdgroup's slots.
constexpr std::string_view kEmulatedBase = R"(
// Set by main(): the threadgroup's first thread in the grid, and whether the
// whole threadgroup lies inside the grid.
uvec3 mlx_group_origin;
bool mlx_whole_group;
uint mlx_simd32_lane() { return gl_LocalInvocationIndex & 31u; }
uint mlx_simd32_group() { return gl_LocalInvocationIndex >> 5u; }
uint mlx_simd32_lanes() { return min(32u, mlx_threads - (gl_LocalInvocationIndex & ~31u)); }
// Whether thread `t` of the threadgroup runs: threads past the grid return
// before the source (their slots hold stale values), and lavapipe's barriers
// do not wait for threads that returned.
bool mlx_simd32_alive(uint mlx_t) {
  if (mlx_whole_group) return true;
  uvec3 mlx_l = uvec3(mlx_t % gl_WorkGroupSize.x, mlx_t / gl_WorkGroupSize.x % gl_WorkGroupSize.y,
                      mlx_t / (gl_WorkGroupSize.x * gl_WorkGroupSize.y));
  return all(lessThan(mlx_group_origin + mlx_l, uvec3(mlx_grid[0], mlx_grid[1], mlx_grid[2])));
}
// Two slots per thread, sized by the threadgroup (a specialization constant).
shared uint mlx_simd32_slots[2u * mlx_threads];
uint mlx_simd32_phase = 0u;
// Publishes the caller's bits; returns the index of its simdgroup's lane 0.
uint mlx_simd32_publish(uint mlx_bits) {
  uint mlx_at = mlx_simd32_phase * mlx_threads;
  mlx_simd32_phase ^= 1u;
  mlx_simd32_slots[mlx_at + gl_LocalInvocationIndex] = mlx_bits;
  barrier();
  return mlx_at + (gl_LocalInvocationIndex & ~31u);
}
void mlx_simdgroup_barrier() { memoryBarrierShared(); barrier(); }
)";

std::string native_function(const Op& op, const Scalar& s) {
  const auto T = s.name;
  if (op.kind != Kind::shuffle) {
    return fmt::format("{0} mlx_simd32_{1}({0} mlx_x) {{ return {2}(mlx_x); }}\n", T, op.name,
                       op.subgroup_op);
  }
  return fmt::format(
      "{0} mlx_simd32_{1}({0} mlx_x{2}) {{ return mlx_simd32_exchange(mlx_x, {3}); }}\n", T,
      op.name, extra_parameter(op), shuffle_source(op));
}

std::string emulated_reduce(const Op& op, const Scalar& s) {
  auto slot = [&](int k) { return value(s, fmt::format("mlx_simd32_slots[mlx_at + {}u]", k)); };
  // Lanes combine in order, starting from the caller's own value where lane 0
  // does not run. Straight-line, not a loop: lavapipe caps an invocation's
  // loop iterations.
  std::string body = fmt::format(
      "{0} mlx_simd32_{1}({0} mlx_x) {{\n"
      "  uint mlx_at = mlx_simd32_publish({2});\n"
      "  uint mlx_n = mlx_simd32_lanes();\n"
      "  uint mlx_first = gl_LocalInvocationIndex & ~31u;\n"
      "  {0} mlx_r = mlx_simd32_alive(mlx_first) ? {3} : mlx_x;\n",
      s.name, op.name, bits(s, "mlx_x"), slot(0));
  for (int k = 1; k < 32; ++k) {
    body += fmt::format("  if ({0}u < mlx_n && mlx_simd32_alive(mlx_first + {0}u)) mlx_r = {1};\n",
                        k, combine(op, "mlx_r", slot(k)));
  }
  return body + "  return mlx_r;\n}\n";
}

std::string emulated_scan(const Op& op, const Scalar& s) {
  if (op.name.starts_with("prefix_inclusive")) {
    const std::string exclusive = fmt::format("mlx_simd32_prefix_exclusive_{}(mlx_x)",
                                              op.name.substr(op.name.rfind('_') + 1));
    return fmt::format("{0} mlx_simd32_{1}({0} mlx_x) {{ return {2}; }}\n", s.name, op.name,
                       combine(op, exclusive, "mlx_x"));
  }
  std::string body = fmt::format(
      "{0} mlx_simd32_{1}({0} mlx_x) {{\n"
      "  uint mlx_at = mlx_simd32_publish({2});\n"
      "  uint mlx_lane = mlx_simd32_lane();\n"
      "  uint mlx_first = gl_LocalInvocationIndex & ~31u;\n"
      "  {0} mlx_r = {0}({3});\n",
      s.name, op.name, bits(s, "mlx_x"), op.identity);
  for (int k = 0; k < 31; ++k) {
    body += fmt::format(
        "  if ({0}u < mlx_lane && mlx_simd32_alive(mlx_first + {0}u)) mlx_r = {1};\n", k,
        combine(op, "mlx_r", value(s, fmt::format("mlx_simd32_slots[mlx_at + {}u]", k))));
  }
  return body + "  return mlx_r;\n}\n";
}

std::string exchange(const Scalar& s, bool emulated) {
  if (!emulated) {
    return fmt::format(
        "{0} mlx_simd32_exchange({0} mlx_x, uint mlx_lane, bool mlx_valid) {{\n"
        "  {0} mlx_v = subgroupShuffle(mlx_x, mlx_lane & 31u);\n"
        "  // Every lane takes part in the ballot: under && only the valid ones would.\n"
        "  bool mlx_alive = mlx_simd32_alive(mlx_lane & 31u);\n"
        "  return mlx_valid && mlx_lane < 32u && mlx_alive ? mlx_v : mlx_x;\n}}\n",
        s.name);
  }
  return fmt::format(
      "{0} mlx_simd32_exchange({0} mlx_x, uint mlx_lane, bool mlx_valid) {{\n"
      "  uint mlx_at = mlx_simd32_publish({1});\n"
      "  return mlx_valid && mlx_lane < mlx_simd32_lanes() &&\n"
      "         mlx_simd32_alive((gl_LocalInvocationIndex & ~31u) + mlx_lane) ? {2} : mlx_x;\n}}\n",
      s.name, bits(s, "mlx_x"), value(s, "mlx_simd32_slots[mlx_at + mlx_lane]"));
}

std::string scalar_function(const Op& op, const Scalar& s, bool emulated) {
  if (!emulated || op.kind == Kind::shuffle) return native_function(op, s);
  return op.kind == Kind::reduce ? emulated_reduce(op, s) : emulated_scan(op, s);
}

// vecN, ivecN, uvecN and f16vecN, float16_t overloads, one component (or
// one conversion to float) at a time.
std::string wrappers(const Op& op, bool float16) {
  std::string s;
  struct Vector {
    std::string_view prefix, scalar;
  };
  std::vector<Vector> vectors = {{"vec", "float"}, {"ivec", "int"}, {"uvec", "uint"}};
  for (const auto& v : vectors) {
    const Scalar& base = v.scalar == "float" ? kFloat : v.scalar == "int" ? kInt : kUint;
    if (!takes(op, base)) continue;
    for (int n = 2; n <= 4; ++n) {
      std::string parts;
      for (int c = 0; c < n; ++c) {
        parts += fmt::format("{}mlx_simd32_{}(mlx_x.{}{})", c ? ", " : "", op.name, "xyzw"[c],
                             extra_argument(op));
      }
      s += fmt::format("{0}{1} mlx_simd32_{2}({0}{1} mlx_x{3}) {{ return {0}{1}({4}); }}\n",
                       v.prefix, n, op.name, extra_parameter(op), parts);
    }
  }
  if (float16 && takes(op, kFloat)) {
    s += fmt::format(
        "float16_t mlx_simd32_{0}(float16_t mlx_x{1}) {{ return "
        "float16_t(mlx_simd32_{0}(float(mlx_x){2})); }}\n",
        op.name, extra_parameter(op), extra_argument(op));
    for (int n = 2; n <= 4; ++n) {
      s += fmt::format(
          "f16vec{0} mlx_simd32_{1}(f16vec{0} mlx_x{2}) {{ return "
          "f16vec{0}(mlx_simd32_{1}(vec{0}(mlx_x){3})); }}\n",
          n, op.name, extra_parameter(op), extra_argument(op));
    }
  }
  return s;
}

// The threadgroup helpers: a simd reduction, the simdgroups' results
// exchanged through shared memory (one barrier), and a simd reduction of
// those, which every simdgroup computes alike.
constexpr std::string_view kThreadgroupBase = R"(
shared uint mlx_tg_slots[64];
uint mlx_tg_phase = 0u;
uint mlx_simdgroups() { return (mlx_threads + 31u) / 32u; }
// Lane 0 of each simdgroup publishes its bits; returns where they start.
uint mlx_tg_publish(uint mlx_bits) {
  uint mlx_at = mlx_tg_phase * 32u;
  mlx_tg_phase ^= 1u;
  if (mlx_simd32_lane() == 0u) mlx_tg_slots[mlx_at + mlx_simd32_group()] = mlx_bits;
  barrier();
  return mlx_at;
}
)";

std::string threadgroup_functions(const Scalar& s, const std::set<std::string>& used_tg) {
  std::string out;
  const auto T = s.name;
  auto slot = [&](std::string_view i) {
    return value(s, fmt::format("mlx_tg_slots[mlx_at + {}]", i));
  };
  for (std::string_view op : {"sum", "max", "min"}) {
    if (!used_tg.contains(fmt::format("threadgroup_{}", op))) continue;
    // Lanes past the simdgroups read the identity of a sum, or slot 0 for max and min.
    const std::string rest = op == "sum" ? fmt::format("{}(0)", T) : slot("0u");
    out += fmt::format(
        "{0} threadgroup_{1}({0} mlx_x) {{\n"
        "  {0} mlx_r = mlx_simd32_{1}(mlx_x);\n"
        "  if (mlx_threads <= 32u) return mlx_r;\n"
        "  uint mlx_at = mlx_tg_publish({2});\n"
        "  uint mlx_lane = mlx_simd32_lane();\n"
        "  return mlx_simd32_{1}(mlx_lane < mlx_simdgroups() ? {3} : {4});\n}}\n",
        T, op, bits(s, "mlx_r"), slot("mlx_lane"), rest);
  }
  const bool inclusive = used_tg.contains("threadgroup_prefix_inclusive_sum");
  if (inclusive || used_tg.contains("threadgroup_prefix_exclusive_sum")) {
    out += fmt::format(
        "{0} threadgroup_prefix_exclusive_sum({0} mlx_x) {{\n"
        "  {0} mlx_e = mlx_simd32_prefix_exclusive_sum(mlx_x);\n"
        "  if (mlx_threads <= 32u) return mlx_e;\n"
        "  uint mlx_at = mlx_tg_publish({1});\n"
        "  uint mlx_lane = mlx_simd32_lane();\n"
        "  return mlx_simd32_sum(mlx_lane < mlx_simd32_group() ? {2} : {0}(0)) + mlx_e;\n}}\n",
        T, bits(s, "mlx_simd32_sum(mlx_x)"), slot("mlx_lane"));
  }
  if (inclusive) {
    out += fmt::format(
        "{0} threadgroup_prefix_inclusive_sum({0} mlx_x) {{ return "
        "threadgroup_prefix_exclusive_sum(mlx_x) + mlx_x; }}\n",
        T);
  }
  return out;
}

const std::array<std::string_view, 5> kThreadgroupHelpers = {
    "threadgroup_sum", "threadgroup_max", "threadgroup_min", "threadgroup_prefix_exclusive_sum",
    "threadgroup_prefix_inclusive_sum"};

// The simd_ operations the layer must define: those the source calls, and
// those the threadgroup helpers it calls are built on.
std::set<std::string_view> needed_ops(const absl::flat_hash_set<std::string_view>& used,
                                      const std::set<std::string>& used_tg) {
  std::set<std::string_view> needed;
  for (const auto& op : ops()) {
    if (used.contains(fmt::format("simd_{}", op.name))) needed.insert(op.name);
  }
  for (std::string_view op : {"sum", "max", "min"}) {
    if (used_tg.contains(fmt::format("threadgroup_{}", op))) needed.insert(op);
  }
  if (used_tg.contains("threadgroup_prefix_exclusive_sum") ||
      used_tg.contains("threadgroup_prefix_inclusive_sum")) {
    needed.insert("sum");
    needed.insert("prefix_exclusive_sum");
  }
  if (needed.contains("prefix_inclusive_sum")) needed.insert("prefix_exclusive_sum");
  if (needed.contains("prefix_inclusive_product")) needed.insert("prefix_exclusive_product");
  return needed;
}

// simd_* as the device's subgroup operations (native_simdgroups).
std::string device_helpers(const absl::flat_hash_set<std::string_view>& used) {
  std::string s;
  for (const auto& op : ops()) {
    const std::string name = fmt::format("simd_{}", op.name);
    if (!used.contains(name)) continue;
    if (op.name == "broadcast_first") {
      s += "#define simd_broadcast_first(x) subgroupBroadcastFirst(x)\n";
    } else if (op.kind == Kind::shuffle) {
      s += fmt::format("#define {}(x, y) {}(x, y)\n", name, op.subgroup_op);
    } else {
      s += fmt::format("#define {}(x) {}(x)\n", name, op.subgroup_op);
    }
  }
  if (used.contains("simdgroup_barrier")) {
    s += "#define simdgroup_barrier(flags) subgroupMemoryBarrier(); subgroupBarrier()\n";
  }
  return s;
}

}  // namespace

const std::vector<std::string_view>& simd_helper_names() {
  static const std::vector<std::string_view> names = [] {
    static std::vector<std::string> owned;
    for (const auto& op : ops()) owned.push_back(fmt::format("simd_{}", op.name));
    std::vector<std::string_view> v(owned.begin(), owned.end());
    v.insert(v.end(), kThreadgroupHelpers.begin(), kThreadgroupHelpers.end());
    v.push_back("simdgroup_barrier");
    return v;
  }();
  return names;
}

std::optional<std::string> simd_attribute(std::string_view name, const SimdTarget& target) {
  const bool device = target.width == SimdWidth::device;
  const bool emulated = !device && !target.subgroups32;
  if (name == "thread_index_in_simdgroup") {
    return fmt::format("uint thread_index_in_simdgroup = {};",
                       emulated ? "gl_LocalInvocationIndex & 31u" : "gl_SubgroupInvocationID");
  }
  if (name == "simdgroup_index_in_threadgroup") {
    return fmt::format("uint simdgroup_index_in_threadgroup = {};",
                       emulated ? "gl_LocalInvocationIndex >> 5u" : "gl_SubgroupID");
  }
  if (name == "threads_per_simdgroup" || name == "thread_execution_width") {
    return fmt::format("uint {} = {};", name, device ? "gl_SubgroupSize" : "32u");
  }
  if (name == "simdgroups_per_threadgroup") {
    // Counted, not gl_NumSubgroups: lavapipe leaves a partial last subgroup out of that.
    return fmt::format("uint simdgroups_per_threadgroup = (mlx_threads + {0} - 1u) / {0};",
                       device ? "gl_SubgroupSize" : "32u");
  }
  return std::nullopt;
}

bool uses_threadgroup_helpers(const absl::flat_hash_set<std::string_view>& used) {
  return std::ranges::any_of(kThreadgroupHelpers,
                             [&](std::string_view n) { return used.contains(n); });
}

bool uses_thread_exchange(const absl::flat_hash_set<std::string_view>& used) {
  return uses_threadgroup_helpers(used);
}

// Whether the source needs the 32-wide layer: it calls threadgroup_* (built
// on it under any width), or, with Metal's simdgroups, any simd helper.
bool uses_simd32_layer(const SimdTarget& target,
                       const absl::flat_hash_set<std::string_view>& used) {
  if (uses_threadgroup_helpers(used)) return true;
  return target.width == SimdWidth::metal32 &&
         std::ranges::any_of(simd_helper_names(),
                             [&](std::string_view n) { return used.contains(n); });
}

bool emulates_simdgroups(const SimdTarget& target,
                         const absl::flat_hash_set<std::string_view>& used) {
  return !target.subgroups32 && uses_simd32_layer(target, used);
}

std::string simd_helpers(const SimdTarget& target,
                         const absl::flat_hash_set<std::string_view>& used) {
  std::set<std::string> used_tg;
  for (auto n : kThreadgroupHelpers) {
    if (used.contains(n)) used_tg.insert(std::string(n));
  }
  const auto needed = needed_ops(used, used_tg);
  const bool device = target.width == SimdWidth::device;
  std::string s;
  if (device) s += device_helpers(used);
  if (!uses_simd32_layer(target, used)) return s;
  // The 32-wide layer (also under native_simdgroups, for the threadgroup
  // helpers): the pipeline's subgroups where they are 32 wide, else emulated.
  const bool emulated = !target.subgroups32;
  s += "\n// Metal's 32-wide simdgroups (docs/custom_kernels.md, \"Simdgroups\").\n";
  s += emulated ? kEmulatedBase : kNativeBase;
  const bool any_shuffle = std::ranges::any_of(
      ops(), [&](const Op& op) { return op.kind == Kind::shuffle && needed.contains(op.name); });
  if (any_shuffle) {
    for (const auto& sc : kScalars) s += exchange(sc, emulated);
  }
  // Scalars first: the vector and float16 overloads call them.
  for (const auto& op : ops()) {
    if (!needed.contains(op.name)) continue;
    for (const auto& sc : kScalars) {
      if (takes(op, sc)) s += scalar_function(op, sc, emulated);
    }
    s += wrappers(op, target.float16);
  }
  if (!device) {
    for (const auto& op : ops()) {
      if (used.contains(fmt::format("simd_{}", op.name))) {
        s += fmt::format("#define simd_{0} mlx_simd32_{0}\n", op.name);
      }
    }
    if (used.contains("simdgroup_barrier")) {
      s += "#define simdgroup_barrier(flags) mlx_simdgroup_barrier()\n";
    }
  }
  if (!used_tg.empty()) {
    s += kThreadgroupBase;
    for (const auto& sc : {kFloat, kInt, kUint}) s += threadgroup_functions(sc, used_tg);
    if (target.float16) {
      for (const auto& name : used_tg) {
        s += fmt::format(
            "float16_t {0}(float16_t mlx_x) {{ return float16_t({0}(float(mlx_x))); }}\n", name);
      }
    }
  }
  return s;
}

}  // namespace mlx_lite::vulkan
