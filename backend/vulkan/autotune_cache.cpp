#include "backend/vulkan/autotune_cache.h"

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>
#include <fmt/format.h>

#include <fstream>
#include <iterator>
#include <mutex>
#include <sstream>
#include <string_view>

#include "backend/common/log.h"
#include "backend/vulkan/kernel_disk_cache.h"

namespace fs = std::filesystem;

namespace mlx_lite::vulkan {

namespace {

// A file: these lines, then "checksum: " and kernel_cache_key() of them.
// The key hashes the compiler's version too, as do the file names, so a
// file is only ever read by a build of the version that wrote it.
constexpr std::string_view kFirstLine = "mlx_lite autotune v1\n";
constexpr std::string_view kChecksum = "checksum: ";
// A choice is a few hundred bytes; a larger file is not ours.
constexpr uintmax_t kMaxFileBytes = 1 << 16;

std::string identity(const TuningKey& k) {
  return fmt::format("device: {}\nkernel: {}\nkey: {}\n", k.device, k.kernel, k.key);
}

std::string body(const TuningKey& k, const std::array<int, 3>& tg) {
  return fmt::format("{}{}threadgroup: {} {} {}\n", kFirstLine, identity(k), tg[0], tg[1], tg[2]);
}

std::string file_text(const TuningKey& k, const std::array<int, 3>& tg) {
  const std::string b = body(k, tg);
  return fmt::format("{}{}{}\n", b, kChecksum, kernel_cache_key(b));
}

// Says once per file and process that it was not used.
void report_damaged(const fs::path& path, std::string_view why) {
  static std::mutex mutex;
  static absl::flat_hash_set<std::string> reported;
  std::lock_guard lock(mutex);
  if (reported.insert(path.string()).second) {
    logging::warning("autotune file {} is damaged ({}); ignored, the kernel is tuned again",
                     path.string(), why);
  }
}

// The threadgroup `text` holds for `k`: nullopt (and a warning) when the
// text is damaged; nullopt without one when it is another key's (a file
// name collision).
std::optional<std::array<int, 3>> parse(const fs::path& path, const std::string& text,
                                        const TuningKey& k) {
  const size_t at = text.rfind(kChecksum);
  if (!text.starts_with(kFirstLine) || at == std::string::npos) {
    report_damaged(path, "not an autotune file");
    return std::nullopt;
  }
  const std::string b = text.substr(0, at);
  if (text.substr(at) != fmt::format("{}{}\n", kChecksum, kernel_cache_key(b))) {
    report_damaged(path, "checksum mismatch");
    return std::nullopt;
  }
  const std::string expected = fmt::format("{}{}threadgroup: ", kFirstLine, identity(k));
  if (!b.starts_with(expected)) return std::nullopt;
  std::istringstream in(b.substr(expected.size()));
  std::array<int, 3> tg{};
  std::string rest;
  if (!(in >> tg[0] >> tg[1] >> tg[2]) || (in >> rest) || tg[0] < 1 || tg[1] < 1 || tg[2] < 1) {
    report_damaged(path, "no threadgroup");
    return std::nullopt;
  }
  return tg;
}

std::optional<std::array<int, 3>> read_file(const TuningKey& k) {
  const fs::path path = tuning_file(k);
  if (path.empty()) return std::nullopt;
  std::error_code ec;
  const uintmax_t size = fs::file_size(path, ec);
  if (ec) return std::nullopt;
  if (size > kMaxFileBytes) {
    report_damaged(path, fmt::format("{} bytes", size));
    return std::nullopt;
  }
  std::ifstream in(path, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return parse(path, text, k);
}

struct Memory {
  std::mutex mutex;
  absl::flat_hash_map<std::string, std::array<int, 3>> choices;  // by identity()
};

Memory& memory() {
  static Memory m;
  return m;
}

}  // namespace

fs::path tuning_file(const TuningKey& k) {
  const fs::path dir = kernel_cache_dir();
  if (dir.empty()) return {};
  return dir / "autotune" / (kernel_cache_key(identity(k)) + ".txt");
}

std::optional<std::array<int, 3>> find_tuning(const TuningKey& k) {
  const std::string id = identity(k);
  {
    std::lock_guard lock(memory().mutex);
    if (auto it = memory().choices.find(id); it != memory().choices.end()) return it->second;
  }
  auto tg = read_file(k);
  if (tg) {
    std::lock_guard lock(memory().mutex);
    memory().choices[id] = *tg;
  }
  return tg;
}

void remember_tuning(const TuningKey& k, const std::array<int, 3>& threadgroup) {
  {
    std::lock_guard lock(memory().mutex);
    memory().choices[identity(k)] = threadgroup;
  }
  if (const fs::path path = tuning_file(k); !path.empty()) {
    write_file_atomically(path, file_text(k, threadgroup));
  }
}

void forget_tunings_in_memory() {
  std::lock_guard lock(memory().mutex);
  memory().choices.clear();
}

}  // namespace mlx_lite::vulkan
