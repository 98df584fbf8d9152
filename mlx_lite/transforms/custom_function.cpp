// A custom function's call is one CustomTransforms node whose inputs are the
// arguments followed by the body's outputs behind stop_gradient: evaluating
// the node shares the body's results, and differentiating it calls the given
// rules, never the body's.
#include "mlx_lite/transforms/custom_function.h"

#include <fmt/format.h>

#include <stdexcept>

#include "mlx_lite/ops/ops.h"
#include "mlx_lite/primitives.h"
#include "mlx_lite/transforms/autodiff.h"
#include "mlx_lite/utils.h"

namespace mlx_lite {

namespace {

// `results` of a user's rule: `want` arrays, the k-th shaped and typed as like[k].
void check_user_rule(const char* rule, const std::vector<array>& results,
                     const std::vector<array>& like, const char* per) {
  if (results.size() != like.size()) {
    throw std::invalid_argument(fmt::format(
        "[custom_function] The custom {} returned {} arrays; it must return {}, one per {}.", rule,
        results.size(), like.size(), per));
  }
  for (size_t k = 0; k < like.size(); ++k) {
    if (results[k].shape() != like[k].shape() || results[k].dtype() != like[k].dtype()) {
      throw std::invalid_argument(fmt::format(
          "[custom_function] The custom {} returned shape {} and dtype {} for {} {}, which has "
          "shape {} and dtype {}.",
          rule, shape_string(results[k].shape()), results[k].dtype(), per, k,
          shape_string(like[k].shape()), like[k].dtype()));
    }
  }
}

class CustomTransforms : public Primitive {
 public:
  CustomTransforms(Stream stream, size_t num_outputs, CustomVjpFn vjp, CustomJvpFn jvp)
      : Primitive(stream), num_outputs_(num_outputs), vjp_(std::move(vjp)), jvp_(std::move(jvp)) {}

  void eval_cpu(const std::vector<array>& inputs, std::vector<array>& outputs) override {
    const size_t first = inputs.size() - num_outputs_;
    for (size_t i = 0; i < num_outputs_; ++i) outputs[i].copy_shared_buffer(inputs[first + i]);
  }
  void eval_gpu(const std::vector<array>& inputs, std::vector<array>& outputs) override {
    eval_cpu(inputs, outputs);
  }

  std::vector<array> vjp(const std::vector<array>& primals, const std::vector<array>& cotangents,
                         const std::vector<int>& argnums,
                         const std::vector<array>& outputs) override {
    std::vector<array> args(primals.begin(), primals.end() - num_outputs_);
    std::vector<array> all = vjp_(args, cotangents, outputs);
    check_user_rule("vjp", all, args, "primal");
    std::vector<array> out;
    // The body's outputs are behind stop_gradient: only arguments are asked for.
    for (int a : argnums) out.push_back(all[a]);
    return out;
  }

  std::vector<array> jvp(const std::vector<array>& primals, const std::vector<array>& tangents,
                         const std::vector<int>& argnums) override {
    std::vector<array> args(primals.begin(), primals.end() - num_outputs_);
    std::vector<array> outs(primals.end() - num_outputs_, primals.end());
    std::vector<array> result = jvp_(args, tangents, argnums);
    check_user_rule("jvp", result, outs, "output");
    return result;
  }

  const char* name() const override { return "CustomTransforms"; }

 private:
  size_t num_outputs_;
  CustomVjpFn vjp_;
  CustomJvpFn jvp_;
};

using Fun = std::function<std::vector<array>(const std::vector<array>&)>;

CustomVjpFn derived_vjp(Fun fun) {
  return [fun](const std::vector<array>& primals, const std::vector<array>& cotangents,
               const std::vector<array>&) { return vjp(fun, primals, cotangents).second; };
}

CustomJvpFn derived_jvp(Fun fun) {
  return [fun](const std::vector<array>& primals, const std::vector<array>& tangents,
               const std::vector<int>& argnums) {
    std::vector<array> all;
    for (const auto& p : primals) all.push_back(zeros_like(p));
    for (size_t k = 0; k < argnums.size(); ++k) all[argnums[k]] = tangents[k];
    return jvp(fun, primals, all).second;
  };
}

}  // namespace

std::function<std::vector<array>(const std::vector<array>&)> custom_function(
    Fun fun, std::optional<CustomVjpFn> fun_vjp, std::optional<CustomJvpFn> fun_jvp) {
  if (!fun_vjp && !fun_jvp) return fun;
  CustomVjpFn vjp_rule = fun_vjp ? std::move(*fun_vjp) : derived_vjp(fun);
  CustomJvpFn jvp_rule = fun_jvp ? std::move(*fun_jvp) : derived_jvp(fun);
  return [fun, vjp_rule, jvp_rule](const std::vector<array>& args) {
    std::vector<array> outputs = fun(args);
    if (outputs.empty()) {
      throw std::invalid_argument("[custom_function] The function returned no outputs.");
    }
    std::vector<array> inputs = args;
    std::vector<Shape> shapes;
    std::vector<Dtype> dtypes;
    for (const auto& out : outputs) {
      inputs.push_back(stop_gradient(out));
      shapes.push_back(out.shape());
      dtypes.push_back(out.dtype());
    }
    Stream s = outputs[0].has_primitive() ? outputs[0].primitive().stream() : to_stream({});
    return array::make_arrays(
        std::move(shapes), dtypes,
        std::make_shared<CustomTransforms>(s, outputs.size(), vjp_rule, jvp_rule), inputs);
  };
}

std::function<std::vector<array>(const std::vector<array>&)> custom_vjp(Fun fun,
                                                                        CustomVjpFn fun_vjp) {
  return custom_function(std::move(fun), std::move(fun_vjp));
}

std::function<std::vector<array>(const std::vector<array>&)> checkpoint(Fun fun) {
  CustomVjpFn recompute = derived_vjp(fun);
  return custom_function(std::move(fun), std::move(recompute));
}

}  // namespace mlx_lite
