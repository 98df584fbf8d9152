// Linked into every test program: a test that caused a Vulkan validation
// message fails (ctest runs each test in its own process, with
// MLX_LITE_VULKAN_VALIDATION=1, so the count belongs to that test).
#include <gtest/gtest.h>

#include "mlx_lite/gpu.h"

namespace {

class ValidationCheck : public ::testing::Environment {
 public:
  void TearDown() override {
    EXPECT_EQ(mlx_lite::gpu::validation_messages(), 0u)
        << "Vulkan validation reported problems (printed above)";
  }
};

const auto* registered = ::testing::AddGlobalTestEnvironment(new ValidationCheck);

}  // namespace
