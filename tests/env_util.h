// What tests of process-wide state share: an environment variable set for a
// scope, and a text no earlier run has used (for caches that outlive the
// process, such as the custom kernels' disk cache).
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <random>
#include <string>

namespace test_util {

// Sets an environment variable for a scope, restoring it after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// A text that no earlier run has put in a kernel.
inline std::string nonce() {
  std::random_device rd;
  return std::to_string(getpid()) + "_" + std::to_string(rd()) + "_" + std::to_string(rd());
}

}  // namespace test_util
