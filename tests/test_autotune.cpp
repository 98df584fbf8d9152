// fast::autotune_threadgroup: it picks the candidate that is fastest (a
// kernel made slow at every threadgroup but one), remembers the choice in
// memory and on disk (a new lookup after the memory is cleared runs nothing),
// ignores damaged files, keeps choices apart per device, kernel and key, and
// skips the candidates the device refuses.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "backend/vulkan/autotune_cache.h"
#include "env_util.h"
#include "gpu_test_util.h"
#include "mlx_lite/ops/autotune.h"
#include "mlx_lite/testing.h"

using namespace mlx_lite;
using fast::Threadgroup;
using test_util::nonce;
using test_util::ScopedEnv;

namespace fs = std::filesystem;

namespace {

// A kernel cache directory of its own, removed at the end.
struct TempCache {
  fs::path root;
  std::optional<ScopedEnv> env;
  TempCache() {
    char tmpl[] = "/tmp/mlx_lite_autotune_XXXXXX";
    root = mkdtemp(tmpl);
    env.emplace("MLX_LITE_KERNEL_CACHE", (root / "kernels").string());
    fast::clear_autotune_memory();
  }
  ~TempCache() {
    env.reset();
    fs::remove_all(root);
    fast::clear_autotune_memory();
  }
};

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_text(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
}

std::vector<fs::path> autotune_files(const fs::path& cache) {
  std::vector<fs::path> files;
  if (!fs::exists(cache / "autotune")) return files;
  for (const auto& e : fs::directory_iterator(cache / "autotune")) files.push_back(e.path());
  return files;
}

// Each thread loops SLOW times (3000 unless a test asks for more), except at threadgroup x == FAST,
// where it loops once: FAST is the fastest candidate by far (on lavapipe, about 3000x less work),
// whatever its place among the candidates.
const fast::CustomKernelFunction& slow_but_one() {
  static const auto kernel = fast::vulkan_kernel("slow_but_one", {"inp"}, {"out"}, R"(
  uint i = thread_position_in_grid.x;
  uint n = threads_per_threadgroup.x == uint(FAST) ? 1u : uint(SLOW);
  float acc = 0.0;
  for (uint k = 0u; k < n; ++k) acc = acc * 0.5 + inp[i];
  out[i] = acc;
)");
  return kernel;
}

// Tunes slow_but_one over `candidates`, counting the runs.
Threadgroup tune(int fast_x, const std::string& key, const std::vector<Threadgroup>& candidates,
                 int* runs = nullptr, int slow = 3000) {
  array x = ones({2048});
  return fast::autotune_threadgroup("slow_but_one", key, candidates, [&](Threadgroup tg) {
    if (runs) ++*runs;
    return slow_but_one()({x}, {x.shape()}, {float32}, {2048, 1, 1}, tg,
                          {{"FAST", fast_x}, {"SLOW", slow}});
  });
}

const std::vector<Threadgroup> kCandidates = {{32, 1, 1}, {64, 1, 1}, {128, 1, 1}, {256, 1, 1}};

class AutotuneTest : public gpu_test::GpuTest {};

TEST_F(AutotuneTest, PicksTheFastestCandidate) {
  TempCache cache;
  const std::string tag = nonce();
  // The slow kernel's answer does not depend on the threadgroup.
  array x = ones({2048});
  auto out = slow_but_one()({x}, {x.shape()}, {float32}, {2048, 1, 1}, {32, 1, 1},
                            {{"FAST", 64}, {"SLOW", 3000}});
  EXPECT_ALLCLOSE(out[0], full({2048}, 2.0f), 1e-5, 1e-5);
  // The fast one wins wherever it is among the candidates.
  for (int fast_x : {64, 256, 32}) {
    int runs = 0;
    EXPECT_EQ(tune(fast_x, tag + std::to_string(fast_x), kCandidates, &runs),
              Threadgroup(fast_x, 1, 1));
    // warmup 1 + repetitions 5 per candidate.
    EXPECT_EQ(runs, 6 * static_cast<int>(kCandidates.size()));
  }
}

TEST_F(AutotuneTest, TunesInsideTheThreadsOwnGpuTiming) {
  if (!gpu::timing_supported()) GTEST_SKIP() << "the device cannot time";
  TempCache cache;
  // The thread's timing is running: tuning falls back to wall time, and the
  // timing goes on.
  // Wall time counts the submit and wait (~50 us): on a fast GPU 3000
  // iterations a thread (a few us) are within its noise, so the slow
  // candidates loop 60000 times there (below lavapipe's loop cap too).
  const bool cpu_gpu =
      std::get<std::string>(gpu::device_info().at("device_name")).find("llvmpipe") !=
      std::string::npos;
  gpu::start_timing();
  EXPECT_EQ(tune(128, nonce(), kCandidates, nullptr, cpu_gpu ? 3000 : 60000),
            Threadgroup(128, 1, 1));
  EXPECT_GT(gpu::stop_timing(), 0.0);
}

TEST_F(AutotuneTest, RemembersTheChoiceInMemoryAndOnDisk) {
  TempCache cache;
  const std::string key = nonce();
  EXPECT_EQ(tune(128, key, kCandidates), Threadgroup(128, 1, 1));
  const auto files = autotune_files(cache.root / "kernels");
  ASSERT_EQ(files.size(), 1u);
  // The file names the device and the kernel's key.
  const std::string text = read_text(files[0]);
  const auto name = std::get<std::string>(gpu::device_info().at("device_name"));
  EXPECT_NE(text.find(name), std::string::npos) << text;
  EXPECT_NE(text.find(key), std::string::npos) << text;
  // In memory: nothing runs. Even if the kernel's speed changed since
  // (FAST=32 now), the remembered choice stands.
  int runs = 0;
  EXPECT_EQ(tune(32, key, kCandidates, &runs), Threadgroup(128, 1, 1));
  EXPECT_EQ(runs, 0);
  // After the memory is cleared (a new process), from the disk: nothing runs.
  fast::clear_autotune_memory();
  EXPECT_EQ(tune(32, key, kCandidates, &runs), Threadgroup(128, 1, 1));
  EXPECT_EQ(runs, 0);
  // Another key of the same kernel is tuned anew.
  EXPECT_EQ(tune(32, key + "b", kCandidates, &runs), Threadgroup(32, 1, 1));
  EXPECT_GT(runs, 0);
  EXPECT_EQ(autotune_files(cache.root / "kernels").size(), 2u);
}

TEST_F(AutotuneTest, DiskCacheOffKeepsChoicesInMemoryOnly) {
  TempCache cache;
  ScopedEnv off("MLX_LITE_KERNEL_CACHE", "off");
  const std::string key = nonce();
  int runs = 0;
  EXPECT_EQ(tune(64, key, kCandidates, &runs), Threadgroup(64, 1, 1));
  EXPECT_GT(runs, 0);
  runs = 0;
  EXPECT_EQ(tune(64, key, kCandidates, &runs), Threadgroup(64, 1, 1));
  EXPECT_EQ(runs, 0);
  fast::clear_autotune_memory();
  EXPECT_EQ(tune(64, key, kCandidates, &runs), Threadgroup(64, 1, 1));
  EXPECT_GT(runs, 0);  // no file to read
  EXPECT_FALSE(fs::exists(cache.root / "kernels"));
}

TEST_F(AutotuneTest, DamagedFilesAreIgnoredAndReplaced) {
  TempCache cache;
  const std::string key = nonce();
  const std::vector<Threadgroup> two = {{32, 1, 1}, {64, 1, 1}};
  ASSERT_EQ(tune(64, key, two), Threadgroup(64, 1, 1));
  const auto files = autotune_files(cache.root / "kernels");
  ASSERT_EQ(files.size(), 1u);
  const std::string good = read_text(files[0]);
  const size_t at = good.find("threadgroup: 64 ");
  ASSERT_NE(at, std::string::npos) << good;
  std::string other_choice = good;
  other_choice.replace(at, 16, "threadgroup: 32 ");  // well formed, but the checksum fails
  std::string bad_number = good;
  bad_number.replace(at, 16, "threadgroup: -1 ");
  const std::vector<std::string> damaged = {
      other_choice, bad_number,  good.substr(0, good.size() - 5),
      "",           "garbage\n", std::string(70000, 'x')};
  for (size_t i = 0; i < damaged.size(); ++i) {
    write_text(files[0], damaged[i]);
    fast::clear_autotune_memory();
    int runs = 0;
    testing::internal::CaptureStderr();
    const Threadgroup tg = tune(64, key, two, &runs);
    const std::string err = testing::internal::GetCapturedStderr();
    // Tuned again (the file was not trusted), and rewritten whole.
    EXPECT_EQ(tg, Threadgroup(64, 1, 1)) << "case " << i;
    EXPECT_GT(runs, 0) << "case " << i;
    EXPECT_EQ(read_text(files[0]), good) << "case " << i;
    if (i == 0) {
      EXPECT_NE(err.find("damaged"), std::string::npos) << err;
    }
  }
}

TEST_F(AutotuneTest, ChoicesArePerDeviceKernelAndKey) {
  TempCache cache;
  const std::string key = nonce();
  const vulkan::TuningKey a{"GPU A / driver 1", "k", key}, b{"GPU B / driver 1", "k", key},
      a2{"GPU A / driver 2", "k", key}, other_kernel{"GPU A / driver 1", "k2", key};
  vulkan::remember_tuning(a, {64, 1, 1});
  vulkan::remember_tuning(b, {256, 2, 1});
  EXPECT_EQ(vulkan::find_tuning(a), (std::array<int, 3>{64, 1, 1}));
  EXPECT_EQ(vulkan::find_tuning(b), (std::array<int, 3>{256, 2, 1}));
  EXPECT_EQ(vulkan::find_tuning(a2), std::nullopt);  // another driver
  EXPECT_EQ(vulkan::find_tuning(other_kernel), std::nullopt);
  EXPECT_NE(vulkan::tuning_file(a), vulkan::tuning_file(b));
  // From disk too.
  vulkan::forget_tunings_in_memory();
  EXPECT_EQ(vulkan::find_tuning(b), (std::array<int, 3>{256, 2, 1}));
  EXPECT_EQ(vulkan::find_tuning(a), (std::array<int, 3>{64, 1, 1}));
  // A file copied under another key's name (a collision) is not taken for it.
  fs::copy_file(vulkan::tuning_file(a), vulkan::tuning_file(a2));
  vulkan::forget_tunings_in_memory();
  EXPECT_EQ(vulkan::find_tuning(a2), std::nullopt);
}

TEST_F(AutotuneTest, RefusedCandidatesAreSkipped) {
  TempCache cache;
  const std::string key = nonce();
  const auto max_threads = std::get<size_t>(gpu::device_info().at("max_workgroup_invocations"));
  const Threadgroup too_big{static_cast<int>(max_threads) * 2, 1, 1};
  EXPECT_EQ(tune(64, key, {too_big, {64, 1, 1}, {128, 1, 1}}), Threadgroup(64, 1, 1));
  // None runs: an error that names each candidate's reason.
  try {
    tune(64, key + "none", {too_big, {1, 1, 100000}});
    ADD_FAILURE() << "expected std::runtime_error";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("[autotune_threadgroup] Kernel 'slow_but_one'"), std::string::npos);
    EXPECT_NE(what.find("maxComputeWorkGroup"), std::string::npos) << what;
    EXPECT_NE(what.find("(1, 1, 100000)"), std::string::npos) << what;
  }
  EXPECT_TRUE(autotune_files(cache.root / "kernels").size() == 1u);
}

TEST_F(AutotuneTest, BadArgumentsThrow) {
  auto run = [](Threadgroup) { return std::vector<array>{}; };
  EXPECT_THROW(fast::autotune_threadgroup("k", "key", {}, run), std::invalid_argument);
  EXPECT_THROW(fast::autotune_threadgroup("k", "key", {{0, 1, 1}}, run), std::invalid_argument);
  EXPECT_THROW(fast::autotune_threadgroup("k", "a\nb", {{32, 1, 1}}, run), std::invalid_argument);
  EXPECT_THROW(fast::autotune_threadgroup("k", "key", {{32, 1, 1}}, run, {.repetitions = 0}),
               std::invalid_argument);
}

}  // namespace
