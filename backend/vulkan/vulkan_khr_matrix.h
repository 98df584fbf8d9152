// The declarations of VK_KHR_cooperative_matrix, VK_KHR_shader_bfloat16 and
// VK_NV_cooperative_matrix2 that Debian 12's Vulkan headers (1.3.239)
// predate, as the Vulkan registry gives them (vulkan_core.h of 1.3.255 and
// 1.4.311): structure types, enum values and layouts. Only for devices that list the extensions;
// names end in Mlx so that newer headers' own declarations never collide with them.
#pragma once

#include <vulkan/vulkan_core.h>

#include <cstdint>

namespace mlx_lite::vulkan {

inline constexpr const char* kKhrCooperativeMatrixExtension = "VK_KHR_cooperative_matrix";
inline constexpr const char* kKhrShaderBfloat16Extension = "VK_KHR_shader_bfloat16";
inline constexpr const char* kNvCooperativeMatrix2Extension = "VK_NV_cooperative_matrix2";

inline constexpr auto kStructurePhysicalDeviceCooperativeMatrixFeaturesKhr =
    static_cast<VkStructureType>(1000506000);
inline constexpr auto kStructureCooperativeMatrixPropertiesKhr =
    static_cast<VkStructureType>(1000506001);
inline constexpr auto kStructurePhysicalDeviceShaderBfloat16FeaturesKhr =
    static_cast<VkStructureType>(1000141000);

inline constexpr auto kStructurePhysicalDeviceCooperativeMatrix2FeaturesNv =
    static_cast<VkStructureType>(1000593000);
inline constexpr auto kStructureCooperativeMatrixFlexibleDimensionsPropertiesNv =
    static_cast<VkStructureType>(1000593001);
inline constexpr auto kStructurePhysicalDeviceCooperativeMatrix2PropertiesNv =
    static_cast<VkStructureType>(1000593002);

// VkComponentTypeKHR: 0 to 10 as VkComponentTypeNV, plus bfloat16.
inline constexpr uint32_t kComponentTypeBfloat16Khr = 1000141000;
inline constexpr uint32_t kScopeWorkgroupKhr = 2;  // VK_SCOPE_WORKGROUP_KHR
inline constexpr uint32_t kScopeSubgroupKhr = 3;   // VK_SCOPE_SUBGROUP_KHR

struct CooperativeMatrixPropertiesKhrMlx {
  VkStructureType sType = kStructureCooperativeMatrixPropertiesKhr;
  void* pNext = nullptr;
  uint32_t MSize = 0, NSize = 0, KSize = 0;
  uint32_t AType = 0, BType = 0, CType = 0, ResultType = 0;  // VkComponentTypeKHR
  VkBool32 saturatingAccumulation = VK_FALSE;
  uint32_t scope = 0;  // VkScopeKHR
};

struct PhysicalDeviceCooperativeMatrixFeaturesKhrMlx {
  VkStructureType sType = kStructurePhysicalDeviceCooperativeMatrixFeaturesKhr;
  void* pNext = nullptr;
  VkBool32 cooperativeMatrix = VK_FALSE;
  VkBool32 cooperativeMatrixRobustBufferAccess = VK_FALSE;
};

struct PhysicalDeviceShaderBfloat16FeaturesKhrMlx {
  VkStructureType sType = kStructurePhysicalDeviceShaderBfloat16FeaturesKhr;
  void* pNext = nullptr;
  VkBool32 shaderBFloat16Type = VK_FALSE;
  VkBool32 shaderBFloat16DotProduct = VK_FALSE;
  VkBool32 shaderBFloat16CooperativeMatrix = VK_FALSE;
};

struct PhysicalDeviceCooperativeMatrix2FeaturesNvMlx {
  VkStructureType sType = kStructurePhysicalDeviceCooperativeMatrix2FeaturesNv;
  void* pNext = nullptr;
  VkBool32 cooperativeMatrixWorkgroupScope = VK_FALSE;
  VkBool32 cooperativeMatrixFlexibleDimensions = VK_FALSE;
  VkBool32 cooperativeMatrixReductions = VK_FALSE;
  VkBool32 cooperativeMatrixConversions = VK_FALSE;
  VkBool32 cooperativeMatrixPerElementOperations = VK_FALSE;
  VkBool32 cooperativeMatrixTensorAddressing = VK_FALSE;
  VkBool32 cooperativeMatrixBlockLoads = VK_FALSE;
};

struct PhysicalDeviceCooperativeMatrix2PropertiesNvMlx {
  VkStructureType sType = kStructurePhysicalDeviceCooperativeMatrix2PropertiesNv;
  void* pNext = nullptr;
  uint32_t cooperativeMatrixWorkgroupScopeMaxWorkgroupSize = 0;
  uint32_t cooperativeMatrixFlexibleDimensionsMaxDimension = 0;
  uint32_t cooperativeMatrixWorkgroupScopeReservedSharedMemory = 0;
};

// Matrices of any multiple of the granularities, at `scope` with
// `workgroupInvocations` threads (workgroup scope).
struct CooperativeMatrixFlexibleDimensionsPropertiesNvMlx {
  VkStructureType sType = kStructureCooperativeMatrixFlexibleDimensionsPropertiesNv;
  void* pNext = nullptr;
  uint32_t MGranularity = 0, NGranularity = 0, KGranularity = 0;
  uint32_t AType = 0, BType = 0, CType = 0, ResultType = 0;  // VkComponentTypeKHR
  VkBool32 saturatingAccumulation = VK_FALSE;
  uint32_t scope = 0;  // VkScopeKHR
  uint32_t workgroupInvocations = 0;
};

using GetCooperativeMatrixFlexibleDimensionsPropertiesNvMlx = VkResult(VKAPI_PTR*)(
    VkPhysicalDevice, uint32_t*, CooperativeMatrixFlexibleDimensionsPropertiesNvMlx*);

using GetCooperativeMatrixPropertiesKhrMlx =
    VkResult(VKAPI_PTR*)(VkPhysicalDevice, uint32_t*, CooperativeMatrixPropertiesKhrMlx*);

}  // namespace mlx_lite::vulkan
