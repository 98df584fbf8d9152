// Derivative rules of Arange and Eye. They have no inputs, so there is
// nothing to differentiate: both rules return one array per input, none. (A
// node without inputs never depends on the primals, so the engine does not
// even reach them; they answer anyway so every primitive has its rules.)
#include "mlx_lite/primitives/creation.h"

namespace mlx_lite {

std::vector<array> Arange::jvp(const std::vector<array>&, const std::vector<array>&,
                               const std::vector<int>&) {
  return {};
}
std::vector<array> Arange::vjp(const std::vector<array>&, const std::vector<array>&,
                               const std::vector<int>&, const std::vector<array>&) {
  return {};
}

std::vector<array> Eye::jvp(const std::vector<array>&, const std::vector<array>&,
                            const std::vector<int>&) {
  return {};
}
std::vector<array> Eye::vjp(const std::vector<array>&, const std::vector<array>&,
                            const std::vector<int>&, const std::vector<array>&) {
  return {};
}

}  // namespace mlx_lite
