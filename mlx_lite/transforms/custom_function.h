/// \file
/// Functions whose derivatives are given rather than derived (MLX's
/// custom_function, custom_vjp and checkpoint): differentiating a call uses
/// the given rule instead of differentiating the body, also inside other
/// transforms and other custom functions.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "mlx_lite/array.h"

namespace mlx_lite {

/// A vjp rule: from the primals, the cotangents of the outputs and the
/// outputs, one cotangent per primal.
using CustomVjpFn = std::function<std::vector<array>(const std::vector<array>& primals,
                                                     const std::vector<array>& cotangents,
                                                     const std::vector<array>& outputs)>;
/// A jvp rule: from the primals, the tangents of the primals listed in
/// argnums and argnums, one tangent per output.
using CustomJvpFn = std::function<std::vector<array>(const std::vector<array>& primals,
                                                     const std::vector<array>& tangents,
                                                     const std::vector<int>& argnums)>;

/// fun with its vjp and/or jvp replaced. fun_vjp returns one cotangent per
/// primal (shaped and typed as it); fun_jvp gets the tangents of the primals
/// listed in argnums and returns one tangent per output. A rule that is not
/// given is derived from fun as usual. Either rule's results are checked, and
/// a wrong count, shape or dtype is a std::invalid_argument naming it.
std::function<std::vector<array>(const std::vector<array>&)> custom_function(
    std::function<std::vector<array>(const std::vector<array>&)> fun,
    std::optional<CustomVjpFn> fun_vjp = std::nullopt,
    std::optional<CustomJvpFn> fun_jvp = std::nullopt);

/// custom_function() with only the vjp given.
std::function<std::vector<array>(const std::vector<array>&)> custom_vjp(
    std::function<std::vector<array>(const std::vector<array>&)> fun, CustomVjpFn fun_vjp);

/// fun, whose vjp recomputes fun's intermediates instead of keeping them.
std::function<std::vector<array>(const std::vector<array>&)> checkpoint(
    std::function<std::vector<array>(const std::vector<array>&)> fun);

}  // namespace mlx_lite
