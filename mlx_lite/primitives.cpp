#include "mlx_lite/primitives.h"

#include <stdexcept>
#include <string>

#include "backend/gpu_backend.h"

namespace mlx_lite {

void Primitive::eval_gpu(const std::vector<array>& inputs, std::vector<array>& outputs) {
  // No GPU kernel yet: wait for the inputs and run the CPU kernel on the same
  // (host-visible) buffers.
  for (const auto& in : inputs) gpu_backend::wait_for(in);
  eval_cpu(inputs, outputs);
}

void UnaryPrimitive::eval_gpu(const std::vector<array>& inputs, array& output) {
  for (const auto& in : inputs) gpu_backend::wait_for(in);
  eval_cpu(inputs, output);
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
