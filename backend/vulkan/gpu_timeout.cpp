#include "backend/vulkan/gpu_timeout.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <variant>

namespace mlx_lite::vulkan {

namespace {

using Parsed = std::variant<std::optional<uint64_t>, std::string>;  // limit, or the error

Parsed parse(const char* env) {
  if (env == nullptr || *env == '\0') return std::optional<uint64_t>{};
  char* end = nullptr;
  const double seconds = std::strtod(env, &end);
  // Up to a year: beyond it "unbounded" is the honest spelling (unset it).
  if (*end != '\0' || !std::isfinite(seconds) || seconds <= 0 || seconds > 365 * 86400.0) {
    return fmt::format(
        "[gpu] MLX_LITE_GPU_TIMEOUT is '{}'; expected a positive number of seconds (for example "
        "60 or 0.5), or unset for no limit.",
        env);
  }
  return std::optional<uint64_t>{static_cast<uint64_t>(seconds * 1e9)};
}

}  // namespace

std::optional<uint64_t> gpu_timeout_ns() {
  static const Parsed parsed = parse(std::getenv("MLX_LITE_GPU_TIMEOUT"));
  if (const auto* error = std::get_if<std::string>(&parsed)) {
    throw std::invalid_argument(*error);
  }
  return std::get<std::optional<uint64_t>>(parsed);
}

}  // namespace mlx_lite::vulkan
