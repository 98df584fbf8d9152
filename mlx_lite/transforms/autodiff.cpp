// vjp and jvp trace `fun` on fresh copies of the primals (so the graph that
// depends on them is recognisable even when a primal is used elsewhere), find
// the nodes that depend on those copies, and apply each primitive's rule:
// backwards from the cotangents (vjp) or forwards from the tangents (jvp).
#include "mlx_lite/transforms/autodiff.h"

#include <absl/container/flat_hash_map.h>
#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "mlx_lite/ops/binary.h"
#include "mlx_lite/ops/creation.h"
#include "mlx_lite/ops/unary.h"
#include "mlx_lite/primitives.h"
#include "mlx_lite/transforms/tracing.h"
#include "mlx_lite/utils.h"

namespace mlx_lite {

namespace detail {

namespace {
int& tracing_depth() {
  static thread_local int depth = 0;
  return depth;
}
}  // namespace

bool in_tracing() {
  return tracing_depth() > 0;
}
InTracing::InTracing() {
  ++tracing_depth();
}
InTracing::~InTracing() {
  --tracing_depth();
}

}  // namespace detail

namespace {

// The stand-in for a primal while a transform traces: shares its buffer, and
// passes derivatives through unchanged.
class Primal : public UnaryPrimitive {
 public:
  using UnaryPrimitive::UnaryPrimitive;
  void eval_cpu(const std::vector<array>& inputs, array& out) override {
    out.copy_shared_buffer(inputs[0]);
  }
  void eval_gpu(const std::vector<array>& inputs, array& out) override { eval_cpu(inputs, out); }
  std::vector<array> vjp(const std::vector<array>&, const std::vector<array>& cotangents,
                         const std::vector<int>&, const std::vector<array>&) override {
    return cotangents;
  }
  std::vector<array> jvp(const std::vector<array>&, const std::vector<array>& tangents,
                         const std::vector<int>&) override {
    return tangents;
  }
  const char* name() const override { return "Primal"; }
};

std::vector<array> stand_ins(const std::vector<array>& primals) {
  std::vector<array> out;
  for (const auto& p : primals) {
    out.emplace_back(p.shape(), p.dtype(), std::make_shared<Primal>(to_stream({})),
                     std::vector<array>{p});
    detail::set_tracer(out.back(), true);
  }
  return out;
}

// The traced graph: the nodes that depend on the stand-ins, inputs before
// consumers (one entry per multi-output node), and which arrays depend.
struct Trace {
  std::vector<array> tape;
  absl::flat_hash_map<std::uintptr_t, bool> depends;

  bool depends_on_primals(const array& a) const {
    auto it = depends.find(a.id());
    return it != depends.end() && it->second;
  }
  // The inputs of `node` that depend on the primals: what its rule must differentiate.
  std::vector<int> argnums(const array& node) const {
    std::vector<int> out;
    for (size_t i = 0; i < node.inputs().size(); ++i) {
      if (depends_on_primals(node.inputs()[i])) out.push_back(static_cast<int>(i));
    }
    return out;
  }
};

Trace trace(const std::vector<array>& outputs, const std::vector<array>& stand_ins) {
  Trace t;
  for (const auto& s : stand_ins) t.depends[s.id()] = true;
  // Iterative post-order walk: a node is decided after all of its inputs.
  std::vector<std::pair<array, size_t>> stack;
  for (const auto& out : outputs) {
    if (t.depends.contains(out.id())) continue;
    stack.emplace_back(out, 0);
    t.depends[out.id()] = false;  // on the stack
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      // Nothing behind a stop_gradient is differentiated, so nothing behind
      // it is walked: its nodes need no rules (a custom kernel has none).
      const bool stopped = node.has_primitive() && node.primitive().stops_gradient();
      if (!stopped && next < node.inputs().size()) {
        const array& in = node.inputs()[next++];
        if (!t.depends.contains(in.id())) {
          t.depends[in.id()] = false;
          stack.emplace_back(in, 0);
        }
        continue;
      }
      bool depends = false;
      if (node.has_primitive() && !stopped) {
        depends = std::ranges::any_of(node.inputs(),
                                      [&](const array& in) { return t.depends_on_primals(in); });
      }
      for (const auto& o : node.outputs()) t.depends[o.id()] = depends;
      if (depends) t.tape.push_back(node);
      stack.pop_back();
    }
  }
  return t;
}

// A cotangent or tangent must have its output's or primal's shape; its dtype
// is cast to theirs, as MLX does.
array shaped_like(const char* transform, const char* what, size_t i, const array& given,
                  const array& like, const char* like_name) {
  if (given.shape() != like.shape()) {
    throw std::invalid_argument(fmt::format(
        "[{}] {} {} has shape {}, but {} {} has shape {}; they must match.", transform, what, i,
        shape_string(given.shape()), like_name, i, shape_string(like.shape())));
  }
  return astype(given, like.dtype());
}

// A rule's results: one per argnum, each shaped and typed as its input.
void check_rule(const char* rule, const Primitive& p, const std::vector<array>& results,
                const std::vector<array>& like, const std::vector<int>& argnums) {
  const bool by_argnum = !argnums.empty() || results.size() != like.size();
  const size_t want = by_argnum ? argnums.size() : like.size();
  if (results.size() != want) {
    throw std::logic_error(fmt::format("[{}] The rule of {} returned {} arrays for {}.", rule,
                                       p.name(), results.size(), want));
  }
  for (size_t k = 0; k < results.size(); ++k) {
    const array& ref = like[by_argnum ? argnums[k] : k];
    if (results[k].shape() != ref.shape() || results[k].dtype() != ref.dtype()) {
      throw std::logic_error(fmt::format(
          "[{}] The rule of {} returned shape {} and dtype {} where {} {} were expected.", rule,
          p.name(), shape_string(results[k].shape()), results[k].dtype(), shape_string(ref.shape()),
          ref.dtype()));
    }
  }
}

// The sum of two cotangents of one array. The node that made either one may
// absorb the other (Primitive::absorb_addend; the newer one, b, is asked
// first); an evaluated cotangent is data, with no work left to absorb into.
array add_cotangents(const array& a, const array& b) {
  for (const auto& [own, addend] : {std::pair{b, a}, std::pair{a, b}}) {
    if (own.is_available() || !own.has_primitive()) continue;
    if (auto sum = own.primitive().absorb_addend(own, addend)) return *std::move(sum);
  }
  return add(a, b);
}

using CotangentsFor = std::function<std::vector<array>(const std::vector<array>& outputs)>;

std::pair<std::vector<array>, std::vector<array>> vjp_impl(
    const std::function<std::vector<array>(const std::vector<array>&)>& fun,
    const std::vector<array>& primals, const CotangentsFor& cotangents_for) {
  detail::InTracing tracing;
  const std::vector<array> inputs = stand_ins(primals);
  std::vector<array> outputs = fun(inputs);
  std::vector<array> cotangents = cotangents_for(outputs);
  if (cotangents.size() != outputs.size()) {
    throw std::invalid_argument(
        fmt::format("[vjp] The function has {} outputs but {} cotangents were given.",
                    outputs.size(), cotangents.size()));
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    cotangents[i] = shaped_like("vjp", "Cotangent", i, cotangents[i], outputs[i], "output");
  }

  Trace t = trace(outputs, inputs);
  absl::flat_hash_map<std::uintptr_t, array> cot;
  auto accumulate = [&](const array& target, const array& c) {
    auto [it, fresh] = cot.try_emplace(target.id(), c);
    if (!fresh) it->second = add_cotangents(it->second, c);
  };
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (t.depends_on_primals(outputs[i])) accumulate(outputs[i], cotangents[i]);
  }
  for (auto node = t.tape.rbegin(); node != t.tape.rend(); ++node) {
    std::vector<array> outs = node->outputs();
    std::vector<array> out_cots;
    bool any = false;
    for (const auto& o : outs) {
      if (auto it = cot.find(o.id()); it != cot.end()) {
        out_cots.push_back(std::move(it->second));
        cot.erase(it);
        any = true;
      } else {
        out_cots.push_back(zeros_like(o));
      }
    }
    if (!any) continue;  // nothing downstream of this node reached an output
    const std::vector<int> argnums = t.argnums(*node);
    auto& p = node->primitive();
    std::vector<array> vjps = p.vjp(node->inputs(), out_cots, argnums, outs);
    check_rule("vjp", p, vjps, node->inputs(), argnums);
    for (size_t k = 0; k < argnums.size(); ++k) accumulate(node->inputs()[argnums[k]], vjps[k]);
  }

  std::vector<array> grads;
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto it = cot.find(inputs[i].id());
    grads.push_back(it != cot.end() ? it->second : zeros_like(primals[i]));
  }
  return {std::move(outputs), std::move(grads)};
}

}  // namespace

std::pair<std::vector<array>, std::vector<array>> vjp(
    const std::function<std::vector<array>(const std::vector<array>&)>& fun,
    const std::vector<array>& primals, const std::vector<array>& cotangents) {
  return vjp_impl(fun, primals, [&](const std::vector<array>&) { return cotangents; });
}

std::pair<array, array> vjp(const std::function<array(const array&)>& fun, const array& primal,
                            const array& cotangent) {
  auto [outs, vjps] = vjp([&](const std::vector<array>& in) { return std::vector{fun(in[0])}; },
                          {primal}, {cotangent});
  return {outs[0], vjps[0]};
}

std::pair<std::vector<array>, std::vector<array>> jvp(
    const std::function<std::vector<array>(const std::vector<array>&)>& fun,
    const std::vector<array>& primals, const std::vector<array>& tangents) {
  if (tangents.size() != primals.size()) {
    throw std::invalid_argument(
        fmt::format("[jvp] {} primals but {} tangents were given; give one tangent per primal.",
                    primals.size(), tangents.size()));
  }
  std::vector<array> cast_tangents;
  for (size_t i = 0; i < primals.size(); ++i) {
    cast_tangents.push_back(shaped_like("jvp", "Tangent", i, tangents[i], primals[i], "primal"));
  }
  detail::InTracing tracing;
  const std::vector<array> inputs = stand_ins(primals);
  std::vector<array> outputs = fun(inputs);
  Trace t = trace(outputs, inputs);
  absl::flat_hash_map<std::uintptr_t, array> tan;
  for (size_t i = 0; i < inputs.size(); ++i) tan.try_emplace(inputs[i].id(), cast_tangents[i]);
  for (const auto& node : t.tape) {
    const std::vector<int> argnums = t.argnums(node);
    std::vector<array> in_tans;
    for (int k : argnums) in_tans.push_back(tan.at(node.inputs()[k].id()));
    auto& p = node.primitive();
    std::vector<array> out_tans = p.jvp(node.inputs(), in_tans, argnums);
    std::vector<array> outs = node.outputs();
    check_rule("jvp", p, out_tans, outs, {});
    for (size_t i = 0; i < outs.size(); ++i) tan.insert_or_assign(outs[i].id(), out_tans[i]);
  }
  std::vector<array> jvps;
  for (const auto& out : outputs) {
    auto it = tan.find(out.id());
    jvps.push_back(it != tan.end() ? it->second : zeros_like(out));
  }
  return {std::move(outputs), std::move(jvps)};
}

std::pair<array, array> jvp(const std::function<array(const array&)>& fun, const array& primal,
                            const array& tangent) {
  auto [outs, jvps] = jvp([&](const std::vector<array>& in) { return std::vector{fun(in[0])}; },
                          {primal}, {tangent});
  return {outs[0], jvps[0]};
}

namespace {

// argnums counted from the front (negative ones from the back), in increasing
// order: MLX's order for the gradients, whatever order they were named in.
std::vector<int> normalize_argnums(const std::vector<int>& argnums, size_t num_inputs) {
  std::vector<int> out;
  for (int a : argnums) out.push_back(a < 0 ? a + static_cast<int>(num_inputs) : a);
  std::ranges::sort(out);
  if (std::ranges::adjacent_find(out) != out.end()) {
    throw std::invalid_argument(fmt::format(
        "[value_and_grad] argnums {} name one input twice (negative ones count from the end of "
        "the {} inputs); each input may be named once.",
        fmt::join(argnums, ", "), num_inputs));
  }
  if (out.front() < 0 || out.back() >= static_cast<int>(num_inputs)) {
    throw std::invalid_argument(
        fmt::format("[value_and_grad] argnums {} are out of range for a call with {} inputs.",
                    fmt::join(argnums, ", "), num_inputs));
  }
  return out;
}

}  // namespace

ValueAndGradFn value_and_grad(
    const std::function<std::vector<array>(const std::vector<array>&)>& fun,
    const std::vector<int>& given_argnums) {
  if (given_argnums.empty()) {
    throw std::invalid_argument("[value_and_grad] argnums is empty; name at least one input.");
  }
  return [fun, given_argnums](const std::vector<array>& inputs) {
    const std::vector<int> argnums = normalize_argnums(given_argnums, inputs.size());
    std::vector<array> primals;
    for (int a : argnums) primals.push_back(inputs[a]);
    std::vector<array> values;
    auto first_output = [&](const std::vector<array>& traced) {
      std::vector<array> args = inputs;
      for (size_t k = 0; k < argnums.size(); ++k) args[argnums[k]] = traced[k];
      values = fun(args);
      if (values.empty()) {
        throw std::invalid_argument("[value_and_grad] The function returned no outputs.");
      }
      if (values[0].size() != 1) {
        throw std::invalid_argument(fmt::format(
            "[value_and_grad] The gradient is taken of the function's first output, which must "
            "be a scalar (one element); it has shape {}.",
            shape_string(values[0].shape())));
      }
      return std::vector<array>{values[0]};
    };
    auto [outs, grads] = vjp_impl(first_output, primals, [](const std::vector<array>& outs) {
      return std::vector<array>{ones_like(outs[0])};
    });
    return std::make_pair(std::move(values), std::move(grads));
  };
}

std::function<std::pair<array, array>(const array&)> value_and_grad(
    const std::function<array(const array&)>& fun) {
  auto vg = value_and_grad(
      [fun](const std::vector<array>& in) { return std::vector<array>{fun(in[0])}; }, 0);
  return [vg](const array& input) {
    auto [values, grads] = vg({input});
    return std::make_pair(values[0], grads[0]);
  };
}

}  // namespace mlx_lite
