// Lazy evaluation: ops record, eval computes each node once, iteratively,
// and frees intermediates as it goes.
#include <gtest/gtest.h>

#include <atomic>

#include "backend/common/buffers.h"
#include "backend/gpu_backend.h"
#include "mlx_lite/gpu.h"
#include "mlx_lite/mlx_lite.h"
#include "mlx_lite/primitives.h"

using namespace mlx_lite;

namespace {

// Adds one and counts how often it runs: an independent view of what eval does.
class CountingAddOne : public UnaryPrimitive {
 public:
  explicit CountingAddOne(std::atomic<int>* runs) : UnaryPrimitive(to_stream({})), runs_(runs) {}
  void eval_cpu(const std::vector<array>& inputs, array& out) override {
    ++*runs_;
    common::allocate(out);
    const float* in = inputs[0].data<float>();
    float* o = out.data<float>();
    for (size_t i = 0; i < out.size(); ++i) o[i] = in[i] + 1.0f;
  }
  const char* name() const override { return "CountingAddOne"; }

 private:
  std::atomic<int>* runs_;
};

array counting_add_one(const array& a, std::atomic<int>* runs) {
  return array(a.shape(), float32, std::make_shared<CountingAddOne>(runs), {a});
}

}  // namespace

TEST(Eval, OpsAreLazyUntilEval) {
  std::atomic<int> runs{0};
  array x({1.0f, 2.0f});
  array y = counting_add_one(x, &runs);
  EXPECT_FALSE(y.is_available());
  EXPECT_TRUE(y.has_primitive());
  EXPECT_EQ(runs, 0);
  eval(y);
  EXPECT_EQ(runs, 1);
  EXPECT_TRUE(y.is_available());
  EXPECT_FALSE(y.has_primitive());  // detached: the recipe and inputs are gone
  EXPECT_TRUE(y.inputs().empty());
  EXPECT_EQ(y.data<float>()[1], 3.0f);
  eval(y);  // already evaluated: nothing runs
  EXPECT_EQ(runs, 1);
}

TEST(Eval, SharedSubgraphRunsOnce) {
  std::atomic<int> runs{0};
  array x({1.0f});
  array shared = counting_add_one(counting_add_one(x, &runs), &runs);
  array left = counting_add_one(shared, &runs);
  array right = counting_add_one(shared, &runs);
  eval({left, right, add(left, right)});
  EXPECT_EQ(runs, 4);
  EXPECT_EQ(add(left, right).item<float>(), 8.0f);
}

TEST(Eval, ItemAndDataEvaluate) {
  array a = add(array({1, 2, 3}), array(10));
  EXPECT_FALSE(a.is_available());
  EXPECT_EQ(a.data<int32_t>()[2], 13);
  EXPECT_EQ(sum(a).item<int>(), 36);
}

TEST(Eval, LongChainEvaluatesWithoutRecursion) {
  array a = zeros({4});
  for (int i = 0; i < 100000; ++i) a = a + 1.0f;
  EXPECT_EQ(a.data<float>()[3], 100000.0f);
}

TEST(Eval, UnevaluatedLongChainIsDestroyedWithoutRecursion) {
  array a = zeros({4});
  for (int i = 0; i < 100000; ++i) a = a + 1.0f;
  a = array(0.0f);  // drops the whole recipe; must not overflow the stack
  SUCCEED();
}

TEST(Eval, PeakMemoryOfLongChainStaysBounded) {
  constexpr size_t kElements = 1 << 16;  // 256 KiB per float32 buffer
  constexpr size_t kBytes = kElements * sizeof(float);
  // On the CPU stream, where each node's data is freed as soon as its
  // consumer ran (GPU work keeps buffers until its batch completes).
  array a = zeros({static_cast<int>(kElements)});
  eval(a);
  size_t before = get_active_memory();
  reset_peak_memory();
  for (int i = 0; i < 200; ++i) a = exp(multiply(a, array(0.5f), Device::cpu), Device::cpu);
  eval(a);
  // 400 intermediates of kBytes each were computed; a handful may be alive at
  // once (the node, its input and the scalar operands), never the chain.
  EXPECT_LT(get_peak_memory() - before, 4 * kBytes);
  EXPECT_LE(get_active_memory() - before, kBytes + 4096);
}

TEST(Eval, PeakMemoryOfLongGpuChainIsBoundedByTheBatch) {
  if (!gpu::is_available()) GTEST_SKIP() << "no Vulkan device";
  constexpr size_t kElements = 1 << 16;
  constexpr size_t kBytes = kElements * sizeof(float);
  array a = zeros({static_cast<int>(kElements)});
  eval(a);
  size_t before = get_active_memory();
  reset_peak_memory();
  // 1,200 GPU nodes of 256 KiB: pending work is submitted in batches of 256
  // dispatches and at most two batches are in flight (one running, one
  // recording), so at most about 512 intermediates are alive at a time.
  for (int i = 0; i < 600; ++i) a = exp(multiply(a, array(0.5f), Device::gpu), Device::gpu);
  eval(a);
  EXPECT_LT(get_peak_memory() - before, 540 * kBytes);
  EXPECT_LE(get_active_memory() - before, kBytes + 4096);
}

TEST(Eval, IntermediatesAreFreedWhenUnreferenced) {
  size_t before = get_active_memory();
  {
    array a = ones({1024});
    array b = a * 2.0f;
    array c = b + 1.0f;
    eval(c);
    EXPECT_EQ(c.data<float>()[0], 3.0f);
  }
  EXPECT_EQ(get_active_memory(), before);
}

TEST(Eval, MultiOutputPrimitiveFillsSiblings) {
  array a = arange(12);
  auto parts = split(a, 3);
  ASSERT_EQ(parts.size(), 3u);
  eval(parts[1]);
  EXPECT_EQ(parts[1].data<int32_t>()[0], 4);
  EXPECT_EQ(parts[2].data<int32_t>()[3], 11);
}

TEST(Eval, AsyncEvalThenRead) {
  array a = arange(5) * 2;
  async_eval({a});
  EXPECT_EQ(a.data<int32_t>()[4], 8);
}

TEST(Eval, AsyncEvalSubmitsAndReturnsThenReadsWait) {
  if (!gpu::is_available()) GTEST_SKIP() << "no Vulkan device";
  // 600 dependent GPU ops: more than one batch of recorded work.
  array y = zeros({1000}, float32, Device::gpu);
  for (int i = 0; i < 600; ++i) y = add(y, array(1.0f), Device::gpu);
  async_eval({y});
  EXPECT_TRUE(gpu_backend::has_pending_work());          // submitted, not waited for
  array on_cpu = multiply(y, array(2.0f), Device::cpu);  // a CPU kernel waits for it
  EXPECT_EQ(on_cpu.data<float>()[999], 1200.0f);
  async_eval({add(y, array(1.0f), Device::gpu)});
  synchronize();
  EXPECT_FALSE(gpu_backend::has_pending_work());
  EXPECT_EQ(y.data<float>()[0], 600.0f);
}

// Elementwise kernels write into an input that only they refer to, as MLX's
// donation does, so a chain of them needs one buffer, not one per op; an
// input the caller still holds is never overwritten.
TEST(Eval, ElementwiseChainsReuseTheirInputsBuffer) {
  std::vector<Device> devices = {Device::cpu};
  if (gpu::is_available()) devices.push_back(Device::gpu);
  for (const auto& d : devices) {
    constexpr int n = 1 << 18;  // 1 MiB of float32
    array x = full({n}, 0.5f, float32, Device::cpu);
    eval(x);
    synchronize();
    clear_cache();
    const size_t base = get_active_memory();
    reset_peak_memory();
    array y = exp(x, d);  // x is held here: a new buffer
    for (int i = 0; i < 200; ++i) {
      y = i % 2 ? add(y, array(1.0f), d) : astype(multiply(y, array(0.5f), d), float32, d);
    }
    eval(y);
    synchronize();
    float want = std::exp(0.5f);
    for (int i = 0; i < 200; ++i) want = i % 2 ? want + 1.0f : want * 0.5f;
    EXPECT_NEAR(y.data<float>()[n - 1], want, 1e-5f) << d;
    EXPECT_EQ(x.data<float>()[0], 0.5f) << d;
    // y's buffer, and slack for small scalars and the GPU's metadata arenas.
    EXPECT_LE(get_peak_memory() - base, size_t{n} * 4 + (1 << 18)) << d;
  }
}

TEST(Eval, MemoryLimitGivesExceptionAndRecovers) {
  size_t old = set_memory_limit(get_active_memory() + (1 << 20));
  array big = ones({1 << 20}) + 1.0f;  // 4 MiB: over the limit
  try {
    eval(big);
    FAIL() << "expected an exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("4194304"), std::string::npos) << e.what();
  }
  set_memory_limit(old);
  EXPECT_EQ(sum(big).item<float>(), float(2 << 20));  // the same graph evaluates afterwards
}

TEST(Device, DefaultsAndStreams) {
  // gpu whenever a Vulkan device can be used (lavapipe on machines without a GPU).
  EXPECT_EQ(default_device(), Device(gpu::is_available() ? Device::gpu : Device::cpu));
  EXPECT_TRUE(is_available(Device::cpu));
  EXPECT_EQ(is_available(Device::gpu), gpu::is_available());
  Stream s = to_stream({});
  EXPECT_EQ(s.device, default_device());
  EXPECT_EQ(to_stream(Device(Device::cpu)), default_stream(Device::cpu));
  Stream mine = new_stream(Device::cpu);
  EXPECT_EQ(to_stream(mine), mine);
  EXPECT_EQ(add(array({1, 2}), array(1), mine).data<int32_t>()[1], 3);
}

TEST(Device, GpuAndCpuStreamsMixInOneGraph) {
  if (!gpu::is_available()) GTEST_SKIP() << "no Vulkan device";
  array a = add(array({1.0f, 2.0f, 3.0f}), array(1.0f), Device::gpu);
  array b = multiply(a, array(2.0f), Device::cpu);  // a CPU kernel reads a GPU result
  array c = subtract(b, a, Device::gpu);            // and a GPU kernel a CPU result
  EXPECT_EQ(a.primitive().device(), Device(Device::gpu));
  EXPECT_EQ(b.primitive().device(), Device(Device::cpu));
  eval(c);
  EXPECT_EQ(c.data<float>()[2], 4.0f);
  EXPECT_EQ(b.data<float>()[0], 4.0f);
}

TEST(Device, InfoDescribesTheVulkanDevice) {
  if (!gpu::is_available()) GTEST_SKIP() << "no Vulkan device";
  auto info = gpu::device_info();
  EXPECT_FALSE(std::get<std::string>(info.at("device_name")).empty());
  EXPECT_FALSE(std::get<std::string>(info.at("driver_name")).empty());
  size_t subgroup = std::get<size_t>(info.at("subgroup_size"));
  EXPECT_TRUE(subgroup == 4 || subgroup == 8 || subgroup == 16 || subgroup == 32 ||
              subgroup == 64 || subgroup == 128)
      << subgroup;
  EXPECT_GT(std::get<size_t>(info.at("max_workgroup_count_x")), 0u);
  EXPECT_GT(std::get<size_t>(info.at("max_storage_buffer_range")), 0u);
  EXPECT_TRUE(info.count("float32_atomic_add"));
  EXPECT_TRUE(info.count("float16"));
}

TEST(Memory, FreedBuffersAreCachedAndReused) {
  clear_cache();
  size_t active = get_active_memory();
  {
    array a = arange(1 << 18) + 1;
    eval(a);
  }  // 1 MiB, then freed into the cache
  EXPECT_EQ(get_active_memory(), active);
  EXPECT_GE(get_cache_memory(), size_t{1} << 20);
  size_t cached = get_cache_memory();
  {
    array b = arange(1 << 18) * 3;  // same size: served from the cache
    eval(b);
    EXPECT_EQ(get_cache_memory(), cached - (size_t{1} << 20));
    EXPECT_EQ(b.data<int32_t>()[5], 15);
  }
  clear_cache();
  EXPECT_EQ(get_cache_memory(), 0u);
  size_t old = set_cache_limit(0);  // no caching at all
  {
    array c = arange(1 << 18) + 1;
    eval(c);
  }
  EXPECT_EQ(get_cache_memory(), 0u);
  set_cache_limit(old);
}
