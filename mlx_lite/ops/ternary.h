/// \file
/// Ops of three arrays.
#pragma once

#include <optional>

#include "mlx_lite/array.h"
#include "mlx_lite/device.h"

namespace mlx_lite {

/// Elementwise condition ? x : y, all three broadcast together; the result has
/// promote_types(x, y). condition is read as bool (nonzero is true).
array where(const array& condition, const array& x, const array& y, StreamOrDevice s = {});

/// Limits a to [a_min, a_max] (maximum, then minimum: the bounds broadcast
/// and promote as theirs do); either bound may be absent, not both, else
/// std::invalid_argument.
array clip(const array& a, const std::optional<array>& a_min = std::nullopt,
           const std::optional<array>& a_max = std::nullopt, StreamOrDevice s = {});

}  // namespace mlx_lite
