/// \file
/// Reverse- and forward-mode differentiation (MLX's transforms.h): vjp, jvp,
/// value_and_grad and grad, through any graph of the core's ops on either
/// device. Every primitive supplies its rules (Primitive::vjp / jvp); these
/// functions trace `fun` on fresh copies of the primals and apply the rules
/// along the traced graph. stop_gradient (mlx_lite/ops/shape.h) cuts the graph.
#pragma once

#include <functional>
#include <utility>
#include <vector>

#include "mlx_lite/array.h"

namespace mlx_lite {

/// The outputs of fun(primals) and the vector-Jacobian products of
/// `cotangents` (one per output, of its shape; cast to its dtype, as MLX
/// does) with respect to each primal. A wrong count or shape of cotangents
/// throws std::invalid_argument.
/// @{
std::pair<std::vector<array>, std::vector<array>> vjp(
    const std::function<std::vector<array>(const std::vector<array>&)>& fun,
    const std::vector<array>& primals, const std::vector<array>& cotangents);
std::pair<array, array> vjp(const std::function<array(const array&)>& fun, const array& primal,
                            const array& cotangent);
/// @}

/// The outputs of fun(primals) and the Jacobian-vector products with
/// `tangents` (one per primal, of its shape; cast to its dtype), one per
/// output. A wrong count or shape of tangents throws std::invalid_argument.
/// @{
std::pair<std::vector<array>, std::vector<array>> jvp(
    const std::function<std::vector<array>(const std::vector<array>&)>& fun,
    const std::vector<array>& primals, const std::vector<array>& tangents);
std::pair<array, array> jvp(const std::function<array(const array&)>& fun, const array& primal,
                            const array& tangent);
/// @}

/// What value_and_grad() returns: the inputs to fun's outputs and the
/// gradients.
using ValueAndGradFn =
    std::function<std::pair<std::vector<array>, std::vector<array>>(const std::vector<array>&)>;
/// What value_and_grad() returns for a function of one output: the inputs to
/// that output and the gradients.
using SimpleValueAndGradFn =
    std::function<std::pair<array, std::vector<array>>(const std::vector<array>&)>;

/// value_and_grad(fun, argnums)(inputs) gives fun's outputs and the gradients
/// of its first output (a scalar: one element) with respect to the inputs
/// listed in argnums (at least one; negative ones count from the end, as in
/// MLX). The gradients come in increasing input order, whatever order argnums
/// lists them in, as MLX's do. One argnum stands for a list of one (by
/// default the first input); a function of one array gives its value and
/// gradient. Throws std::invalid_argument for empty argnums, and, at the
/// call, for argnums that name one input twice or are out of range, or a
/// first output that is not a scalar.
/// @{
ValueAndGradFn value_and_grad(
    const std::function<std::vector<array>(const std::vector<array>&)>& fun,
    const std::vector<int>& argnums);

inline ValueAndGradFn value_and_grad(
    const std::function<std::vector<array>(const std::vector<array>&)>& fun, int argnum = 0) {
  return value_and_grad(fun, std::vector<int>{argnum});
}

std::function<std::pair<array, array>(const array&)> value_and_grad(
    const std::function<array(const array&)>& fun);

inline SimpleValueAndGradFn value_and_grad(
    const std::function<array(const std::vector<array>&)>& fun, const std::vector<int>& argnums) {
  auto vg = value_and_grad(
      [fun](const std::vector<array>& inputs) { return std::vector<array>{fun(inputs)}; }, argnums);
  return [vg](const std::vector<array>& inputs) {
    auto [values, grads] = vg(inputs);
    return std::make_pair(values[0], std::move(grads));
  };
}

inline SimpleValueAndGradFn value_and_grad(
    const std::function<array(const std::vector<array>&)>& fun, int argnum = 0) {
  return value_and_grad(fun, std::vector<int>{argnum});
}
/// @}

/// grad(fun, argnums)(inputs) gives the gradients of fun (whose output is a
/// scalar) with respect to the inputs listed in argnums: value_and_grad()
/// without the value, and with its arguments and errors.
/// @{
inline std::function<std::vector<array>(const std::vector<array>&)> grad(
    const std::function<array(const std::vector<array>&)>& fun, const std::vector<int>& argnums) {
  auto vg = value_and_grad(fun, argnums);
  return [vg](const std::vector<array>& inputs) { return vg(inputs).second; };
}

inline std::function<std::vector<array>(const std::vector<array>&)> grad(
    const std::function<array(const std::vector<array>&)>& fun, int argnum = 0) {
  return grad(fun, std::vector<int>{argnum});
}

inline std::function<array(const array&)> grad(const std::function<array(const array&)>& fun) {
  auto vg = value_and_grad(fun);
  return [vg](const array& input) { return vg(input).second; };
}
/// @}

}  // namespace mlx_lite
