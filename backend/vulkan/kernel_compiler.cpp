#include "backend/vulkan/kernel_compiler.h"

#include <absl/container/flat_hash_map.h>
#include <fmt/format.h>
#include <glslang/Public/ResourceLimits.h>
#include <glslang/Public/ShaderLang.h>
#include <glslang/SPIRV/GlslangToSpv.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "backend/common/log.h"
#include "backend/vulkan/device.h"
#include "backend/vulkan/kernel_disk_cache.h"
#include "backend/vulkan/kernel_source.h"
#include "backend/vulkan/khr_cooperative_matrix.h"
#include "backend/vulkan/loop_cap.h"
#include "backend/vulkan/matrix_units.h"
#include "backend/vulkan/metal_hints.h"
#include "backend/vulkan/shared_memory.h"
#include "backend/vulkan/spirv_interface.h"

namespace fs = std::filesystem;

namespace mlx_lite::vulkan {

namespace {

// Vulkan guarantees 32 push descriptors (maxPushDescriptors) on every device.
constexpr uint32_t kMaxBindings = 32;
constexpr uint32_t kCapabilityFloat16 = 9;                 // spv::CapabilityFloat16
constexpr uint32_t kCapabilityCooperativeMatrixNV = 5357;  // spv::CapabilityCooperativeMatrixNV

struct Stats {
  std::atomic<size_t> compiled{0}, memory_hits{0}, disk_hits{0}, disk_damaged{0};
};
Stats& stats() {
  static Stats s;
  return s;
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
  static const std::regex quoted(R"(^'([^']*)' : (.*)$)");
  std::set<std::string> hints;  // each once
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
      const std::string message = unmangle_names(m[4]);
      out += fmt::format("\n  {} line {}: {}", where[s], number, message);
      std::string quoted_line;
      if (number >= 1 && number <= texts[s].size()) {
        quoted_line = unmangle_names(texts[s][number - 1]);
        out += fmt::format("\n    | {}", quoted_line);
      }
      std::smatch q;
      const bool has_token = std::regex_match(message, q, quoted);
      const std::string hint = s == 0 ? ""
                                      : metal_hint(has_token ? q[1].str() : "",
                                                   has_token ? q[2].str() : message, quoted_line);
      if (!hint.empty() && hints.insert(hint).second) out += "\n    " + hint;
    } else if (!line.empty() && line.find("compilation errors") == std::string::npos) {
      out += "\n  " + unmangle_names(line);
    }
  }
  return out + "\n(verbose=true prints the generated GLSL.)";
}

void check_shared_bytes(const std::string& kernel_name, uint64_t bytes, std::string_view launch) {
  const auto& device = Device::get();
  if (bytes > device.limits().max_shared_memory) {
    throw std::runtime_error(fmt::format(
        "[vulkan_kernel] Kernel '{}' declares {} bytes of shared memory{}; this device ({}) has "
        "{} bytes per workgroup.",
        kernel_name, bytes, launch, device.name(), device.limits().max_shared_memory));
  }
}

// What the kernel asks of the device, from its SPIR-V.
// Shared memory sized by the workgroup size is checked at each launch instead
// (check_shared_memory).
SharedMemoryUse check_against_device(const std::string& kernel_name,
                                     const std::vector<uint32_t>& spirv) {
  const SpirvInterface interface = read_spirv_interface(spirv);
  const auto& device = Device::get();
  const SharedMemoryUse shared = shared_memory_use(kernel_name, spirv, {1, 1, 1});
  if (!shared.depends_on_threadgroup) check_shared_bytes(kernel_name, shared.bytes, "");
  const uint32_t bindings = interface.bindings;
  if (bindings > kMaxBindings) {
    throw std::runtime_error(fmt::format(
        "[vulkan_kernel] Kernel '{}' has {} buffers (inputs, outputs and the metadata); at most "
        "{} can be bound.",
        kernel_name, bindings, kMaxBindings));
  }
  for (auto capability : interface.capabilities) {
    if (capability == kCapabilityFloat16 && !device.float16()) {
      throw std::runtime_error(fmt::format(
          "[vulkan_kernel] Kernel '{}' computes in float16_t, which this device ({}) cannot "
          "(no shaderFloat16): load float16 values into float.",
          kernel_name, device.name()));
    }
  }
  return shared;
}

// Whether `spirv` uses NV cooperative matrices where this device's float16
// matrices are KHR ones (matrix_units.h): the disk cache keeps what glslang
// wrote, and the translation is redone as the kernel is loaded.
bool needs_khr_translation(const std::vector<uint32_t>& spirv) {
  if (float16_matrix_extension(Device::get()) != MatrixExtension::khr) return false;
  const auto capabilities = read_spirv_interface(spirv).capabilities;
  return std::ranges::find(capabilities, kCapabilityCooperativeMatrixNV) != capabilities.end();
}

// Compiled kernels by key, least recently used evicted past the limit.
struct MemoryCache {
  struct Entry {
    std::shared_ptr<const CompiledKernel> kernel;
    uint64_t used;  // the clock at its last lookup
  };
  std::mutex mutex;
  absl::flat_hash_map<std::string, Entry> entries;
  uint64_t clock = 0;
  size_t limit = kDefaultKernelCacheLimit;

  // Under the lock; a scan, but only after a compile or disk read, which take
  // far longer.
  void evict() {
    while (entries.size() > limit) {
      auto oldest = entries.begin();
      for (auto it = entries.begin(); it != entries.end(); ++it) {
        if (it->second.used < oldest->second.used) oldest = it;
      }
      entries.erase(oldest);
    }
  }
};

MemoryCache& memory_cache() {
  static MemoryCache* m = new MemoryCache();  // lives until exit, as the pipelines
  return *m;
}

// On a device that caps loops (llvmpipe): says so once (at info level), and warns of a
// kernel whose loop is bounded by a constant past the cap.
void check_loop_bounds(const std::string& kernel_name, const std::vector<uint32_t>& spirv) {
  const uint64_t cap = device_loop_cap();
  if (cap == 0) return;
  note_loop_cap(/*verbose=*/false);
  if (const uint64_t bound = largest_constant_loop_bound(spirv); bound > cap) {
    logging::warning(
        "kernel '{}' has a loop bounded by {}; this device ({}) stops a shader invocation after "
        "{} loop iterations in total, without an error, so if the loop runs that often its "
        "result is wrong: split the work across more threads (docs/custom_kernels.md)",
        kernel_name, bound, Device::get().name(), cap);
  }
}

}  // namespace

std::vector<uint32_t> glsl_to_spirv(const std::string& kernel_name, const std::string& glsl,
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

std::shared_ptr<const CompiledKernel> compile_kernel(const std::string& kernel_name,
                                                     const std::string& glsl,
                                                     const std::string& header,
                                                     const std::string& source,
                                                     uint32_t required_subgroup_size) {
  MemoryCache& memory = memory_cache();
  const std::string key = kernel_cache_key(glsl);
  std::lock_guard lock(memory.mutex);
  if (auto it = memory.entries.find(key); it != memory.entries.end()) {
    ++stats().memory_hits;
    it->second.used = ++memory.clock;
    logging::debug("kernel '{}' shares the compiled code of an identical source", kernel_name);
    return it->second.kernel;
  }
  std::vector<uint32_t> spirv;
  const fs::path dir = kernel_cache_dir();
  const auto start = std::chrono::steady_clock::now();
  const EntryRead read =
      dir.empty() ? EntryRead::missing : read_kernel_entry(dir / (key + ".spv"), glsl, spirv);
  if (read == EntryRead::damaged) ++stats().disk_damaged;
  if (read == EntryRead::hit) {
    ++stats().disk_hits;
    logging::info("kernel '{}' loaded from the disk cache ({}) in {:.1f} ms", kernel_name,
                  dir.string(), logging::ms_since(start));
  } else {
    spirv = glsl_to_spirv(kernel_name, glsl, header, source);
    ++stats().compiled;
    logging::info("kernel '{}' compiled in {:.1f} ms", kernel_name, logging::ms_since(start));
    if (!dir.empty()) write_kernel_entry(dir / (key + ".spv"), glsl, spirv);
  }
  if (needs_khr_translation(spirv)) spirv = translate_to_khr_cooperative_matrix(spirv);
  const SharedMemoryUse shared = check_against_device(kernel_name, spirv);
  check_loop_bounds(kernel_name, spirv);
  auto kernel = std::make_shared<const CompiledKernel>(kernel_name, std::move(spirv), shared,
                                                       required_subgroup_size);
  memory.entries.insert_or_assign(key, MemoryCache::Entry{kernel, ++memory.clock});
  memory.evict();
  return kernel;
}

void check_shared_memory(const std::string& kernel_name, const CompiledKernel& kernel,
                         const std::array<uint32_t, 3>& threadgroup) {
  if (!kernel.shared_memory.depends_on_threadgroup) return;  // checked when compiled
  uint64_t bytes;
  {
    std::lock_guard lock(kernel.shared_by_threadgroup_mutex);
    auto [it, added] = kernel.shared_by_threadgroup.try_emplace(threadgroup, 0);
    if (added) it->second = shared_memory_use(kernel_name, kernel.spirv, threadgroup).bytes;
    bytes = it->second;
  }
  check_shared_bytes(
      kernel_name, bytes,
      fmt::format(" at threadgroup ({}, {}, {})", threadgroup[0], threadgroup[1], threadgroup[2]));
}

fast::KernelCacheStats kernel_cache_stats() {
  size_t cached;
  {
    std::lock_guard lock(memory_cache().mutex);
    cached = memory_cache().entries.size();
  }
  return {.compiled = stats().compiled.load(),
          .memory_hits = stats().memory_hits.load(),
          .disk_hits = stats().disk_hits.load(),
          .disk_damaged = stats().disk_damaged.load(),
          .kernels_cached = cached,
          .pipelines_cached = runtime_pipelines_cached()};
}

size_t set_kernel_cache_limit(size_t entries) {
  set_runtime_pipeline_limit(entries);
  std::lock_guard lock(memory_cache().mutex);
  const size_t old = std::exchange(memory_cache().limit, entries);
  memory_cache().evict();
  return old;
}

void clear_kernel_caches() {
  {
    std::lock_guard lock(memory_cache().mutex);
    memory_cache().entries.clear();
  }
  clear_runtime_pipelines();
}

}  // namespace mlx_lite::vulkan
