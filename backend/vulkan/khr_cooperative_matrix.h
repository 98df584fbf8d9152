// Cooperative matrices on devices whose driver offers VK_KHR_cooperative_matrix
// (AMD, Intel, recent NVIDIA): Debian 12's glslang compiles only
// GL_NV_cooperative_matrix, so the built-in matmul and custom kernels' simdgroup
// matrices are written against the NV extension and their SPIR-V is
// translated here. The two extensions' instructions map one to one but for
// one fact: a KHR matrix type names its use (the A or the B operand of a
// multiply-add, or an accumulator) and an NV type does not. The translation
// reads each matrix's use off the multiply-adds it flows into, through
// variables, arrays, copies, phis and conversions, after inlining every
// function (spirv-opt), so that a helper called for both operands is a copy
// per call.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

namespace mlx_lite::vulkan {

struct KhrMatrixOptions {
  // Matrices of float16, of every use, become bfloat16 (SPV_KHR_bfloat16;
  // the device needs VK_KHR_shader_bfloat16's
  // shaderBFloat16CooperativeMatrix): for a shader whose float16 tiles load
  // and store memory that holds bfloat16 bits. float32 accumulators stay
  // float32 (a conversion of one to float16 becomes one to bfloat16).
  bool float16_as_bfloat16 = false;
};

// A module that has no KHR counterpart: a matrix used as two operands (a KHR
// type has one use), one inside a structure or a function's signature after
// inlining, or an instruction on matrices the translation does not know.
class KhrTranslationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The SPIR-V (Vulkan 1.2) of `nv`, a module using SPV_NV_cooperative_matrix,
// with SPV_KHR_cooperative_matrix instead. A module without NV matrices comes
// back inlined but otherwise unchanged. Throws KhrTranslationError.
std::vector<uint32_t> translate_to_khr_cooperative_matrix(std::span<const uint32_t> nv,
                                                          const KhrMatrixOptions& options = {});

}  // namespace mlx_lite::vulkan
