// The README says the whole API is in mlx_lite/mlx_lite.h: this file
// includes nothing else of mlx_lite's, so a part missing from the umbrella
// header fails to compile here.
#include <gtest/gtest.h>

#include "mlx_lite/mlx_lite.h"

namespace {

using namespace mlx_lite;

TEST(PublicApi, TheUmbrellaHeaderHasTheGpuQueries) {
  if (!gpu::is_available()) GTEST_SKIP() << "no Vulkan device";
  const auto info = gpu::device_info();
  EXPECT_FALSE(std::get<std::string>(info.at("device_name")).empty());
}

TEST(PublicApi, TheUmbrellaHeaderHasStreamsAndEval) {
  Stream s = new_stream(Device::cpu);
  array a = add(array({1, 2, 3}), array(1), s);
  async_eval({a});
  synchronize(s);
  EXPECT_EQ(a.data<int32_t>()[2], 4);
  EXPECT_EQ(default_stream(Device::cpu), default_stream(Device::cpu));
}

}  // namespace
