// Logging to stderr, as MLX_LITE_LOG says: by default ("" or "warning")
// only warnings (a damaged kernel-cache entry, a custom kernel whose loop
// passes the device's cap); "info" adds device selection, kernel compiles
// and disk-cache loads (name, time) and pipeline creations; "debug" adds
// kernel lookups answered from memory; "off" says nothing. Read once.
#pragma once

#include <fmt/format.h>

#include <chrono>
#include <string_view>

namespace mlx_lite::logging {

enum class Level { off = 0, warning = 1, info = 2, debug = 3 };

// MLX_LITE_LOG's level ("", "off", "warning", "info" or "debug"); any other value
// throws std::invalid_argument naming the accepted ones.
Level level();

// Writes "[mlx_lite] message" as one line, whole even with several threads.
void write(std::string_view message);

template <typename... Args>
void warning(fmt::format_string<Args...> format, Args&&... args) {
  if (level() >= Level::warning) {
    write("warning: " + fmt::format(format, std::forward<Args>(args)...));
  }
}

template <typename... Args>
void info(fmt::format_string<Args...> format, Args&&... args) {
  if (level() >= Level::info) write(fmt::format(format, std::forward<Args>(args)...));
}

template <typename... Args>
void debug(fmt::format_string<Args...> format, Args&&... args) {
  if (level() >= Level::debug) write(fmt::format(format, std::forward<Args>(args)...));
}

// Milliseconds since `start` (a steady_clock time point), for timings in
// messages.
double ms_since(std::chrono::steady_clock::time_point start);

}  // namespace mlx_lite::logging
