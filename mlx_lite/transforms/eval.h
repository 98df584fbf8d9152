/// \file
/// Graph evaluation.
#pragma once

#include <deque>
#include <vector>

#include "mlx_lite/array.h"

namespace mlx_lite {

/// Evaluates the arrays and everything they depend on that has no data yet.
/// The walk is iterative (no recursion limit), each node runs once however many
/// consumers it has, and evaluated nodes drop their inputs so intermediates are
/// freed as soon as nothing refers to them. Returns once the work is done.
/// The arrays come as a vector or one by one.
/// @{
void eval(std::vector<array> outputs);

template <typename... Arrays>
void eval(Arrays&&... outputs) {
  eval(std::vector<array>{std::forward<Arrays>(outputs)...});
}
/// @}

/// Starts evaluating and returns once the GPU work is submitted (CPU nodes run
/// before it returns); reading the data (item, data, eval, synchronize) waits.
void async_eval(std::vector<array> outputs);

namespace detail {

// The unevaluated nodes `outputs` depend on, each once (one per multi-output
// primitive), inputs before consumers: the order eval runs them in.
std::deque<array> topological_order(const std::vector<array>& outputs);

}  // namespace detail

}  // namespace mlx_lite
