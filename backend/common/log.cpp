#include "backend/common/log.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>

namespace mlx_lite::logging {

namespace {

Level parse(const char* env) {
  const std::string v = env ? env : "";
  if (v == "off") return Level::off;
  if (v.empty() || v == "warning") return Level::warning;
  if (v == "info") return Level::info;
  if (v == "debug") return Level::debug;
  throw std::invalid_argument(
      fmt::format("MLX_LITE_LOG is '{}'; expected 'off', 'warning', 'info' or 'debug'.", v));
}

}  // namespace

Level level() {
  static const Level l = parse(std::getenv("MLX_LITE_LOG"));
  return l;
}

void write(std::string_view message) {
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  fmt::print(stderr, "[mlx_lite] {}\n", message);
  std::fflush(stderr);
}

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

}  // namespace mlx_lite::logging
