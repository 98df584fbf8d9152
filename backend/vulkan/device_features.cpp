#include "backend/vulkan/device_features.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace mlx_lite::vulkan {

namespace {

bool has(const std::vector<std::string>& extensions, const char* name) {
  return std::ranges::find(extensions, name) != extensions.end();
}

// A VkComponentTypeKHR (VkComponentTypeNV's values are the same).
std::string component_name(uint32_t t) {
  static constexpr const char* kNames[] = {"float16", "float32", "float64", "int8",
                                           "int16",   "int32",   "int64",   "uint8",
                                           "uint16",  "uint32",  "uint64"};
  if (t < std::size(kNames)) return kNames[t];
  return t == kComponentTypeBfloat16Khr ? "bfloat16" : fmt::format("component type {}", t);
}

void read_subgroups(const vk::raii::PhysicalDevice& physical, bool size_control,
                    DeviceFeatures& f) {
  auto props =
      physical
          .getProperties2<vk::PhysicalDeviceProperties2, vk::PhysicalDeviceSubgroupProperties>();
  const auto& sub = props.get<vk::PhysicalDeviceSubgroupProperties>();
  f.subgroup_size = f.min_subgroup_size = f.max_subgroup_size = sub.subgroupSize;
  f.subgroup_operations = sub.supportedOperations;
  if (!size_control) return;
  auto control = physical.getProperties2<vk::PhysicalDeviceProperties2,
                                         vk::PhysicalDeviceSubgroupSizeControlPropertiesEXT>();
  const auto& c = control.get<vk::PhysicalDeviceSubgroupSizeControlPropertiesEXT>();
  auto features = physical.getFeatures2<vk::PhysicalDeviceFeatures2,
                                        vk::PhysicalDeviceSubgroupSizeControlFeaturesEXT>();
  f.min_subgroup_size = c.minSubgroupSize;
  f.max_subgroup_size = c.maxSubgroupSize;
  f.require_subgroup_32 =
      features.get<vk::PhysicalDeviceSubgroupSizeControlFeaturesEXT>().subgroupSizeControl &&
      c.minSubgroupSize <= 32 && c.maxSubgroupSize >= 32 &&
      static_cast<bool>(c.requiredSubgroupSizeStages & vk::ShaderStageFlagBits::eCompute) &&
      // Every threadgroup must fit in subgroups of 32.
      c.maxComputeWorkgroupSubgroups * 32 >=
          physical.getProperties().limits.maxComputeWorkGroupInvocations;
}

void read_atomics(const vk::raii::PhysicalDevice& physical, bool atomic_float, bool atomic_float2,
                  DeviceFeatures& f) {
  if (atomic_float) {
    auto chain = physical.getFeatures2<vk::PhysicalDeviceFeatures2,
                                       vk::PhysicalDeviceShaderAtomicFloatFeaturesEXT>();
    const auto& a = chain.get<vk::PhysicalDeviceShaderAtomicFloatFeaturesEXT>();
    f.float32_atomic_add = a.shaderBufferFloat32AtomicAdd;
    f.float32_atomics = a.shaderBufferFloat32Atomics;
    f.shared_float32_atomic_add = a.shaderSharedFloat32AtomicAdd;
    f.shared_float32_atomics = a.shaderSharedFloat32Atomics;
  }
  if (atomic_float2) {
    auto chain = physical.getFeatures2<vk::PhysicalDeviceFeatures2,
                                       vk::PhysicalDeviceShaderAtomicFloat2FeaturesEXT>();
    const auto& a = chain.get<vk::PhysicalDeviceShaderAtomicFloat2FeaturesEXT>();
    f.float32_atomic_min_max = a.shaderBufferFloat32AtomicMinMax;
    f.float16_atomic_add = a.shaderBufferFloat16AtomicAdd;
  }
}

void read_cooperative_matrix(const vk::raii::PhysicalDevice& physical, DeviceFeatures& f) {
  auto chain = physical.getFeatures2<vk::PhysicalDeviceFeatures2,
                                     vk::PhysicalDeviceCooperativeMatrixFeaturesNV>();
  f.cooperative_matrix =
      chain.get<vk::PhysicalDeviceCooperativeMatrixFeaturesNV>().cooperativeMatrix;
  if (!f.cooperative_matrix) return;
  for (const auto& p : physical.getCooperativeMatrixPropertiesNV()) {
    if (p.scope != vk::ScopeNV::eSubgroup) continue;
    auto name = [](vk::ComponentTypeNV t) { return component_name(static_cast<uint32_t>(t)); };
    f.cooperative_matrix_shapes.push_back(
        {p.MSize, p.NSize, p.KSize, name(p.AType), name(p.BType), name(p.CType), name(p.DType)});
  }
}

// The list a Vulkan count-then-fill query `get` returns for `physical`
// (empty where it fails); T's default sType and pNext are the query's.
template <class T, class Get>
std::vector<T> enumerate(Get get, VkPhysicalDevice physical) {
  uint32_t count = 0;
  if (get(physical, &count, nullptr) != VK_SUCCESS) return {};
  std::vector<T> items(count);
  if (count > 0 && get(physical, &count, items.data()) != VK_SUCCESS) return {};
  items.resize(count);
  return items;
}

// VK_KHR_cooperative_matrix and VK_KHR_shader_bfloat16 through the
// structures of vulkan_khr_matrix.h (vulkan.hpp 1.3.239 has neither).
void read_khr_cooperative_matrix(const vk::raii::Instance& instance,
                                 const vk::raii::PhysicalDevice& physical, bool bfloat16,
                                 DeviceFeatures& f) {
  PhysicalDeviceCooperativeMatrixFeaturesKhrMlx matrix;
  PhysicalDeviceShaderBfloat16FeaturesKhrMlx bf16;
  if (bfloat16) matrix.pNext = &bf16;
  VkPhysicalDeviceFeatures2 features{};
  features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  features.pNext = &matrix;
  physical.getDispatcher()->vkGetPhysicalDeviceFeatures2(*physical, &features);
  f.khr_cooperative_matrix = matrix.cooperativeMatrix;
  f.bfloat16_cooperative_matrix =
      bfloat16 && bf16.shaderBFloat16Type && bf16.shaderBFloat16CooperativeMatrix;
  const auto get = reinterpret_cast<GetCooperativeMatrixPropertiesKhrMlx>(
      instance.getProcAddr("vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR"));
  if (!f.khr_cooperative_matrix || get == nullptr) {
    f.khr_cooperative_matrix = false;
    return;
  }
  for (const auto& p : enumerate<CooperativeMatrixPropertiesKhrMlx>(get, *physical)) {
    if (p.scope != kScopeSubgroupKhr || p.saturatingAccumulation) continue;
    f.khr_cooperative_matrix_shapes.push_back({p.MSize, p.NSize, p.KSize, component_name(p.AType),
                                               component_name(p.BType), component_name(p.CType),
                                               component_name(p.ResultType)});
  }
}

// VK_NV_cooperative_matrix2's workgroup-scope matrices of flexible
// dimensions, through vulkan_khr_matrix.h's structures.
void read_workgroup_cooperative_matrix(const vk::raii::Instance& instance,
                                       const vk::raii::PhysicalDevice& physical,
                                       DeviceFeatures& f) {
  PhysicalDeviceCooperativeMatrix2FeaturesNvMlx matrix2;
  VkPhysicalDeviceFeatures2 features{};
  features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  features.pNext = &matrix2;
  physical.getDispatcher()->vkGetPhysicalDeviceFeatures2(*physical, &features);
  PhysicalDeviceCooperativeMatrix2PropertiesNvMlx limits;
  VkPhysicalDeviceProperties2 properties{};
  properties.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
  properties.pNext = &limits;
  physical.getDispatcher()->vkGetPhysicalDeviceProperties2(*physical, &properties);
  const auto get = reinterpret_cast<GetCooperativeMatrixFlexibleDimensionsPropertiesNvMlx>(
      instance.getProcAddr("vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV"));
  if (!matrix2.cooperativeMatrixWorkgroupScope || !matrix2.cooperativeMatrixFlexibleDimensions ||
      get == nullptr) {
    return;
  }
  for (const auto& p :
       enumerate<CooperativeMatrixFlexibleDimensionsPropertiesNvMlx>(get, *physical)) {
    if (p.scope != kScopeWorkgroupKhr || p.saturatingAccumulation) continue;
    f.workgroup_cooperative_matrix_shapes.push_back(
        {p.MGranularity, p.NGranularity, p.KGranularity, component_name(p.AType),
         component_name(p.BType), component_name(p.CType), component_name(p.ResultType),
         p.workgroupInvocations});
  }
  f.workgroup_cooperative_matrix = !f.workgroup_cooperative_matrix_shapes.empty();
  f.workgroup_matrix_max_dimension = limits.cooperativeMatrixFlexibleDimensionsMaxDimension;
  f.workgroup_matrix_reserved_shared_memory =
      limits.cooperativeMatrixWorkgroupScopeReservedSharedMemory;
}

}  // namespace

DeviceFeatures read_device_features(const vk::raii::Instance& instance,
                                    const vk::raii::PhysicalDevice& physical,
                                    const std::vector<std::string>& extensions) {
  DeviceFeatures f;
  read_subgroups(physical, has(extensions, VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME), f);
  auto core =
      physical.getFeatures2<vk::PhysicalDeviceFeatures2, vk::PhysicalDeviceVulkan12Features>();
  const auto& f12 = core.get<vk::PhysicalDeviceVulkan12Features>();
  f.float16 = f12.shaderFloat16;
  f.float64 = core.get<vk::PhysicalDeviceFeatures2>().features.shaderFloat64;
  f.pipeline_statistics = has(extensions, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
  f.subgroup_extended_types = f12.shaderSubgroupExtendedTypes;
  f.int64_atomics = f12.shaderBufferInt64Atomics;
  f.shared_int64_atomics = f12.shaderSharedInt64Atomics;
  f.vulkan_memory_model = f12.vulkanMemoryModel && f12.vulkanMemoryModelDeviceScope;
  f.host_query_reset = f12.hostQueryReset;
  read_atomics(physical, has(extensions, VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME),
               has(extensions, VK_EXT_SHADER_ATOMIC_FLOAT_2_EXTENSION_NAME), f);
  if (has(extensions, VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME)) {
    read_cooperative_matrix(physical, f);
  }
  if (has(extensions, kKhrCooperativeMatrixExtension)) {
    read_khr_cooperative_matrix(instance, physical, has(extensions, kKhrShaderBfloat16Extension),
                                f);
  }
  if (f.khr_cooperative_matrix && has(extensions, kNvCooperativeMatrix2Extension)) {
    read_workgroup_cooperative_matrix(instance, physical, f);
  }
  return f;
}

FeatureEnables::FeatureEnables(const DeviceFeatures& f,
                               const std::vector<std::string>& device_extensions,
                               bool khr_matrices) {
  auto& f10 = chain_.get<vk::PhysicalDeviceFeatures2>().features;
  f10.setShaderInt64(true).setShaderInt16(true).setShaderFloat64(f.float64);
  chain_.get<vk::PhysicalDeviceVulkan11Features>().storageBuffer16BitAccess = true;
  chain_.get<vk::PhysicalDeviceVulkan12Features>()
      .setStorageBuffer8BitAccess(true)
      .setShaderInt8(true)
      .setTimelineSemaphore(true)
      .setShaderFloat16(f.float16)
      .setShaderSubgroupExtendedTypes(f.subgroup_extended_types)
      .setShaderBufferInt64Atomics(f.int64_atomics)
      .setShaderSharedInt64Atomics(f.shared_int64_atomics)
      .setVulkanMemoryModel(f.vulkan_memory_model)
      .setVulkanMemoryModelDeviceScope(f.vulkan_memory_model)
      .setHostQueryReset(f.host_query_reset);
  extensions_.push_back(VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
  auto enable = [&](const char* name) {
    const bool present = has(device_extensions, name);
    if (present) extensions_.push_back(name);
    return present;
  };
  if (enable(VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME)) {
    chain_.get<vk::PhysicalDeviceShaderAtomicFloatFeaturesEXT>()
        .setShaderBufferFloat32AtomicAdd(f.float32_atomic_add)
        .setShaderBufferFloat32Atomics(f.float32_atomics)
        .setShaderSharedFloat32AtomicAdd(f.shared_float32_atomic_add)
        .setShaderSharedFloat32Atomics(f.shared_float32_atomics);
  } else {
    chain_.unlink<vk::PhysicalDeviceShaderAtomicFloatFeaturesEXT>();
  }
  if (enable(VK_EXT_SHADER_ATOMIC_FLOAT_2_EXTENSION_NAME)) {
    chain_.get<vk::PhysicalDeviceShaderAtomicFloat2FeaturesEXT>()
        .setShaderBufferFloat32AtomicMinMax(f.float32_atomic_min_max)
        .setShaderBufferFloat16AtomicAdd(f.float16_atomic_add);
  } else {
    chain_.unlink<vk::PhysicalDeviceShaderAtomicFloat2FeaturesEXT>();
  }
  if (f.require_subgroup_32 && enable(VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME)) {
    chain_.get<vk::PhysicalDeviceSubgroupSizeControlFeaturesEXT>().subgroupSizeControl = true;
  } else {
    chain_.unlink<vk::PhysicalDeviceSubgroupSizeControlFeaturesEXT>();
  }
  if (f.cooperative_matrix && enable(VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME)) {
    chain_.get<vk::PhysicalDeviceCooperativeMatrixFeaturesNV>().cooperativeMatrix = true;
  } else {
    chain_.unlink<vk::PhysicalDeviceCooperativeMatrixFeaturesNV>();
  }
  if (f.pipeline_statistics && enable(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME)) {
    chain_.get<vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR>().pipelineExecutableInfo =
        true;
  } else {
    chain_.unlink<vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR>();
  }
  if (khr_matrices && f.khr_cooperative_matrix && enable(kKhrCooperativeMatrixExtension)) {
    khr_matrix_.cooperativeMatrix = VK_TRUE;
    link_at_end(&khr_matrix_);
  }
  if (khr_matrices && f.khr_cooperative_matrix && f.bfloat16_cooperative_matrix &&
      enable(kKhrShaderBfloat16Extension)) {
    bfloat16_.shaderBFloat16Type = VK_TRUE;
    bfloat16_.shaderBFloat16CooperativeMatrix = VK_TRUE;
    link_at_end(&bfloat16_);
  }
  if (khr_matrices && f.khr_cooperative_matrix && f.workgroup_cooperative_matrix &&
      enable(kNvCooperativeMatrix2Extension)) {
    matrix2_.cooperativeMatrixWorkgroupScope = VK_TRUE;
    matrix2_.cooperativeMatrixFlexibleDimensions = VK_TRUE;
    link_at_end(&matrix2_);
  }
}

void FeatureEnables::link_at_end(void* structure) {
  auto* s = reinterpret_cast<VkBaseOutStructure*>(&chain_.get<vk::PhysicalDeviceFeatures2>());
  while (s->pNext != nullptr) s = s->pNext;
  s->pNext = static_cast<VkBaseOutStructure*>(structure);
}

std::string describe_cooperative_matrix(const std::vector<CooperativeMatrixShape>& shapes) {
  if (shapes.empty()) return "none";
  std::string s;
  for (const auto& c : shapes) {
    s += fmt::format("{}{}{}x{}x{} {}*{}+{}->{}", s.empty() ? "" : ", ",
                     c.invocations > 0 ? "granules of " : "", c.m, c.n, c.k, c.a, c.b, c.c,
                     c.result);
    if (c.invocations > 0) s += fmt::format(" with {} threads", c.invocations);
  }
  return s;
}

}  // namespace mlx_lite::vulkan
