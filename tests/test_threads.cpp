// Independent graphs evaluated from several threads at once: GPU beside GPU,
// GPU beside CPU, custom kernels compiled meanwhile, results handed from one
// thread to another, and buffers dropped while GPU work still uses them.
// CI also builds this file with -fsanitize=thread (.ci/run), so a data race
// fails even where the values come out right.
#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "gpu_test_util.h"
#include "mlx_lite/mlx_lite.h"

namespace {

using namespace mlx_lite;
using gpu_test::kCpu;
using gpu_test::kGpu;

// Runs each job on its own thread and waits for all; an exception in a job
// fails the test with its message.
void run_threads(const std::vector<std::function<void()>>& jobs) {
  std::vector<std::string> errors(jobs.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < jobs.size(); ++i) {
    threads.emplace_back([&, i] {
      try {
        jobs[i]();
      } catch (const std::exception& e) {
        errors[i] = e.what();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (size_t i = 0; i < errors.size(); ++i) EXPECT_EQ(errors[i], "") << "thread " << i;
}

// The largest |a - b| over the elements of two float32 arrays of one shape.
float max_difference(const array& a, const array& b) {
  array d = max(abs(subtract(a, b, kCpu), kCpu), kCpu);
  return d.item<float>();
}

// softmax(x @ x) over rows: matmul, a reduction pass and elementwise work.
array workload(const array& x, Device d) {
  return softmax(matmul(x, x, d), -1, false, d);
}

array inputs_for(uint64_t seed) {
  return gpu_test::test_values({24, 24}, float32, seed, -0.5f, 0.5f);
}

class Threads : public gpu_test::GpuTest {};

TEST_F(Threads, GpuGraphsOnSeveralThreadsAtOnce) {
  constexpr int kThreads = 4, kIterations = 15;
  std::vector<array> x, want;
  for (int t = 0; t < kThreads; ++t) {
    x.push_back(inputs_for(t + 1));
    want.push_back(workload(x.back(), kCpu));
  }
  eval(want);
  std::vector<float> worst(kThreads, 0.0f);
  std::vector<std::function<void()>> jobs;
  for (int t = 0; t < kThreads; ++t) {
    jobs.push_back([&, t] {
      for (int i = 0; i < kIterations; ++i) {
        array got = workload(x[t], kGpu);
        eval(got);
        worst[t] = std::max(worst[t], max_difference(got, want[t]));
      }
    });
  }
  run_threads(jobs);
  for (int t = 0; t < kThreads; ++t) EXPECT_LT(worst[t], 1e-5f) << "thread " << t;
}

TEST_F(Threads, GpuBesideCpu) {
  const array x = inputs_for(7), want = workload(x, kCpu);
  eval(want);
  float gpu_worst = 0, cpu_worst = 0;
  run_threads({[&] {
                 for (int i = 0; i < 15; ++i) {
                   array got = workload(x, kGpu);
                   eval(got);
                   gpu_worst = std::max(gpu_worst, max_difference(got, want));
                 }
               },
               [&] {
                 for (int i = 0; i < 15; ++i) {
                   array got = workload(x, kCpu);
                   eval(got);
                   cpu_worst = std::max(cpu_worst, max_difference(got, want));
                 }
               }});
  EXPECT_LT(gpu_worst, 1e-5f);
  EXPECT_EQ(cpu_worst, 0.0f);
}

// A new kernel (new source, so a compile) per iteration on one thread while
// others run built-in kernels and one shared custom kernel.
TEST_F(Threads, CustomKernelsCreatedWhileOthersRun) {
  const array x = inputs_for(11), want = workload(x, kCpu);
  const array v = arange(0.0f, 64.0f, 1.0f, float32, kCpu);
  eval({want, v});
  auto scale = fast::vulkan_kernel("scale_shared", {"inp"}, {"out"}, R"(
    uint i = thread_position_in_grid.x;
    out[i] = inp[i] * 3.0;
  )");
  std::atomic<int> wrong{0};
  auto check = [&](const array& got, float factor) {
    const float* p = got.data<float>();
    for (int i = 0; i < 64; ++i) wrong += p[i] != factor * static_cast<float>(i);
  };
  float gpu_worst = 0;
  run_threads({[&] {
                 for (int k = 1; k <= 6; ++k) {
                   auto kernel = fast::vulkan_kernel(
                       "scale_" + std::to_string(k), {"inp"}, {"out"},
                       "uint i = thread_position_in_grid.x;\nout[i] = inp[i] * " +
                           std::to_string(k) + ".0;\n");
                   check(kernel({v}, {v.shape()}, {float32}, {64, 1, 1}, {32, 1, 1})[0], k);
                 }
               },
               [&] {
                 for (int i = 0; i < 10; ++i) {
                   check(scale({v}, {v.shape()}, {float32}, {64, 1, 1}, {32, 1, 1})[0], 3);
                 }
               },
               [&] {
                 for (int i = 0; i < 10; ++i) {
                   array got = workload(x, kGpu);
                   eval(got);
                   gpu_worst = std::max(gpu_worst, max_difference(got, want));
                 }
               }});
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_LT(gpu_worst, 1e-5f);
}

// async_eval returns with the work submitted; arrays dropped before it
// completes keep their buffers until it does, and every buffer is back once
// the threads are gone.
TEST_F(Threads, AsyncEvalWithArraysDropped) {
  synchronize();
  const size_t before = get_active_memory();
  std::atomic<int> wrong{0};
  std::vector<std::function<void()>> jobs;
  for (int t = 0; t < 3; ++t) {
    jobs.push_back([&, t] {
      for (int i = 0; i < 20; ++i) {
        array a = full({4096}, static_cast<float>(t), float32, kGpu);
        for (int k = 0; k < 8; ++k) a = add(a, array(1.0f), kGpu);
        async_eval({a});
        if (i % 2 == 0) continue;  // dropped while its work may still run
        wrong += a.data<float>()[4095] != static_cast<float>(t + 8);
      }
    });
  }
  run_threads(jobs);
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(get_active_memory(), before);
}

// Thread A computes y asynchronously and hands it to thread B, which reads
// it: B waits for A's GPU work, not for its own.
TEST_F(Threads, ResultReadOnAnotherThread) {
  std::promise<array> handed;
  float got = 0;
  run_threads({[&] {
                 array y = zeros({1 << 12}, float32, kGpu);
                 for (int k = 0; k < 300; ++k) y = add(y, array(1.0f), kGpu);
                 async_eval({y});
                 handed.set_value(y);
               },
               [&] {
                 array y = handed.get_future().get();
                 got = y.data<float>()[(1 << 12) - 1];
               }});
  EXPECT_EQ(got, 300.0f);
}

// Thread A's pending GPU work reads w last; A then hands its only handle to
// thread B, whose CPU add could write in place into w's buffer (donation)
// while A's work still has to read it. The work holds w's data until it
// completes, so B gets a buffer of its own and A reads the old values.
TEST_F(Threads, InputDroppedWhileGpuWorkStillReadsIt) {
  constexpr int n = 1 << 14;
  std::promise<array> handed;
  array y(0.0f), z(0.0f);
  run_threads({[&] {
                 // A dense buffer (full() would be a broadcast view of one element).
                 array w = add(zeros({n}, float32, kGpu), array(5.0f), kGpu);
                 eval(w);
                 array t = zeros({n}, float32, kGpu);
                 for (int k = 0; k < 400; ++k) t = add(t, array(1.0f), kGpu);
                 y = add(t, w, kGpu);  // reads w after 400 dispatches
                 async_eval({y});
                 handed.set_value(std::move(w));
               },
               [&] {
                 array w = handed.get_future().get();
                 z = add(w, array(1.0f), kCpu);
                 w = array(0.0f);  // z's kernel may now take w's buffer, were it free
                 eval(z);
               }});
  EXPECT_EQ(z.data<float>()[n - 1], 6.0f);
  EXPECT_EQ(y.data<float>()[n - 1], 405.0f);
}

}  // namespace
