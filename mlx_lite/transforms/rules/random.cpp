// Derivative rules of RandomBits: its bits are a piecewise-constant function
// of the key (integer in, integer out), so both derivatives are zero.
#include "mlx_lite/primitives/random.h"

#include "mlx_lite/ops/ops.h"

namespace mlx_lite {

std::vector<array> RandomBits::jvp(const std::vector<array>&, const std::vector<array>&,
                                   const std::vector<int>&) {
  return {zeros(shape_, width_ == 1 ? uint8 : uint32, stream())};
}

std::vector<array> RandomBits::vjp(const std::vector<array>& primals, const std::vector<array>&,
                                   const std::vector<int>&, const std::vector<array>&) {
  return {zeros_like(primals[0], stream())};
}

}  // namespace mlx_lite
