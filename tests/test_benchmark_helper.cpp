// mlx_lite/benchmark.h's eval_loop, run through Google Benchmark itself: it
// calls the function once per iteration plus the warm-up, evaluates what it
// returns, and reports gpu_time, positive and no more than the wall time per
// iteration on a real workload, and wall_median, the median iteration's time. The file says `using
// namespace mlx_lite;` and names `benchmark::` unqualified: mlx_lite::bench must not clash.
#include <benchmark/benchmark.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "gpu_test_util.h"
#include "mlx_lite/benchmark.h"

using namespace mlx_lite;
using gpu_test::kGpu;

namespace {

// Keeps the runs Google Benchmark reports, prints nothing.
class Collect : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const auto& r : runs) this->runs.push_back(r);
  }
  std::vector<Run> runs;
};

// Registers `fun` under `name` for `iterations` iterations of real time,
// runs it alone and returns its report.
template <class F>
benchmark::BenchmarkReporter::Run run_benchmark(const std::string& name, int iterations, F fun) {
  benchmark::RegisterBenchmark(name.c_str(), fun)->UseRealTime()->Iterations(iterations);
  Collect collect;
  // The full name has suffixes: add_1m/iterations:5/real_time.
  benchmark::RunSpecifiedBenchmarks(&collect, "^" + name + "/");
  benchmark::ClearRegisteredBenchmarks();
  EXPECT_EQ(collect.runs.size(), 1u);
  return collect.runs.empty() ? benchmark::BenchmarkReporter::Run() : collect.runs[0];
}

class EvalLoop : public gpu_test::GpuTest {};

}  // namespace

TEST_F(EvalLoop, EvaluatesEachIterationAndReportsGpuTimeWithinTheWallTime) {
  if (!gpu::timing_supported()) GTEST_SKIP() << "the device cannot time";
  array a = full({1 << 20}, 1.0f, float32, kGpu), b = full({1 << 20}, 2.0f, float32, kGpu);
  eval(a, b);
  std::vector<array> made;
  const auto run = run_benchmark("add_1m", 5, [&](benchmark::State& state) {
    bench::eval_loop(state, [&] {
      made.push_back(add(a, b, kGpu));
      return made.back();
    });
  });
  ASSERT_EQ(made.size(), 6u);  // one warm-up, five timed
  for (const auto& out : made) {
    ASSERT_TRUE(out.is_available());
    EXPECT_EQ(out.data<float>()[4321], 3.0f);
  }
  ASSERT_EQ(run.iterations, 5);
  ASSERT_EQ(run.counters.count("gpu_time"), 1u);
  const double gpu_seconds = run.counters.at("gpu_time").value;  // per iteration
  const double wall_seconds = run.real_accumulated_time / static_cast<double>(run.iterations);
  EXPECT_GT(gpu_seconds, 0);
  EXPECT_LE(gpu_seconds, wall_seconds);
}

TEST_F(EvalLoop, TakesVectorsAndOptions) {
  array a = full({64}, 1.0f, float32, kGpu);
  eval(a);
  int calls = 0;
  const auto run = run_benchmark("vector_no_gpu_time", 3, [&](benchmark::State& state) {
    bench::eval_loop(state,
                     [&] {
                       ++calls;
                       return std::vector<array>{exp(a, kGpu), negative(a, kGpu)};
                     },
                     {.warmup = 2, .gpu_time = false});
  });
  EXPECT_EQ(calls, 5);  // two warm-ups, three timed
  EXPECT_EQ(run.counters.count("gpu_time"), 0u);
  // The thread may time again: eval_loop stopped its timing.
  gpu::start_timing();
  EXPECT_EQ(gpu::stop_timing(), 0);
}

TEST_F(EvalLoop, ReportsTheMedianIterationBesideTheMean) {
  // Iterations of 2 ms, but the third takes 60 ms: the mean is 13.6 ms and
  // more, the median 2 ms and a little.
  array a = full({4}, 1.0f, float32, Device::cpu);
  int call = 0;
  const auto run = run_benchmark("one_slow_iteration", 5, [&](benchmark::State& state) {
    bench::eval_loop(state,
                     [&] {
                       const int timed = call++ - 1;  // the first call is the warm-up
                       std::this_thread::sleep_for(std::chrono::milliseconds(timed == 2 ? 60 : 2));
                       return exp(a, Device::cpu);
                     },
                     {.gpu_time = false});
  });
  ASSERT_EQ(run.counters.count("wall_median"), 1u);
  const double median = run.counters.at("wall_median").value;
  const double mean = run.real_accumulated_time / static_cast<double>(run.iterations);
  EXPECT_GE(mean, 0.0136);
  EXPECT_GE(median, 0.002);
  EXPECT_LT(median, 0.010) << "the one slow iteration moved the median";
}
