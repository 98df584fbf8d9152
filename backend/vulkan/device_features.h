// The optional Vulkan features a device has, which Device enables at
// creation so that custom kernels can use them (float16 arithmetic, subgroup
// extended types, 64-bit and float atomics, subgroup size control,
// cooperative matrices, the Vulkan memory model), and what each means to a
// kernel's #extension lines.
#pragma once

#include <cstdint>
#include <string>
#include <vector>
#include <vulkan/vulkan_raii.hpp>

#include "backend/vulkan/vulkan_khr_matrix.h"

namespace mlx_lite::vulkan {

// One shape the device's matrix units multiply (VK_NV_cooperative_matrix or
// VK_KHR_cooperative_matrix): an M x K A times a K x N B plus an M x N C.
// For VK_NV_cooperative_matrix2's workgroup-scope matrices, m, n and k are
// granularities (any multiple multiplies) and `invocations` the workgroup
// size they need.
struct CooperativeMatrixShape {
  uint32_t m, n, k;
  std::string a, b, c, result;  // component types: "float16", "float32", "int8", ...
  uint32_t invocations = 0;
};

struct DeviceFeatures {
  uint32_t subgroup_size = 0;  // the default (vkPhysicalDeviceSubgroupProperties)
  uint32_t min_subgroup_size = 0, max_subgroup_size = 0;
  // A compute pipeline may require subgroups of 32 (VK_EXT_subgroup_size_control).
  bool require_subgroup_32 = false;
  vk::SubgroupFeatureFlags subgroup_operations;
  bool float16 = false;  // shaderFloat16
  // VK_KHR_pipeline_executable_properties: the driver's statistics of each
  // pipeline (registers, ...), which the Device captures and logs only
  // where MLX_LITE_LOG is debug (it clears this flag otherwise).
  bool pipeline_statistics = false;
  bool float64 = false;  // shaderFloat64
  bool subgroup_extended_types = false;
  bool int64_atomics = false, shared_int64_atomics = false;
  bool float32_atomic_add = false, float32_atomics = false;  // storage buffers
  bool shared_float32_atomic_add = false, shared_float32_atomics = false;
  bool float32_atomic_min_max = false, float16_atomic_add = false;  // VK_EXT_shader_atomic_float2
  bool vulkan_memory_model = false;  // with device scope (memoryBarrier() uses it)
  // hostQueryReset: gpu_timer.cpp resets its queries from the host instead of
  // in each timed batch (on an H200, 3.5 us less between submit and done).
  bool host_query_reset = false;
  bool cooperative_matrix = false;  // VK_NV_cooperative_matrix
  std::vector<CooperativeMatrixShape> cooperative_matrix_shapes;
  bool khr_cooperative_matrix = false;                                // VK_KHR_cooperative_matrix
  std::vector<CooperativeMatrixShape> khr_cooperative_matrix_shapes;  // of subgroup scope
  // VK_KHR_shader_bfloat16's shaderBFloat16Type and shaderBFloat16CooperativeMatrix.
  bool bfloat16_cooperative_matrix = false;
  // VK_NV_cooperative_matrix2's cooperativeMatrixWorkgroupScope and
  // cooperativeMatrixFlexibleDimensions: a matrix a whole workgroup holds,
  // of any multiple of a listed shape's granularities (NVIDIA's driver maps
  // them to Hopper's warpgroup instructions, which subgroup fragments do not
  // reach). Used through VK_KHR_cooperative_matrix's instructions.
  bool workgroup_cooperative_matrix = false;
  std::vector<CooperativeMatrixShape> workgroup_cooperative_matrix_shapes;
  uint32_t workgroup_matrix_max_dimension = 0;  // cooperativeMatrixFlexibleDimensionsMaxDimension
  // The shared memory the driver keeps for workgroup-scope matrices, out of
  // maxComputeSharedMemorySize (cooperativeMatrixWorkgroupScopeReservedSharedMemory).
  uint32_t workgroup_matrix_reserved_shared_memory = 0;

  // Whether the pipelines of 32-wide simdgroups run on 32-wide subgroups.
  bool subgroups32() const { return subgroup_size == 32 || require_subgroup_32; }
};

// What `physical` (of `instance`), whose device extensions are `extensions`,
// has. Never throws for a missing optional feature.
DeviceFeatures read_device_features(const vk::raii::Instance& instance,
                                    const vk::raii::PhysicalDevice& physical,
                                    const std::vector<std::string>& extensions);

// The structures that enable `f` at device creation (their pNext chain
// starts at the PhysicalDeviceFeatures2), with the device extensions they
// need, beside the features every mlx_lite device has (shaderInt64,
// shaderInt16, shaderInt8, 8- and 16-bit storage, timeline semaphores).
class FeatureEnables {
 public:
  // The KHR cooperative-matrix extensions are enabled only where
  // `khr_matrices` (matrix_units.h: MLX_LITE_MATRIX_UNITS=nv leaves them out).
  // The pipeline-statistics extension is enabled where
  // f.pipeline_statistics.
  FeatureEnables(const DeviceFeatures& f, const std::vector<std::string>& device_extensions,
                 bool khr_matrices);
  FeatureEnables(const FeatureEnables&) = delete;  // the chain points into it
  FeatureEnables& operator=(const FeatureEnables&) = delete;
  const vk::PhysicalDeviceFeatures2& chain() const {
    return chain_.get<vk::PhysicalDeviceFeatures2>();
  }
  const std::vector<const char*>& extensions() const { return extensions_; }

 private:
  vk::StructureChain<vk::PhysicalDeviceFeatures2, vk::PhysicalDeviceVulkan11Features,
                     vk::PhysicalDeviceVulkan12Features,
                     vk::PhysicalDeviceShaderAtomicFloatFeaturesEXT,
                     vk::PhysicalDeviceShaderAtomicFloat2FeaturesEXT,
                     vk::PhysicalDeviceSubgroupSizeControlFeaturesEXT,
                     vk::PhysicalDeviceCooperativeMatrixFeaturesNV,
                     vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR>
      chain_;
  // The KHR structures vulkan.hpp 1.3.239 does not know, linked at the
  // chain's end where the device has the extensions.
  PhysicalDeviceCooperativeMatrixFeaturesKhrMlx khr_matrix_;
  PhysicalDeviceShaderBfloat16FeaturesKhrMlx bfloat16_;
  PhysicalDeviceCooperativeMatrix2FeaturesNvMlx matrix2_;
  std::vector<const char*> extensions_;

  void link_at_end(void* structure);
};

// For gpu::device_info(): the shapes `shapes` lists, "none" where empty
// (a workgroup-scope shape's granularities, "granules of MxNxK ... with T
// threads").
std::string describe_cooperative_matrix(const std::vector<CooperativeMatrixShape>& shapes);

}  // namespace mlx_lite::vulkan
