/// \file
/// Whole-array and tolerance comparisons (MLX names and signatures): the
/// results are bool, compositions of the elementwise comparisons.
#pragma once

#include "mlx_lite/array.h"
#include "mlx_lite/device.h"

namespace mlx_lite {

/// A bool scalar: whether a and b have the same shape (no broadcasting; a
/// shape mismatch is false, not an error) and equal elements once promoted
/// to one dtype. NaNs are equal to each other only with `equal_nan`. Arrays
/// with no elements and one shape are equal.
array array_equal(const array& a, const array& b, bool equal_nan, StreamOrDevice s = {});
/// array_equal(a, b, false, s).
array array_equal(const array& a, const array& b, StreamOrDevice s = {});

/// Elementwise |a - b| <= atol + rtol * |b| after broadcasting, as bool
/// (numpy's isclose: not symmetric in a and b). An infinity is close only
/// to the same infinity; NaN is close to NaN only with `equal_nan`.
/// The tolerances are float32 scalars, so the test runs in float32 for
/// float16, bfloat16 and integer inputs, as in MLX.
array isclose(const array& a, const array& b, double rtol = 1e-5, double atol = 1e-8,
              bool equal_nan = false, StreamOrDevice s = {});

/// A bool scalar: all(isclose(a, b, rtol, atol, equal_nan)).
array allclose(const array& a, const array& b, double rtol = 1e-5, double atol = 1e-8,
               bool equal_nan = false, StreamOrDevice s = {});

}  // namespace mlx_lite
