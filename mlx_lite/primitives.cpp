#include "mlx_lite/primitives.h"

#include <stdexcept>
#include <string>

namespace mlx_lite {

void Primitive::eval_gpu(const std::vector<array>& inputs, std::vector<array>& outputs) {
  eval_cpu(inputs, outputs);
}

std::vector<array> Primitive::jvp(const std::vector<array>&, const std::vector<array>&,
                                  const std::vector<int>&) {
  throw std::invalid_argument(std::string("[") + name() + "] jvp is not implemented yet.");
}

std::vector<array> Primitive::vjp(const std::vector<array>&, const std::vector<array>&,
                                  const std::vector<int>&, const std::vector<array>&) {
  throw std::invalid_argument(std::string("[") + name() + "] vjp is not implemented yet.");
}

}  // namespace mlx_lite
