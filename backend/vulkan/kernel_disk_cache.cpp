#include "backend/vulkan/kernel_disk_cache.h"

#include <absl/container/flat_hash_set.h>
#include <fmt/format.h>
#include <glslang/build_info.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <mutex>
#include <random>
#include <spirv-tools/libspirv.hpp>
#include <string_view>

#include "backend/common/log.h"

namespace fs = std::filesystem;

namespace mlx_lite::vulkan {

namespace {

// 64-bit FNV-1a over `parts`, each followed by a separator byte. Any change
// of one byte changes the hash (each step is a bijection of the state).
uint64_t fnv1a(uint64_t h, std::initializer_list<std::string_view> parts) {
  for (std::string_view part : parts) {
    for (unsigned char c : part) h = (h ^ c) * 0x100000001b3ull;
    h = (h ^ 0xff) * 0x100000001b3ull;
  }
  return h;
}

std::string_view bytes_of(const std::vector<uint32_t>& words) {
  return {reinterpret_cast<const char*>(words.data()), words.size() * 4};
}

// An entry: kMagic, a Header, the GLSL's text, then the SPIR-V words. Old
// formats (MLXKSPV1 had no checksum) are not read, only replaced.
constexpr char kMagic[8] = {'M', 'L', 'X', 'K', 'S', 'P', 'V', '2'};
constexpr std::string_view kOldMagic = "MLXKSPV";  // any version before

struct Header {
  uint64_t glsl_bytes;
  uint64_t spirv_words;
  uint64_t checksum;  // fnv1a of the GLSL then the SPIR-V bytes
};

constexpr size_t kPrefix = sizeof(kMagic) + sizeof(Header);
// Generated GLSL and its SPIR-V are kilobytes; a larger file is not an entry.
constexpr uint64_t kMaxEntryBytes = uint64_t{64} << 20;

uint64_t checksum(std::string_view glsl, const std::vector<uint32_t>& spirv) {
  return fnv1a(0xcbf29ce484222325ull, {glsl, bytes_of(spirv)});
}

// Says once per file and process why an entry was not used, and deletes it.
EntryRead reject(const fs::path& path, const std::string& why) {
  static std::mutex mutex;
  static absl::flat_hash_set<std::string> reported;
  std::error_code ec;
  fs::remove(path, ec);
  std::lock_guard lock(mutex);
  if (reported.insert(path.string()).second) {
    logging::warning("kernel cache entry {} is damaged ({}); deleted, the kernel is compiled again",
                     path.string(), why);
  }
  return EntryRead::damaged;
}

}  // namespace

std::string kernel_cache_key(const std::string& glsl) {
  const std::string compiler =
      fmt::format("glslang {}.{}.{} vulkan1.2 spv1.5", GLSLANG_VERSION_MAJOR, GLSLANG_VERSION_MINOR,
                  GLSLANG_VERSION_PATCH);
  return fmt::format("{:016x}{:016x}", fnv1a(0xcbf29ce484222325ull, {compiler, glsl}),
                     fnv1a(0x84222325cbf29ce4ull, {compiler, glsl}));
}

fs::path kernel_cache_dir() {
  if (const char* env = std::getenv("MLX_LITE_KERNEL_CACHE")) {
    const std::string v = env;
    if (v == "off" || v == "0" || v.empty()) return {};
    return v;
  }
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
    return fs::path(xdg) / "mlx_lite" / "kernels";
  }
  if (const char* home = std::getenv("HOME"); home && *home) {
    return fs::path(home) / ".cache" / "mlx_lite" / "kernels";
  }
  return {};
}

std::string spirv_validation_error(const std::vector<uint32_t>& spirv) {
  spvtools::SpirvTools tools(SPV_ENV_VULKAN_1_2);
  std::string error;
  tools.SetMessageConsumer(
      [&](spv_message_level_t, const char*, const spv_position_t& at, const char* message) {
        if (error.empty()) error = fmt::format("word {}: {}", at.index, message);
      });
  if (tools.Validate(spirv)) return "";
  return error.empty() ? "rejected by the SPIR-V validator" : error;
}

EntryRead read_kernel_entry(const fs::path& path, const std::string& glsl,
                            std::vector<uint32_t>& spirv) {
  std::error_code ec;
  const uint64_t size = fs::file_size(path, ec);
  if (ec) return EntryRead::missing;
  if (size > kMaxEntryBytes) return reject(path, fmt::format("{} bytes", size));
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.eof() && !in) return EntryRead::missing;  // unreadable: not ours to delete
  const std::string_view all = bytes;
  if (all.size() < kPrefix) return reject(path, fmt::format("truncated at {} bytes", all.size()));
  if (all.substr(0, sizeof(kMagic)) != std::string_view(kMagic, sizeof(kMagic))) {
    if (all.starts_with(kOldMagic)) return EntryRead::missing;  // an older format's: replaced
    return reject(path, "not a kernel cache entry");
  }
  Header h;
  std::memcpy(&h, all.data() + sizeof(kMagic), sizeof(h));
  const bool sizes_fit = h.glsl_bytes <= kMaxEntryBytes && h.spirv_words <= kMaxEntryBytes / 4;
  if (!sizes_fit || all.size() != kPrefix + h.glsl_bytes + 4 * h.spirv_words) {
    return reject(path, fmt::format("{} bytes; its header says {} of GLSL and {} of SPIR-V",
                                    all.size(), h.glsl_bytes, 4 * h.spirv_words));
  }
  const std::string_view text = all.substr(kPrefix, h.glsl_bytes);
  spirv.resize(h.spirv_words);
  std::memcpy(spirv.data(), all.data() + kPrefix + h.glsl_bytes, 4 * h.spirv_words);
  if (checksum(text, spirv) != h.checksum) return reject(path, "checksum mismatch");
  if (text != glsl) return EntryRead::missing;  // another kernel's of the same key: replaced
  if (auto error = spirv_validation_error(spirv); !error.empty()) {
    return reject(path, "invalid SPIR-V: " + error);
  }
  return EntryRead::hit;
}

void write_kernel_entry(const fs::path& path, const std::string& glsl,
                        const std::vector<uint32_t>& spirv) {
  if (auto error = spirv_validation_error(spirv); !error.empty()) {
    // A reader would reject it: the kernel is compiled in each process instead.
    logging::info("kernel cache: not writing {}: invalid SPIR-V ({})", path.string(), error);
    return;
  }
  const Header h{glsl.size(), spirv.size(), checksum(glsl, spirv)};
  std::string bytes(kMagic, sizeof(kMagic));
  bytes.append(reinterpret_cast<const char*>(&h), sizeof(h));
  bytes.append(glsl);
  bytes.append(bytes_of(spirv));
  write_file_atomically(path, bytes);
}

void write_file_atomically(const fs::path& path, std::string_view bytes) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  std::random_device rd;
  const fs::path tmp = path.string() + fmt::format(".{}.{:x}.tmp", getpid(), rd());
  {
    std::ofstream out(tmp, std::ios::binary);
    if (!out) return;
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) {
      out.close();
      fs::remove(tmp, ec);
      return;
    }
  }
  fs::rename(tmp, path, ec);
  if (ec) fs::remove(tmp, ec);
}

}  // namespace mlx_lite::vulkan
