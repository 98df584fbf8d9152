#include "backend/vulkan/kernel_compiler.h"

#include <absl/container/flat_hash_map.h>
#include <fmt/format.h>
#include <glslang/Public/ResourceLimits.h>
#include <glslang/Public/ShaderLang.h>
#include <glslang/SPIRV/GlslangToSpv.h>
#include <glslang/build_info.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <regex>
#include <spirv_cross.hpp>
#include <sstream>
#include <stdexcept>

#include "backend/common/log.h"
#include "backend/vulkan/device.h"
#include "backend/vulkan/kernel_source.h"

namespace fs = std::filesystem;

namespace mlx_lite::vulkan {

namespace {

// Vulkan guarantees 32 push descriptors (maxPushDescriptors) on every device.
constexpr uint32_t kMaxBindings = 32;

struct Stats {
  std::atomic<size_t> compiled{0}, memory_hits{0}, disk_hits{0};
};
Stats& stats() {
  static Stats s;
  return s;
}

// The cache key: two 64-bit FNV-1a hashes of the GLSL and the compiler's
// version. A hash that collides still finds no wrong code: entries on disk
// hold their GLSL, which must match.
std::string cache_key(const std::string& glsl) {
  const std::string compiler =
      fmt::format("glslang {}.{}.{} vulkan1.2 spv1.5", GLSLANG_VERSION_MAJOR, GLSLANG_VERSION_MINOR,
                  GLSLANG_VERSION_PATCH);
  auto fnv = [&](uint64_t h) {
    for (const std::string* s : {&compiler, &glsl}) {
      for (unsigned char c : *s) h = (h ^ c) * 0x100000001b3ull;
      h = (h ^ 0xff) * 0x100000001b3ull;
    }
    return h;
  };
  return fmt::format("{:016x}{:016x}", fnv(0xcbf29ce484222325ull), fnv(0x84222325cbf29ce4ull));
}

// The disk cache's directory, or empty when it is off.
fs::path cache_dir() {
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

constexpr char kMagic[8] = {'M', 'L', 'X', 'K', 'S', 'P', 'V', '1'};

// An entry is the magic, the GLSL's length and text, then the SPIR-V words.
bool read_entry(const fs::path& path, const std::string& glsl, std::vector<uint32_t>& spirv) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  char magic[8];
  uint64_t length = 0;
  if (!in.read(magic, 8) || std::memcmp(magic, kMagic, 8) != 0) return false;
  if (!in.read(reinterpret_cast<char*>(&length), 8) || length != glsl.size()) return false;
  std::string text(length, '\0');
  if (!in.read(text.data(), static_cast<std::streamsize>(length)) || text != glsl) return false;
  std::vector<char> rest((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (rest.empty() || rest.size() % 4 != 0) return false;
  spirv.resize(rest.size() / 4);
  std::memcpy(spirv.data(), rest.data(), rest.size());
  return spirv[0] == 0x07230203u;  // SPIR-V's magic number
}

// Written to a file of its own, then renamed into place: processes sharing
// the directory see whole entries or none.
void write_entry(const fs::path& path, const std::string& glsl,
                 const std::vector<uint32_t>& spirv) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  std::random_device rd;
  const fs::path tmp = path.string() + fmt::format(".{}.{:x}.tmp", getpid(), rd());
  {
    std::ofstream out(tmp, std::ios::binary);
    if (!out) return;  // an unwritable cache only costs a compile next time
    const uint64_t length = glsl.size();
    out.write(kMagic, 8);
    out.write(reinterpret_cast<const char*>(&length), 8);
    out.write(glsl.data(), static_cast<std::streamsize>(length));
    out.write(reinterpret_cast<const char*>(spirv.data()),
              static_cast<std::streamsize>(spirv.size() * 4));
    if (!out) {
      out.close();
      fs::remove(tmp, ec);
      return;
    }
  }
  fs::rename(tmp, path, ec);
  if (ec) fs::remove(tmp, ec);
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// glslang's "ERROR: S:L: message" lines, with S:L turned into the user's
// header or source line and that line quoted.
std::string explain_log(const std::string& kernel_name, const std::string& log,
                        const std::string& glsl, const std::string& header,
                        const std::string& source) {
  static const std::regex located(R"(^(ERROR|WARNING): (\d+):(\d+): (.*)$)");
  const std::vector<std::string> texts[3] = {split_lines(glsl), split_lines(header),
                                             split_lines(source)};
  const char* where[3] = {"generated code", "header", "source"};
  std::string out = fmt::format("[vulkan_kernel] Kernel '{}' does not compile:", kernel_name);
  for (const auto& line : split_lines(log)) {
    std::smatch m;
    if (line.find("compilation terminated") != std::string::npos) continue;  // says nothing
    if (std::regex_match(line, m, located)) {
      const int string = std::stoi(m[2]);
      const size_t number = std::stoul(m[3]);
      const int s = string >= 0 && string <= 2 ? string : 0;
      out += fmt::format("\n  {} line {}: {}", where[s], number, unmangle_names(m[4]));
      if (number >= 1 && number <= texts[s].size()) {
        out += fmt::format("\n    | {}", unmangle_names(texts[s][number - 1]));
      }
    } else if (!line.empty() && line.find("compilation errors") == std::string::npos) {
      out += "\n  " + unmangle_names(line);
    }
  }
  return out + "\n(verbose=true prints the generated GLSL.)";
}

std::vector<uint32_t> glslang_compile(const std::string& kernel_name, const std::string& glsl,
                                      const std::string& header, const std::string& source) {
  static std::once_flag once;
  std::call_once(once, [] { glslang::InitializeProcess(); });
  glslang::TShader shader(EShLangCompute);
  const char* text = glsl.c_str();
  shader.setStrings(&text, 1);
  shader.setEnvInput(glslang::EShSourceGlsl, EShLangCompute, glslang::EShClientVulkan, 100);
  shader.setEnvClient(glslang::EShClientVulkan, glslang::EShTargetVulkan_1_2);
  shader.setEnvTarget(glslang::EShTargetSpv, glslang::EShTargetSpv_1_5);
  const auto messages = static_cast<EShMessages>(EShMsgSpvRules | EShMsgVulkanRules);
  if (!shader.parse(GetDefaultResources(), 450, false, messages)) {
    throw std::runtime_error(explain_log(kernel_name, shader.getInfoLog(), glsl, header, source));
  }
  glslang::TProgram program;
  program.addShader(&shader);
  if (!program.link(messages)) {
    throw std::runtime_error(explain_log(kernel_name, program.getInfoLog(), glsl, header, source));
  }
  std::vector<uint32_t> spirv;
  glslang::SpvOptions options;
  options.disableOptimizer = true;  // drivers optimize; glslang's optimizer is not built in
  glslang::GlslangToSpv(*program.getIntermediate(EShLangCompute), spirv, &options);
  return spirv;
}

uint64_t type_bytes(const spirv_cross::Compiler& c, const spirv_cross::SPIRType& type) {
  uint64_t bytes;
  if (type.basetype == spirv_cross::SPIRType::Struct) {
    bytes = 0;
    for (auto member : type.member_types) bytes += type_bytes(c, c.get_type(member));
  } else {
    bytes = uint64_t{type.width} / 8 * type.vecsize * type.columns;
  }
  for (size_t i = 0; i < type.array.size(); ++i) {
    const uint64_t n =
        type.array_size_literal[i] ? type.array[i] : c.get_constant(type.array[i]).scalar();
    bytes *= std::max<uint64_t>(n, 1);
  }
  return bytes;
}

// What the kernel asks of the device, from its SPIR-V.
uint32_t check_against_device(const std::string& kernel_name, const std::vector<uint32_t>& spirv) {
  spirv_cross::Compiler reflect(spirv);
  const auto& device = Device::get();
  uint64_t shared = 0;
  for (auto id :
       reflect.get_entry_point("main", spv::ExecutionModelGLCompute).interface_variables) {
    if (reflect.get_storage_class(id) == spv::StorageClassWorkgroup) {
      shared += type_bytes(reflect, reflect.get_type_from_variable(id));
    }
  }
  if (shared > device.limits().max_shared_memory) {
    throw std::runtime_error(fmt::format(
        "[vulkan_kernel] Kernel '{}' declares {} bytes of shared memory; this device ({}) has "
        "{} bytes per workgroup.",
        kernel_name, shared, device.name(), device.limits().max_shared_memory));
  }
  uint32_t bindings = 0;
  for (const auto& buffer : reflect.get_shader_resources().storage_buffers) {
    bindings = std::max(bindings, reflect.get_decoration(buffer.id, spv::DecorationBinding) + 1);
  }
  if (bindings > kMaxBindings) {
    throw std::runtime_error(fmt::format(
        "[vulkan_kernel] Kernel '{}' has {} buffers (inputs, outputs and the metadata); at most "
        "{} can be bound.",
        kernel_name, bindings, kMaxBindings));
  }
  for (auto capability : reflect.get_declared_capabilities()) {
    if (capability == spv::CapabilityFloat16 && !device.float16()) {
      throw std::runtime_error(fmt::format(
          "[vulkan_kernel] Kernel '{}' computes in float16_t, which this device ({}) cannot "
          "(no shaderFloat16): load float16 values into float.",
          kernel_name, device.name()));
    }
  }
  return static_cast<uint32_t>(shared);
}

}  // namespace

std::shared_ptr<const CompiledKernel> compile_kernel(const std::string& kernel_name,
                                                     const std::string& glsl,
                                                     const std::string& header,
                                                     const std::string& source) {
  static std::mutex mutex;
  static absl::flat_hash_map<std::string, std::shared_ptr<const CompiledKernel>> memory;
  const std::string key = cache_key(glsl);
  std::lock_guard lock(mutex);
  if (auto it = memory.find(key); it != memory.end()) {
    ++stats().memory_hits;
    log::debug("kernel '{}' shares the compiled code of an identical source", kernel_name);
    return it->second;
  }
  std::vector<uint32_t> spirv;
  const fs::path dir = cache_dir();
  const auto start = std::chrono::steady_clock::now();
  if (!dir.empty() && read_entry(dir / (key + ".spv"), glsl, spirv)) {
    ++stats().disk_hits;
    log::info("kernel '{}' loaded from the disk cache ({}) in {:.1f} ms", kernel_name, dir.string(),
              log::ms_since(start));
  } else {
    spirv = glslang_compile(kernel_name, glsl, header, source);
    ++stats().compiled;
    log::info("kernel '{}' compiled in {:.1f} ms", kernel_name, log::ms_since(start));
    if (!dir.empty()) write_entry(dir / (key + ".spv"), glsl, spirv);
  }
  const uint32_t shared = check_against_device(kernel_name, spirv);
  auto kernel = std::make_shared<const CompiledKernel>(kernel_name, std::move(spirv), shared);
  memory.emplace(key, kernel);
  return kernel;
}

fast::KernelCacheStats kernel_cache_stats() {
  return {stats().compiled.load(), stats().memory_hits.load(), stats().disk_hits.load()};
}

}  // namespace mlx_lite::vulkan
