#include "backend/vulkan/gpu_timeout.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <variant>

namespace mlx_lite::vulkan {

namespace {

using Parsed = std::variant<std::optional<uint64_t>, std::string>;  // nanoseconds, or the error

// A variable's seconds, in (0, most] or [0, most] with zero_allowed; nullopt
// when unset or empty.
Parsed parse_seconds(const char* name, double most, bool zero_allowed, const char* meaning) {
  const char* env = std::getenv(name);
  if (env == nullptr || *env == '\0') return std::optional<uint64_t>{};
  char* end = nullptr;
  const double seconds = std::strtod(env, &end);
  if (*end != '\0' || !std::isfinite(seconds) || seconds < 0 || (seconds == 0 && !zero_allowed) ||
      seconds > most) {
    return fmt::format("[gpu] {} is '{}'; expected {}.", name, env, meaning);
  }
  return std::optional<uint64_t>{static_cast<uint64_t>(seconds * 1e9)};
}

std::optional<uint64_t> value_or_throw(const Parsed& parsed) {
  if (const auto* error = std::get_if<std::string>(&parsed)) throw std::invalid_argument(*error);
  return std::get<std::optional<uint64_t>>(parsed);
}

constexpr uint64_t kGpuSpinNs = 20'000'000;

}  // namespace

std::optional<uint64_t> gpu_timeout_ns() {
  // Up to a year: beyond it "unbounded" is the honest spelling (unset it).
  static const Parsed parsed =
      parse_seconds("MLX_LITE_GPU_TIMEOUT", 365 * 86400.0, false,
                    "a positive number of seconds (for example 60 or 0.5), or unset for no limit");
  return value_or_throw(parsed);
}

uint64_t gpu_spin_ns(bool cpu_device) {
  static const Parsed parsed = parse_seconds(
      "MLX_LITE_GPU_SPIN", 1.0, true,
      "a number of seconds from 0 to 1 (for example 0.002; 0 turns spinning off), or unset for "
      "the default");
  return value_or_throw(parsed).value_or(cpu_device ? 0 : kGpuSpinNs);
}

}  // namespace mlx_lite::vulkan
