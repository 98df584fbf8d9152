// The baseline of the custom grid_sample kernels: the same GLSL bodies
// (examples/grid_sample_kernels.h) under a hand-written prologue, dispatched
// by a minimal Vulkan program with no framework: buffers allocated once,
// command buffers recorded once, each iteration one submit and one fence wait.
//   build/bench/bench_raw_vulkan_grid_sample [--benchmark_filter=...]
// Shapes as bench_grid_sample: the seed's (x 8x1024x1024x64, grid
// 8x256x256x2, float32) and a small one. The backward zeroes x_grad and
// grid_grad (vkCmdFillBuffer) before the VJP kernel, as init_value=0 does.
#include <benchmark/benchmark.h>
#include <glslang/Public/ResourceLimits.h>
#include <glslang/Public/ShaderLang.h>
#include <glslang/SPIRV/GlslangToSpv.h>

#include <cstring>
#include <memory>
#include <optional>
#include <regex>
#include <stdexcept>
#include <string>
#include <vulkan/vulkan_raii.hpp>

#include "examples/grid_sample_kernels.h"

namespace {

struct Gpu {
  vk::raii::Context context;
  vk::raii::Instance instance{nullptr};
  vk::raii::PhysicalDevice physical{nullptr};
  vk::raii::Device device{nullptr};
  vk::raii::Queue queue{nullptr};
  uint32_t family = 0;
  uint32_t memory_type = 0;
  uint32_t subgroup_size = 0;
  vk::raii::CommandPool pool{nullptr};
  std::string name;

  Gpu() {
    vk::ApplicationInfo app("raw_grid_sample", 1, nullptr, 0, VK_API_VERSION_1_2);
    instance = vk::raii::Instance(context, vk::InstanceCreateInfo({}, &app));
    // A discrete GPU where there is one, as mlx_lite picks.
    vk::raii::PhysicalDevices all(instance);
    size_t pick = 0;
    for (size_t i = 0; i < all.size(); ++i) {
      if (all[i].getProperties().deviceType == vk::PhysicalDeviceType::eDiscreteGpu) {
        pick = i;
        break;
      }
    }
    physical = std::move(all[pick]);
    name = physical.getProperties().deviceName.data();
    subgroup_size =
        physical
            .getProperties2<vk::PhysicalDeviceProperties2, vk::PhysicalDeviceSubgroupProperties>()
            .get<vk::PhysicalDeviceSubgroupProperties>()
            .subgroupSize;
    const auto families = physical.getQueueFamilyProperties();
    while (!(families[family].queueFlags & vk::QueueFlagBits::eCompute)) ++family;
    // Host-visible memory, device-local where the device has such (as
    // mlx_lite's arrays): the host writes the inputs directly.
    const auto mem = physical.getMemoryProperties();
    int best = -1;
    for (uint32_t i = 0; i < mem.memoryTypeCount; ++i) {
      const auto f = mem.memoryTypes[i].propertyFlags;
      const bool host = (f & vk::MemoryPropertyFlagBits::eHostVisible) &&
                        (f & vk::MemoryPropertyFlagBits::eHostCoherent);
      if (!host) continue;
      if (best < 0 || (f & vk::MemoryPropertyFlagBits::eDeviceLocal)) best = static_cast<int>(i);
      if (f & vk::MemoryPropertyFlagBits::eDeviceLocal) break;
    }
    memory_type = static_cast<uint32_t>(best);
    float priority = 1.0f;
    vk::DeviceQueueCreateInfo queue_info({}, family, 1, &priority);
    vk::StructureChain<vk::PhysicalDeviceFeatures2, vk::PhysicalDeviceShaderAtomicFloatFeaturesEXT>
        features;
    features.get<vk::PhysicalDeviceShaderAtomicFloatFeaturesEXT>().shaderBufferFloat32AtomicAdd =
        true;
    const char* extensions[] = {VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME};
    vk::DeviceCreateInfo info({}, queue_info, {}, extensions);
    info.pNext = &features.get<vk::PhysicalDeviceFeatures2>();
    device = vk::raii::Device(physical, info);
    queue = vk::raii::Queue(device, family, 0);
    pool = vk::raii::CommandPool(device, vk::CommandPoolCreateInfo({}, family));
  }
};

Gpu& gpu() {
  static Gpu g;
  return g;
}

struct Buffer {
  vk::raii::Buffer buffer{nullptr};
  vk::raii::DeviceMemory memory{nullptr};
  void* mapped = nullptr;
  size_t bytes = 0;

  explicit Buffer(size_t n) : bytes(n) {
    auto& g = gpu();
    buffer =
        vk::raii::Buffer(g.device, vk::BufferCreateInfo({}, n,
                                                        vk::BufferUsageFlagBits::eStorageBuffer |
                                                            vk::BufferUsageFlagBits::eTransferDst));
    const auto req = buffer.getMemoryRequirements();
    memory = vk::raii::DeviceMemory(g.device, vk::MemoryAllocateInfo(req.size, g.memory_type));
    buffer.bindMemory(*memory, 0);
    mapped = memory.mapMemory(0, n);
  }
  // Values in [lo, hi) from a cheap generator (the inputs' values do not
  // change the kernels' work, only which grid points fall outside).
  void fill_uniform(float lo, float hi, uint32_t seed) {
    auto* p = static_cast<float*>(mapped);
    uint32_t s = seed * 747796405u + 2891336453u;
    for (size_t i = 0; i < bytes / 4; ++i) {
      s = s * 1664525u + 1013904223u;
      p[i] = lo + (hi - lo) * static_cast<float>(s >> 8) / 16777216.0f;
    }
  }
};

std::vector<uint32_t> compile(const std::string& glsl) {
  static bool initialized = glslang::InitializeProcess();
  (void)initialized;
  glslang::TShader shader(EShLangCompute);
  const char* text = glsl.c_str();
  shader.setStrings(&text, 1);
  shader.setEnvInput(glslang::EShSourceGlsl, EShLangCompute, glslang::EShClientVulkan, 100);
  shader.setEnvClient(glslang::EShClientVulkan, glslang::EShTargetVulkan_1_2);
  shader.setEnvTarget(glslang::EShTargetSpv, glslang::EShTargetSpv_1_5);
  const auto messages = static_cast<EShMessages>(EShMsgSpvRules | EShMsgVulkanRules);
  glslang::TProgram program;
  if (!shader.parse(GetDefaultResources(), 450, false, messages)) {
    throw std::runtime_error(std::string(shader.getInfoLog()) + "\n" + glsl);
  }
  program.addShader(&shader);
  if (!program.link(messages)) throw std::runtime_error(program.getInfoLog());
  std::vector<uint32_t> spirv;
  glslang::GlslangToSpv(*program.getIntermediate(EShLangCompute), spirv);
  return spirv;
}

// The body under a prologue that gives it what mlx_lite's generated code
// does: buffers by name, shapes (push constants here), thread attributes,
// helpers; native float atomics.
std::string shader_text(std::string body, const std::vector<std::string>& inputs,
                        const std::vector<std::string>& outputs) {
  // GLSL spellings the generated code accepts and plain GLSL does not.
  body = std::regex_replace(body, std::regex(R"(\bout\b)"), "out_");
  body = std::regex_replace(body, std::regex(R"(atomic_fetch_add_explicit\(\s*&)"), "atomicAdd(");
  body = std::regex_replace(body, std::regex(R"(,\s*memory_order_relaxed\s*\))"), ")");
  std::string s =
      "#version 450\n"
      "#extension GL_KHR_shader_subgroup_arithmetic : require\n"
      "#extension GL_EXT_shader_atomic_float : require\n"
      "layout(local_size_x = 256) in;\n"
      "layout(push_constant) uniform Shapes { int x_shape[4]; int grid_shape[4]; uint threads; "
      "};\n";
  int binding = 0;
  for (const auto& name : inputs) {
    s += "layout(binding = " + std::to_string(binding++) + ") readonly buffer B" + name +
         " { float " + name + "[]; };\n";
  }
  for (auto name : outputs) {
    if (name == "out") name = "out_";
    s += "layout(binding = " + std::to_string(binding++) + ") buffer B" + name + " { float " +
         name + "[]; };\n";
  }
  s += "#define T float\n"
       "#define simd_sum(v) subgroupAdd(v)\n"
       "int ceildiv(int a, int b) { return (a + b - 1) / b; }\n"
       "uint ceildiv(uint a, uint b) { return (a + b - 1u) / b; }\n"
       "void main() {\n"
       "  uvec3 thread_position_in_grid = gl_GlobalInvocationID;\n"
       "  uint thread_index_in_simdgroup = gl_SubgroupInvocationID;\n"
       "  uint threads_per_simdgroup = gl_SubgroupSize;\n"
       "  if (thread_position_in_grid.x >= threads) return;\n" +
       body + "\n}\n";
  return s;
}

struct Kernel {
  vk::raii::DescriptorSetLayout set_layout{nullptr};
  vk::raii::PipelineLayout layout{nullptr};
  vk::raii::Pipeline pipeline{nullptr};
  vk::raii::DescriptorPool pool{nullptr};
  vk::raii::DescriptorSet set{nullptr};

  Kernel(const std::string& glsl, const std::vector<const Buffer*>& buffers) {
    auto& d = gpu().device;
    std::vector<vk::DescriptorSetLayoutBinding> slots;
    for (uint32_t i = 0; i < buffers.size(); ++i) {
      slots.emplace_back(i, vk::DescriptorType::eStorageBuffer, 1,
                         vk::ShaderStageFlagBits::eCompute);
    }
    set_layout = vk::raii::DescriptorSetLayout(d, vk::DescriptorSetLayoutCreateInfo({}, slots));
    vk::PushConstantRange push(vk::ShaderStageFlagBits::eCompute, 0, 36);
    vk::DescriptorSetLayout sl = *set_layout;
    layout = vk::raii::PipelineLayout(d, vk::PipelineLayoutCreateInfo({}, sl, push));
    const auto code = compile(glsl);
    vk::raii::ShaderModule module(d, vk::ShaderModuleCreateInfo({}, code.size() * 4, code.data()));
    vk::PipelineShaderStageCreateInfo stage({}, vk::ShaderStageFlagBits::eCompute, *module, "main");
    pipeline = vk::raii::Pipeline(d, nullptr, vk::ComputePipelineCreateInfo({}, stage, *layout));
    vk::DescriptorPoolSize size(vk::DescriptorType::eStorageBuffer,
                                static_cast<uint32_t>(buffers.size()));
    pool = vk::raii::DescriptorPool(
        d, vk::DescriptorPoolCreateInfo(vk::DescriptorPoolCreateFlagBits::eFreeDescriptorSet, 1,
                                        size));
    set = std::move(vk::raii::DescriptorSets(d, vk::DescriptorSetAllocateInfo(*pool, sl)).front());
    std::vector<vk::DescriptorBufferInfo> infos;
    for (const auto* b : buffers) infos.emplace_back(*b->buffer, 0, VK_WHOLE_SIZE);
    std::vector<vk::WriteDescriptorSet> writes;
    for (uint32_t i = 0; i < infos.size(); ++i) {
      writes.emplace_back(*set, i, 0, 1, vk::DescriptorType::eStorageBuffer, nullptr, &infos[i]);
    }
    d.updateDescriptorSets(writes, {});
  }
};

struct Shapes {
  int x_shape[4];
  int grid_shape[4];
  uint32_t threads;
};

// Records `record` once, then times one submit + fence wait per iteration.
template <typename Record>
void run(benchmark::State& state, Record record) {
  auto& g = gpu();
  auto cb = std::move(
      vk::raii::CommandBuffers(
          g.device, vk::CommandBufferAllocateInfo(*g.pool, vk::CommandBufferLevel::ePrimary, 1))
          .front());
  cb.begin(vk::CommandBufferBeginInfo());
  record(cb);
  cb.end();
  vk::raii::Fence fence(g.device, vk::FenceCreateInfo());
  vk::CommandBuffer handle = *cb;
  for (auto _ : state) {
    g.queue.submit(vk::SubmitInfo({}, {}, handle), *fence);
    (void)g.device.waitForFences(*fence, VK_TRUE, UINT64_MAX);
    g.device.resetFences(*fence);
  }
}

struct Problem {
  int n, h, w, c, gh, gw;
  std::optional<Buffer> x, grid, out, cotangent, x_grad, grid_grad;
  Shapes shapes;

  Problem(int n_, int h_, int w_, int c_, int gh_, int gw_)
      : n(n_), h(h_), w(w_), c(c_), gh(gh_), gw(gw_) {
    const size_t points = size_t(n) * gh * gw;
    x.emplace(size_t(n) * h * w * c * 4);
    grid.emplace(points * 2 * 4);
    out.emplace(points * c * 4);
    cotangent.emplace(points * c * 4);
    x_grad.emplace(size_t(n) * h * w * c * 4);
    grid_grad.emplace(points * 2 * 4);
    x->fill_uniform(-1, 1, 1);
    grid->fill_uniform(-1.1f, 1.1f, 2);
    cotangent->fill_uniform(-1, 1, 3);
    shapes = {{n, h, w, c}, {n, gh, gw, 2}, 0};
  }
};

// The problem of the benchmark's arguments (N, H, W, C, gH, gW), or null,
// the benchmark skipped, where x is larger than one binding can address (as
// mlx_lite's benchmarks skip it).
Problem* problem(benchmark::State& state) {
  static std::unique_ptr<Problem> p;
  auto at = [&](int i) { return static_cast<int>(state.range(i)); };
  const uint64_t x_bytes = uint64_t{4} * at(0) * at(1) * at(2) * at(3);
  if (x_bytes > gpu().physical.getProperties().limits.maxStorageBufferRange) {
    state.SkipWithError("larger than this device's maxStorageBufferRange");
    return nullptr;
  }
  if (!p || p->n != at(0) || p->h != at(1) || p->c != at(3) || p->gh != at(4)) {
    p.reset();  // free the previous shape's buffers first
    p = std::make_unique<Problem>(at(0), at(1), at(2), at(3), at(4), at(5));
  }
  return p.get();
}

// `dispatches` forwards in one submit: 1, or 8 as bench_grid_sample's
// CustomForwardQueued8 records them (no barriers between: its outputs are
// distinct; here they share one buffer, whose contents do not matter to the
// timing).
void forward(benchmark::State& state, int dispatches) {
  Problem* found = problem(state);
  if (!found) return;
  Problem& p = *found;
  Kernel k(shader_text(mlx_lite::examples::kGridSampleForwardSource, {"x", "grid"}, {"out"}),
           {&*p.x, &*p.grid, &*p.out});
  Shapes shapes = p.shapes;
  shapes.threads = static_cast<uint32_t>(size_t(p.n) * p.gh * p.gw * p.c);
  run(state, [&](vk::raii::CommandBuffer& cb) {
    cb.bindPipeline(vk::PipelineBindPoint::eCompute, *k.pipeline);
    cb.bindDescriptorSets(vk::PipelineBindPoint::eCompute, *k.layout, 0, *k.set, {});
    cb.pushConstants<Shapes>(*k.layout, vk::ShaderStageFlagBits::eCompute, 0, shapes);
    for (int i = 0; i < dispatches; ++i) cb.dispatch((shapes.threads + 255) / 256, 1, 1);
  });
}

void BM_RawVulkanGridSampleForward(benchmark::State& state) {
  forward(state, 1);
  state.counters["subgroup"] = gpu().subgroup_size;
}

void BM_RawVulkanGridSampleForwardQueued8(benchmark::State& state) {
  forward(state, 8);
}

void BM_RawVulkanGridSampleVjp(benchmark::State& state) {
  Problem* found = problem(state);
  if (!found) return;
  Problem& p = *found;
  Kernel k(shader_text(mlx_lite::examples::kGridSampleVjpSource, {"x", "grid", "cotangent"},
                       {"x_grad", "grid_grad"}),
           {&*p.x, &*p.grid, &*p.cotangent, &*p.x_grad, &*p.grid_grad});
  const uint32_t sg = gpu().subgroup_size;
  const uint32_t c_padded = (p.c + sg - 1) / sg * sg;
  Shapes shapes = p.shapes;
  shapes.threads = static_cast<uint32_t>(size_t(p.n) * p.gh * p.gw * c_padded);
  run(state, [&](vk::raii::CommandBuffer& cb) {
    cb.fillBuffer(*p.x_grad->buffer, 0, VK_WHOLE_SIZE, 0);
    cb.fillBuffer(*p.grid_grad->buffer, 0, VK_WHOLE_SIZE, 0);
    vk::MemoryBarrier filled(vk::AccessFlagBits::eTransferWrite,
                             vk::AccessFlagBits::eShaderRead | vk::AccessFlagBits::eShaderWrite);
    cb.pipelineBarrier(vk::PipelineStageFlagBits::eTransfer,
                       vk::PipelineStageFlagBits::eComputeShader, {}, filled, {}, {});
    cb.bindPipeline(vk::PipelineBindPoint::eCompute, *k.pipeline);
    cb.bindDescriptorSets(vk::PipelineBindPoint::eCompute, *k.layout, 0, *k.set, {});
    cb.pushConstants<Shapes>(*k.layout, vk::ShaderStageFlagBits::eCompute, 0, shapes);
    cb.dispatch((shapes.threads + 255) / 256, 1, 1);
  });
}

void shapes(benchmark::internal::Benchmark* b) {
  b->Args({8, 1024, 1024, 64, 256, 256})->Args({1, 64, 64, 32, 32, 32});
  b->Unit(benchmark::kMillisecond)->UseRealTime()->MinWarmUpTime(0.05);
}

}  // namespace

BENCHMARK(BM_RawVulkanGridSampleForward)->Apply(shapes);
BENCHMARK(BM_RawVulkanGridSampleForwardQueued8)->Apply(shapes);
BENCHMARK(BM_RawVulkanGridSampleVjp)->Apply(shapes);

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  benchmark::AddCustomContext("gpu", gpu().name);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
