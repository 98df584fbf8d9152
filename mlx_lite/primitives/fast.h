// CustomKernel: the node of a user-written GPU kernel (fast::vulkan_kernel).
// Its eval_gpu is in backend/vulkan/custom_kernel.cpp; it has no CPU kernel
// and no derivative (custom_function gives it one).
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mlx_lite/primitives.h"

namespace mlx_lite {

namespace vulkan {
struct CompiledKernel;
}

class CustomKernel : public Primitive {
 public:
  // How one call launches the compiled kernel.
  struct Launch {
    std::array<uint32_t, 3> grid, threadgroup;
    std::optional<float> init_value;
    bool ensure_row_contiguous;
    // Byte offsets of each input's strides and shape in the metadata buffer
    // (-1 where the source uses none), and that buffer's size.
    std::vector<int64_t> strides_offset, shape_offset;
    size_t metadata_bytes;
  };

  CustomKernel(Stream stream, std::string kernel_name,
               std::shared_ptr<const vulkan::CompiledKernel> kernel, Launch launch)
      : Primitive(stream),
        kernel_name_(std::move(kernel_name)),
        kernel_(std::move(kernel)),
        launch_(std::move(launch)) {}

  void eval_cpu(const std::vector<array>& inputs, std::vector<array>& outputs) override;
  void eval_gpu(const std::vector<array>& inputs, std::vector<array>& outputs) override;
  std::vector<array> jvp(const std::vector<array>& primals, const std::vector<array>& tangents,
                         const std::vector<int>& argnums) override;
  std::vector<array> vjp(const std::vector<array>& primals, const std::vector<array>& cotangents,
                         const std::vector<int>& argnums,
                         const std::vector<array>& outputs) override;
  const char* name() const override { return "CustomKernel"; }
  void print(std::ostream& os) override { os << "CustomKernel(" << kernel_name_ << ")"; }
  bool is_equivalent(const Primitive& other) const override;

 private:
  std::string kernel_name_;
  std::shared_ptr<const vulkan::CompiledKernel> kernel_;
  Launch launch_;
};

}  // namespace mlx_lite
