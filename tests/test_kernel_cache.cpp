// The custom kernels' caches: disk entries that are damaged (random bytes
// flipped anywhere, truncated as by a crashed writer, an older format) are
// never used, only reported, compiled again and rewritten; the memory caches
// of compiled kernels and pipelines stay within their limit while thousands
// of kernels come and go, and clear_cache() empties them, while kernels still
// held keep working (also a pipeline evicted while a batch that binds it is
// being recorded); and lavapipe's loop cap, warned of for a constant bound.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "backend/vulkan/device.h"
#include "env_util.h"
#include "gpu_test_util.h"
#include "test_util.h"

using namespace mlx_lite;
using test_util::nonce;
using test_util::ScopedEnv;
using test_util::values;

namespace fs = std::filesystem;

namespace {

class KernelCacheTest : public gpu_test::GpuTest {};

// A fresh directory, removed with its contents at the end of the scope.
struct TempDir {
  fs::path path;
  TempDir() {
    char tmpl[] = "/tmp/mlx_lite_kcache_XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~TempDir() { fs::remove_all(path); }
};

// Restores the kernel cache limit at the end of the scope.
struct ScopedKernelCacheLimit {
  size_t old;
  explicit ScopedKernelCacheLimit(size_t limit) : old(fast::set_kernel_cache_limit(limit)) {}
  ~ScopedKernelCacheLimit() { fast::set_kernel_cache_limit(old); }
};

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const fs::path& p, const std::string& bytes) {
  std::ofstream(p, std::ios::binary | std::ios::trunc).write(bytes.data(), bytes.size());
}

// The one .spv file in `dir`.
fs::path only_entry(const fs::path& dir) {
  std::vector<fs::path> entries;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".spv") entries.push_back(e.path());
  }
  EXPECT_EQ(entries.size(), 1u);
  return entries.empty() ? fs::path() : entries[0];
}

// What the kernel cache did since construction.
struct CacheDelta {
  fast::KernelCacheStats start = fast::kernel_cache_stats();
  fast::KernelCacheStats now() const { return fast::kernel_cache_stats(); }
  size_t compiled() const { return now().compiled - start.compiled; }
  size_t disk_hits() const { return now().disk_hits - start.disk_hits; }
  size_t damaged() const { return now().disk_damaged - start.disk_damaged; }
};

// A kernel computing 5 x + 1 (made new by `tag`), built and run in the way
// a new process would: with nothing in memory, so its code comes from the
// disk cache or glslang. True when all 64 results are right.
bool run_fresh(const std::string& tag) {
  clear_cache();  // the compiled kernels and pipelines in memory
  auto kernel = fast::vulkan_kernel(
      "cached", {"inp"}, {"out"},
      "uint i = thread_position_in_grid.x;\nout[i] = inp[i] * 5.0 + 1.0; // " + tag + "\n");
  array x = arange(64.0, float32);
  const auto v = values(kernel({x}, {{64}}, {float32}, {64, 1, 1}, {32, 1, 1})[0]);
  bool ok = v.size() == 64;
  for (size_t i = 0; i < v.size(); ++i) ok = ok && v[i] == 5.0 * i + 1.0;
  return ok;
}

// A disk cache of the test's own holding one entry, `original` at `entry`,
// of a kernel no earlier run has built (`tag`).
class KernelCacheEntryTest : public KernelCacheTest {
 protected:
  void SetUp() override {
    KernelCacheTest::SetUp();
    if (IsSkipped()) return;
    ASSERT_TRUE(run_fresh(tag));
    entry = only_entry(tmp.path);
    original = read_bytes(entry);
  }
  TempDir tmp;
  ScopedEnv cache{"MLX_LITE_KERNEL_CACHE", tmp.path.string()};
  const std::string tag = nonce();
  fs::path entry;
  std::string original;
};

// Fuzz: 200 damaged copies of one entry (seeded, so every run damages the
// same bytes), each a flip of 1 to 8 random bytes in the entry's header,
// GLSL or SPIR-V, or a truncation. Every call must compute the right
// result from a fresh compile (never from the damaged code, never a crash),
// count the entry as damaged, and leave the entry rewritten byte for byte.
TEST_F(KernelCacheEntryTest, DamagedEntriesAreNeverUsed) {
  {
    CacheDelta warm;
    ASSERT_TRUE(run_fresh(tag));
    ASSERT_EQ(warm.disk_hits(), 1u) << "an intact entry is used";
    ASSERT_EQ(warm.compiled(), 0u);
  }
  // The entry's parts: magic and header (32 bytes), GLSL, SPIR-V (the
  // words from the end; SPIR-V is at least its 5-word header).
  const std::string glsl_start = "#version 450";
  const size_t glsl_at = original.find(glsl_start);
  const size_t spirv_at = original.rfind(std::string("\x03\x02\x23\x07", 4));
  ASSERT_EQ(glsl_at, 32u);
  ASSERT_NE(spirv_at, std::string::npos);
  const size_t regions[3][2] = {{0, glsl_at}, {glsl_at, spirv_at}, {spirv_at, original.size()}};

  std::mt19937 rng(15);
  int counts[4] = {0, 0, 0, 0};  // header, GLSL, SPIR-V flips; truncations
  const auto start = std::chrono::steady_clock::now();
  for (int trial = 0; trial < 200; ++trial) {
    std::string bytes = original;
    const int kind = std::uniform_int_distribution<int>(0, 3)(rng);
    ++counts[kind];
    if (kind == 3) {
      bytes.resize(std::uniform_int_distribution<size_t>(0, original.size() - 1)(rng));
    } else {
      const int flips = std::uniform_int_distribution<int>(1, 8)(rng);
      for (int f = 0; f < flips; ++f) {
        const size_t at =
            std::uniform_int_distribution<size_t>(regions[kind][0], regions[kind][1] - 1)(rng);
        bytes[at] ^= static_cast<char>(std::uniform_int_distribution<int>(1, 255)(rng));
      }
      if (bytes == original) continue;  // flips that undid each other
    }
    write_bytes(entry, bytes);
    CacheDelta delta;
    EXPECT_TRUE(run_fresh(tag)) << "trial " << trial << ": a wrong result";
    EXPECT_EQ(delta.disk_hits(), 0u) << "trial " << trial << ": the damaged entry was used";
    EXPECT_EQ(delta.compiled(), 1u) << "trial " << trial;
    // A flip that turns the magic into an older format's is replaced
    // without a report; all else is reported as damaged.
    const bool older_format =
        bytes.compare(0, 7, "MLXKSPV") == 0 && bytes.size() >= 8 && bytes[7] != original[7];
    EXPECT_EQ(delta.damaged(), older_format ? 0u : 1u) << "trial " << trial;
    EXPECT_EQ(read_bytes(entry), original) << "trial " << trial << ": not rewritten";
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << fmt::format(
      "200 damaged entries ({} header, {} GLSL, {} SPIR-V flips, {} truncations) in {:.1f} s: "
      "each recompiled, none used\n",
      counts[0], counts[1], counts[2], counts[3], seconds);
}

// What a crashed or interrupted writer can leave: an entry cut anywhere
// (its temporary file is never read), or nothing at all.
TEST_F(KernelCacheEntryTest, TruncatedEntriesAreRecompiled) {
  // A temporary file of a writer that died: ignored, never read.
  write_bytes(entry.string() + ".1234.abcd.tmp", original.substr(0, 40));
  for (size_t length : {size_t{0}, size_t{7}, size_t{8}, size_t{31}, size_t{32}, size_t{33},
                        original.size() / 2, original.size() - 4, original.size() - 1}) {
    write_bytes(entry, original.substr(0, length));
    CacheDelta delta;
    EXPECT_TRUE(run_fresh(tag)) << "cut at " << length;
    EXPECT_EQ(delta.compiled(), 1u) << "cut at " << length;
    EXPECT_EQ(delta.damaged(), 1u) << "cut at " << length;
    EXPECT_EQ(read_bytes(entry), original) << "cut at " << length;
  }
  // Bytes appended are damage too.
  write_bytes(entry, original + "xxxx");
  CacheDelta delta;
  EXPECT_TRUE(run_fresh(tag));
  EXPECT_EQ(delta.damaged(), 1u);
  EXPECT_EQ(read_bytes(entry), original);
}

// An entry of the first format (no checksum) is replaced without a report.
TEST_F(KernelCacheEntryTest, OlderFormatEntriesAreReplaced) {
  // Format 1: magic MLXKSPV1, the GLSL's length and text, the SPIR-V.
  const std::string glsl =
      original.substr(32, original.find(std::string("\x03\x02\x23\x07", 4)) - 32);
  std::string v1 = "MLXKSPV1";
  const uint64_t length = glsl.size();
  v1.append(reinterpret_cast<const char*>(&length), 8);
  v1 += glsl + original.substr(32 + glsl.size());
  write_bytes(entry, v1);
  CacheDelta delta;
  EXPECT_TRUE(run_fresh(tag));
  EXPECT_EQ(delta.compiled(), 1u);
  EXPECT_EQ(delta.damaged(), 0u);
  EXPECT_EQ(read_bytes(entry), original);
}

// A damaged entry is reported once, as a warning in the log (on by default).
TEST_F(KernelCacheEntryTest, ADamagedEntryIsReportedOnce) {
  std::string bytes = original;
  bytes[bytes.size() - 5] ^= 0x10;  // in the SPIR-V's last instruction
  write_bytes(entry, bytes);
  ::testing::internal::CaptureStderr();
  const bool ok = run_fresh(tag) && run_fresh(tag);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(ok);
  const std::string want = fmt::format(
      "[mlx_lite] warning: kernel cache entry {} is damaged (checksum mismatch); deleted, the "
      "kernel is compiled again",
      entry.string());
  EXPECT_NE(err.find(want), std::string::npos) << err;
  EXPECT_EQ(err.find(want), err.rfind(want)) << "reported twice:\n" << err;
}

// Resident memory of this process, in bytes.
size_t rss_bytes() {
  size_t pages = 0, resident = 0;
  std::ifstream("/proc/self/statm") >> pages >> resident;
  return resident * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

// A cheap kernel of its own: out = inp + k.
fast::CustomKernelFunction numbered_kernel(const std::string& tag, int k) {
  return fast::vulkan_kernel(
      "numbered", {"inp"}, {"out"},
      fmt::format("uint i = thread_position_in_grid.x;\nout[i] = inp[i] + {}.0; // {}\n", k, tag));
}

// Many kernels built, run and dropped, as by an autotuner: the caches hold
// at most their limit, and host memory stops growing once they are full.
TEST_F(KernelCacheTest, CachesStayWithinTheirLimit) {
  ScopedEnv no_disk("MLX_LITE_KERNEL_CACHE", "off");
  constexpr size_t kLimit = 16;
  ScopedKernelCacheLimit limit(kLimit);
  const std::string tag = nonce();
  array x = arange(32.0, float32);
  // Kept from the start: its compiled kernel and pipeline are evicted
  // from the caches, yet it keeps working.
  auto kept = numbered_kernel(tag, -1);
  auto run = [&](const fast::CustomKernelFunction& kernel, int k, int group) {
    auto v = values(kernel({x}, {{32}}, {float32}, {32, 1, 1}, {group, 1, 1})[0]);
    for (int i = 0; i < 32; ++i) {
      if (v[i] != i + k) return false;
    }
    return true;
  };
  ASSERT_TRUE(run(kept, -1, 32));
  constexpr int kKernels = 1000;
  size_t rss_at_200 = 0;
  const auto start = std::chrono::steady_clock::now();
  for (int k = 0; k < kKernels; ++k) {
    // Every tenth kernel also with a second threadgroup size: a second pipeline.
    auto kernel = numbered_kernel(tag, k);
    ASSERT_TRUE(run(kernel, k, 32)) << "kernel " << k;
    if (k % 10 == 0) {
      ASSERT_TRUE(run(kernel, k, 16)) << "kernel " << k;
    }
    const auto stats = fast::kernel_cache_stats();
    ASSERT_LE(stats.kernels_cached, kLimit) << "kernel " << k;
    ASSERT_LE(stats.pipelines_cached, kLimit) << "kernel " << k;
    if (k == 199) rss_at_200 = rss_bytes();
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const size_t rss_at_end = rss_bytes();
  std::cout << fmt::format(
      "{} kernels, 1100 pipelines, in {:.1f} s ({:.1f} ms a kernel); RSS {:.1f} MB after 200, "
      "{:.1f} MB after {}\n",
      kKernels, seconds, 1e3 * seconds / kKernels, rss_at_200 / 1e6, rss_at_end / 1e6, kKernels);
  // Unbounded, 800 more kernels held 800 * ~0.4 MB; bounded, the
  // allocator's noise only. Not under AddressSanitizer, whose quarantine
  // holds freed memory back (up to 256 MB): the cache sizes above are
  // checked there all the same.
#if !defined(__SANITIZE_ADDRESS__)
  EXPECT_LT(rss_at_end, rss_at_200 + (size_t{24} << 20));
#endif
  EXPECT_TRUE(run(kept, -1, 32)) << "a kernel held by the caller after its eviction";
  EXPECT_TRUE(run(kept, -1, 8)) << "and with a new threadgroup size";
  // clear_cache() empties both; held kernels still work.
  clear_cache();
  EXPECT_EQ(fast::kernel_cache_stats().kernels_cached, 0u);
  EXPECT_EQ(fast::kernel_cache_stats().pipelines_cached, 0u);
  EXPECT_TRUE(run(kept, -1, 32)) << "after clear_cache()";
  EXPECT_EQ(fast::kernel_cache_stats().pipelines_cached, 1u);
}

// A lower limit evicts at once, and returns the previous one.
TEST_F(KernelCacheTest, SetKernelCacheLimitReturnsThePreviousOne) {
  ScopedEnv no_disk("MLX_LITE_KERNEL_CACHE", "off");
  ScopedKernelCacheLimit limit(10);
  const std::string tag = nonce();
  array x = arange(8.0, float32);
  for (int k = 0; k < 6; ++k) {
    eval(numbered_kernel(tag, k)({x}, {{8}}, {float32}, {8, 1, 1}, {8, 1, 1}));
  }
  EXPECT_GE(fast::kernel_cache_stats().kernels_cached, 6u);
  EXPECT_EQ(fast::set_kernel_cache_limit(3), 10u);
  EXPECT_LE(fast::kernel_cache_stats().kernels_cached, 3u);
  EXPECT_LE(fast::kernel_cache_stats().pipelines_cached, 3u);
  EXPECT_EQ(fast::set_kernel_cache_limit(0), 3u);
  EXPECT_EQ(fast::kernel_cache_stats().kernels_cached, 0u);
  EXPECT_EQ(fast::kernel_cache_stats().pipelines_cached, 0u);
  // With no cache at all, kernels still run (compiled per call site).
  test_util::expect_values(numbered_kernel(tag, 7)({x}, {{8}}, {float32}, {8, 1, 1}, {8, 1, 1})[0],
                           {7, 8, 9, 10, 11, 12, 13, 14}, 0, "limit 0");
}

// One eval binds kernel A's pipeline, then creates the pipelines of 12 other
// kernels with a limit of 2, so A's is evicted while the batch that binds it
// is still being recorded: the batch keeps it alive (under the validation
// layer, a destroyed pipeline in a command buffer is an error).
TEST_F(KernelCacheTest, APipelineEvictedWhileRecordedStaysAlive) {
  ScopedEnv no_disk("MLX_LITE_KERNEL_CACHE", "off");
  ScopedKernelCacheLimit limit(2);
  const std::string tag = nonce();
  array x = arange(64.0, float32);
  auto a = numbered_kernel(tag, 1000);
  array y = a({x}, {{64}}, {float32}, {64, 1, 1}, {64, 1, 1})[0];
  std::vector<array> outs = {y};
  for (int k = 0; k < 12; ++k) {
    outs.push_back(numbered_kernel(tag, k)({y}, {{64}}, {float32}, {64, 1, 1}, {64, 1, 1})[0]);
  }
  eval(outs);
  for (int k = 0; k < 12; ++k) {
    auto v = values(outs[k + 1]);
    for (int i = 0; i < 64; ++i) ASSERT_EQ(v[i], i + 1000 + k) << "kernel " << k << " at " << i;
  }
}

// lavapipe stops an invocation after 65,535 loop iterations: a kernel whose
// loop bound is a constant past that is warned of there, and runs short
// (docs/custom_kernels.md documents it); a short loop is not warned of.
TEST_F(KernelCacheTest, LoopsPastLavapipesCapAreWarnedOf) {
  const bool llvmpipe = vulkan::Device::get().name().starts_with("llvmpipe");
  const std::string tag = nonce();
  auto kernel = fast::vulkan_kernel("long_loop", {"inp"}, {"out"},
                                    "float acc = 0.0;\n"
                                    "for (int k = 0; k < N; ++k) acc += inp[0];\n"
                                    "out[0] = acc; // " +
                                        tag + "\n");
  array one = array({1.0f});
  auto run = [&](int n, float& result) {
    ::testing::internal::CaptureStderr();
    result = kernel({one}, {{1}}, {float32}, {1, 1, 1}, {1, 1, 1}, {{"N", n}})[0].item<float>();
    return ::testing::internal::GetCapturedStderr();
  };
  float result;
  const std::string long_err = run(100000, result);
  const std::string warning = "warning: kernel 'long_loop' has a loop bounded by 100000";
  if (llvmpipe) {
    EXPECT_NE(long_err.find(warning), std::string::npos) << long_err;
    EXPECT_EQ(result, 65535.0f) << "the cap docs/custom_kernels.md documents";
  } else {
    EXPECT_EQ(long_err.find(warning), std::string::npos) << long_err;
    EXPECT_EQ(result, 100000.0f);
  }
  const std::string short_err = run(1000, result);
  EXPECT_EQ(short_err.find("warning"), std::string::npos) << short_err;
  EXPECT_EQ(result, 1000.0f);
}

}  // namespace
