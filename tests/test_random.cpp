// Random numbers: key, seed, bits, split, uniform and normal. Expected values
// come from MLX's own tests (which took them from JAX's threefry) and from an
// independent scalar threefry2x32-20 written here and checked against the
// Random123 known-answer vectors.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "mlx_lite/mlx_lite.h"
#include "mlx_lite/primitives/random.h"
#include "tests/test_util.h"

using namespace mlx_lite;
using test_util::error_of;
using test_util::values_as;

namespace {

// ---- The reference: Random123's threefry2x32 with 20 rounds, unrolled as the
// paper describes it (rotation constants R[r % 8], key injection every 4 rounds).
uint32_t rotl(uint32_t x, uint32_t r) {
  return (x << r) | (x >> (32 - r));
}

std::array<uint32_t, 2> ref_threefry(std::array<uint32_t, 2> ctr, std::array<uint32_t, 2> key) {
  static constexpr uint32_t R[8] = {13, 15, 26, 6, 17, 29, 16, 24};
  const uint32_t ks[3] = {key[0], key[1], 0x1BD11BDAu ^ key[0] ^ key[1]};
  uint32_t x0 = ctr[0] + ks[0], x1 = ctr[1] + ks[1];
  for (uint32_t round = 0; round < 20; ++round) {
    x0 += x1;
    x1 = rotl(x1, R[round % 8]) ^ x0;
    if (round % 4 == 3) {
      uint32_t inj = round / 4 + 1;
      x0 += ks[inj % 3];
      x1 += ks[(inj + 1) % 3] + inj;
    }
  }
  return {x0, x1};
}

// n elements of `width` bytes from one key, following MLX's layout: the key's
// stream has W = ceil(n * width / 4) words; counter (i, i + ceil(W/2)) gives
// words i and i + ceil(W/2); an odd W takes word W/2 from counter (W/2, 0);
// elements are the stream's little-endian bytes.
std::vector<uint32_t> ref_bits(uint32_t k0, uint32_t k1, size_t n, int width) {
  const size_t nbytes = n * width;
  const size_t w = (nbytes + 3) / 4;
  const size_t h = (w + 1) / 2;
  std::vector<uint32_t> words(w);
  for (size_t i = 0; i < w / 2; ++i) {
    auto r = ref_threefry({uint32_t(i), uint32_t(i + h)}, {k0, k1});
    words[i] = r[0];
    words[i + h] = r[1];
  }
  if (w % 2 == 1) words[w / 2] = ref_threefry({uint32_t(w / 2), 0}, {k0, k1})[0];
  static_assert(std::endian::native == std::endian::little);
  std::vector<uint8_t> bytes(w * 4);
  if (!bytes.empty()) std::memcpy(bytes.data(), words.data(), bytes.size());  // data() may be null
  std::vector<uint32_t> out(n);
  for (size_t e = 0; e < n; ++e) {
    for (int b = 0; b < width; ++b) out[e] |= uint32_t(bytes[e * width + b]) << (8 * b);
  }
  return out;
}

std::vector<uint32_t> u32(array a) {
  if (a.dtype() == uint8) {
    auto v = values_as<uint8_t>(a);
    return {v.begin(), v.end()};
  }
  if (a.dtype() == uint16) {
    auto v = values_as<uint16_t>(a);
    return {v.begin(), v.end()};
  }
  return values_as<uint32_t>(a);
}

// A float32 array of `shape` holding `v` everywhere.
array filled(const Shape& shape, float v) {
  size_t n = 1;
  for (auto d : shape) n *= d;
  std::vector<float> data(n, v);
  return array(data.begin(), shape);
}

array ukey(uint32_t k0, uint32_t k1) {
  return array({k0, k1});
}

// bits -> [0, 1) exactly as MLX: float32 division by 2^32 - 1 (which rounds
// to 2^32), clamped to the largest value below one.
float ref_unit(uint32_t b) {
  return std::min(static_cast<float>(b) / 4294967295.0f, std::nextafter(1.0f, 0.0f));
}

double mean_of(const std::vector<float>& v) {
  double s = 0;
  for (float x : v) s += x;
  return s / v.size();
}

double var_of(const std::vector<float>& v) {
  double m = mean_of(v), s = 0;
  for (float x : v) s += (x - m) * (x - m);
  return s / v.size();
}

// Inverse error function in double by bisection (independent of erfinv's
// polynomial): only for checking normal to a tolerance.
double ref_erfinv(double y) {
  double lo = -7, hi = 7;
  for (int i = 0; i < 80; ++i) {
    double mid = 0.5 * (lo + hi);
    (std::erf(mid) < y ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

#define EXPECT_INVALID(expr, fragment)                                           \
  do {                                                                           \
    EXPECT_THROW((void)(expr), std::invalid_argument);                           \
    EXPECT_NE(error_of([&] { (void)(expr); }).find(fragment), std::string::npos) \
        << error_of([&] { (void)(expr); });                                      \
  } while (0)

}  // namespace

// ---- The hash itself.

TEST(Random, ReferenceThreefryKnownAnswers) {
  // Random123's kat_vectors: threefry2x32 20 ctr0 ctr1 key0 key1 -> out0 out1.
  struct Kat {
    uint32_t c0, c1, k0, k1, o0, o1;
  };
  const Kat kats[] = {
      {0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x6b200159, 0x99ba4efe},
      {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0x1cb996fc, 0xbb002be7},
      {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xc4923a9c, 0x483df7a0},
  };
  for (const auto& k : kats) {
    auto r = ref_threefry({k.c0, k.c1}, {k.k0, k.k1});
    EXPECT_EQ(r[0], k.o0);
    EXPECT_EQ(r[1], k.o1);
    // The library's hash (the one the GPU kernel will mirror) agrees.
    auto l = random::threefry2x32(k.k0, k.k1, k.c0, k.c1);
    EXPECT_EQ(l.first, k.o0);
    EXPECT_EQ(l.second, k.o1);
  }
}

TEST(Random, BitsWordIsAPureFunctionOfKeyAndIndex) {
  // random::bits_word is what a GPU thread computes for one word.
  for (uint64_t w : {1, 2, 3, 4, 7, 10}) {
    auto expect = ref_bits(3, 0xdeadbeef, w, 4);
    for (uint64_t j = 0; j < w; ++j) EXPECT_EQ(random::bits_word(3, 0xdeadbeef, j, w), expect[j]);
  }
}

// ---- key, seed, split.

TEST(Random, Key) {
  EXPECT_EQ(random::key(0).dtype(), uint32);
  EXPECT_EQ(random::key(0).shape(), Shape{2});
  EXPECT_EQ(u32(random::key(0)), (std::vector<uint32_t>{0, 0}));
  EXPECT_EQ(u32(random::key(1)), (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(u32(random::key(uint64_t{1} << 32)), (std::vector<uint32_t>{1, 0}));
  EXPECT_EQ(u32(random::key((uint64_t{1} << 32) + 1)), (std::vector<uint32_t>{1, 1}));
  EXPECT_EQ(u32(random::key(0x0123456789abcdefULL)),
            (std::vector<uint32_t>{0x01234567u, 0x89abcdefu}));
}

TEST(Random, GlobalSeed) {
  random::seed(4);
  auto x = random::bits({});
  auto y = random::bits({});
  random::seed(4);
  auto a = random::bits({});
  auto b = random::bits({});
  EXPECT_EQ(x.item<uint32_t>(), a.item<uint32_t>());
  EXPECT_EQ(y.item<uint32_t>(), b.item<uint32_t>());
  EXPECT_NE(x.item<uint32_t>(), y.item<uint32_t>());
  // The global sequence splits its key and hands out the second half (MLX).
  auto [kept, given] = random::split(random::key(4));
  EXPECT_EQ(x.item<uint32_t>(), random::bits({}, given).item<uint32_t>());
  EXPECT_EQ(y.item<uint32_t>(), random::bits({}, random::split(kept).second).item<uint32_t>());
  // Samplers without a key draw from the same sequence.
  random::seed(4);
  auto u = values_as<float>(random::uniform({5}));
  auto expect = values_as<float>(random::uniform({5}, given));
  EXPECT_EQ(u, expect);
}

TEST(Random, SplitKnownValues) {
  // MLX's tests/random_tests.cpp.
  auto [key, subkey] = random::split(random::key(0));
  EXPECT_EQ(key.shape(), Shape{2});
  EXPECT_EQ(u32(key), (std::vector<uint32_t>{4146024105u, 967050713u}));
  EXPECT_EQ(u32(subkey), (std::vector<uint32_t>{2718843009u, 1272950319u}));
  auto keys = random::split(random::key(0), 3);
  EXPECT_EQ(keys.shape(), (Shape{3, 2}));
  EXPECT_EQ(keys.dtype(), uint32);
  EXPECT_EQ(u32(keys), (std::vector<uint32_t>{2467461003u, 428148500u, 3186719485u, 3840466878u,
                                              2562233961u, 1946702221u}));
  EXPECT_EQ(random::split(random::key(0), 0).shape(), (Shape{0, 2}));
}

TEST(Random, SplitKeysAreIndependent) {
  auto [k1, k2] = random::split(random::key(7));
  EXPECT_NE(u32(k1), u32(k2));
  auto r1 = random::split(random::key(7));
  EXPECT_EQ(u32(k1), u32(r1.first));
  EXPECT_EQ(u32(k2), u32(r1.second));
  const int n = 100000;
  auto a = values_as<float>(random::uniform({n}, k1));
  auto b = values_as<float>(random::uniform({n}, k2));
  double ma = mean_of(a), mb = mean_of(b), cov = 0;
  for (int i = 0; i < n; ++i) cov += (a[i] - ma) * (b[i] - mb);
  double corr = cov / n / std::sqrt(var_of(a) * var_of(b));
  EXPECT_LT(std::abs(corr), 0.02);
  // The n keys of split(key, n) are distinct.
  auto many = u32(random::split(random::key(7), 64));
  for (int i = 0; i < 64; ++i) {
    for (int j = 0; j < i; ++j) {
      EXPECT_FALSE(many[2 * i] == many[2 * j] && many[2 * i + 1] == many[2 * j + 1]);
    }
  }
}

// ---- bits.

TEST(Random, BitsKnownValues) {
  // MLX's tests/random_tests.cpp (values from JAX's threefry).
  auto k0 = random::key(0);
  auto x = random::bits({}, k0);
  EXPECT_EQ(x.dtype(), uint32);
  EXPECT_EQ(x.shape(), Shape{});
  EXPECT_EQ(x.item<uint32_t>(), 1797259609u);
  EXPECT_EQ(random::bits({}, 2, k0).item<uint16_t>(), 345u);
  EXPECT_EQ(random::bits({}, 1, k0).item<uint8_t>(), 89u);
  auto k1 = random::key(1);
  EXPECT_EQ(random::bits({}, k1).item<uint32_t>(), 507451445u);
  EXPECT_EQ(random::bits({}, 2, k1).item<uint16_t>(), 6197u);
  EXPECT_EQ(random::bits({}, 1, k1).item<uint8_t>(), 53u);

  auto b31 = random::bits({3, 1}, k0);
  EXPECT_EQ(b31.shape(), (Shape{3, 1}));
  EXPECT_EQ(u32(b31), (std::vector<uint32_t>{4146024105u, 1351547692u, 2718843009u}));
  EXPECT_EQ(u32(random::bits({5}, 2, k0)),
            (std::vector<uint32_t>{20137, 63263, 64300, 20622, 16513}));
  EXPECT_EQ(u32(random::bits({6}, 2, k0)),
            (std::vector<uint32_t>{20137, 63263, 64300, 20622, 16513, 41486}));
  EXPECT_EQ(u32(random::bits({7}, 2, k0)),
            (std::vector<uint32_t>{20137, 63263, 1497, 14756, 16513, 41486, 44591}));
  EXPECT_EQ(u32(random::bits({8}, 2, k0)),
            (std::vector<uint32_t>{20137, 63263, 1497, 14756, 16513, 41486, 44591, 19423}));
  EXPECT_EQ(random::bits({0}, k0).size(), 0u);
}

TEST(Random, BitsMatchReferenceForEveryWidthAndCount) {
  for (int width : {1, 2, 4}) {
    for (size_t n : {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 16, 17, 31, 100, 1001}) {
      auto key = ukey(0x12345678u, static_cast<uint32_t>(n * 977 + width));
      auto b = random::bits({static_cast<int>(n)}, width, key);
      EXPECT_EQ(b.dtype(), width == 1 ? uint8 : (width == 2 ? uint16 : uint32));
      EXPECT_EQ(u32(b), ref_bits(0x12345678u, static_cast<uint32_t>(n * 977 + width), n, width))
          << "width " << width << " n " << n;
    }
  }
  // Multi-dimensional shapes are one stream in row-major order.
  auto b = random::bits({3, 5, 7}, 1, random::key(99));
  EXPECT_EQ(u32(b), ref_bits(0, 99, 105, 1));
}

TEST(Random, BitsRangeOfEachWidth) {
  auto b1 = u32(random::bits({4000}, 1, random::key(5)));
  auto b2 = u32(random::bits({4000}, 2, random::key(5)));
  auto b4 = u32(random::bits({4000}, 4, random::key(5)));
  uint32_t m1 = 0, m2 = 0, m4 = 0;
  for (int i = 0; i < 4000; ++i) {
    m1 = std::max(m1, b1[i]);
    m2 = std::max(m2, b2[i]);
    m4 = std::max(m4, b4[i]);
  }
  EXPECT_EQ(m1, 255u);  // 4000 draws reach the top byte value
  EXPECT_LT(m2, 65536u);
  EXPECT_GT(m2, 65000u);
  EXPECT_GT(m4, 4000000000u);
}

TEST(Random, BitsAreLazyAndDeterministic) {
  auto key = random::key(3);
  auto b = random::bits({10}, key);
  EXPECT_TRUE(b.has_primitive());
  EXPECT_FALSE(b.is_available());
  EXPECT_STREQ(b.primitive().name(), "RandomBits");
  EXPECT_EQ(u32(b), u32(random::bits({10}, key)));
  EXPECT_NE(u32(b), u32(random::bits({10}, random::key(4))));
}

TEST(Random, BatchedKeysGiveOneStreamEach) {
  // A key of shape (..., 2) fills the output's leading blocks, one per key:
  // what MLX's vmap of bits computes (values from MLX's tests).
  auto keys = array({0u, 0u, 1u, 1u}, {2, 2});
  auto out = random::bits({2, 3}, keys);
  EXPECT_EQ(u32(out), (std::vector<uint32_t>{4146024105u, 1351547692u, 2718843009u, 3725146706u,
                                             1802982961u, 1349634643u}));
  // Transposed keys (a strided view): both rows are the key (0, 1).
  auto t = transpose(keys);
  EXPECT_EQ(u32(random::bits({2, 3}, t)),
            (std::vector<uint32_t>{2441914641u, 1110694964u, 3819641963u, 2441914641u, 1110694964u,
                                   3819641963u}));
  auto keys3 = array({0u, 0u, 1u, 1u, 2u, 2u, 3u, 3u, 4u, 4u, 5u, 5u}, {3, 2, 2});
  EXPECT_EQ(u32(random::bits({3, 2, 2}, keys3)),
            (std::vector<uint32_t>{928981903u, 3453687069u, 3606183818u, 460005496u, 2799733733u,
                                   856293553u, 4081856343u, 3445925136u, 2775548010u, 1430281703u,
                                   305173070u, 2615843348u}));
  EXPECT_EQ(u32(random::bits({3, 2, 2}, transpose(keys3, {0, 2, 1}))),
            (std::vector<uint32_t>{1948878966u, 4237131848u, 1948878966u, 4237131848u, 2531170506u,
                                   1858648356u, 2531170506u, 1858648356u, 740561898u, 4234094099u,
                                   740561898u, 4234094099u}));
  // Each block equals bits of that key alone, for a narrow width too.
  auto small = random::bits({2, 5}, 2, keys);
  auto v = u32(small);
  EXPECT_EQ(std::vector<uint32_t>(v.begin(), v.begin() + 5), u32(random::bits({5}, 2, ukey(0, 0))));
  EXPECT_EQ(std::vector<uint32_t>(v.begin() + 5, v.end()), u32(random::bits({5}, 2, ukey(1, 1))));
  // A key read from a sliced view with a negative step.
  auto rev = slice(keys, {1, 0}, {-3, 2}, {-1, 1});
  EXPECT_EQ(u32(random::bits({2, 3}, rev)),
            (std::vector<uint32_t>{3725146706u, 1802982961u, 1349634643u, 4146024105u, 1351547692u,
                                   2718843009u}));
}

TEST(Random, KeyAsAView) {
  // split's keys are slices of one RandomBits output; a key that is a strided
  // view gives the same numbers as a contiguous copy of it.
  auto keys = random::split(random::key(11), 4);
  auto k = reshape(slice(keys, {2, 0}, {3, 2}), {2});
  auto flat = u32(k);
  EXPECT_EQ(u32(random::bits({9}, k)), ref_bits(flat[0], flat[1], 9, 4));
  // Column 0 of the first two keys: a key whose two words are 2 apart.
  auto all = u32(keys);
  auto col = reshape(slice(keys, {0, 0}, {2, 1}), {2});
  EXPECT_EQ(u32(random::bits({9}, col)), ref_bits(all[0], all[2], 9, 4));
}

// ---- uniform.

TEST(Random, UniformKnownValues) {
  // MLX's tests: uniform is bits / UINT32_MAX in float32.
  auto to_float = [](uint32_t n) { return static_cast<float>(n) / UINT32_MAX; };
  auto x = random::uniform({}, random::key(0));
  EXPECT_EQ(x.dtype(), float32);
  EXPECT_EQ(x.shape(), Shape{});
  EXPECT_EQ(x.item<float>(), to_float(1797259609u));
  EXPECT_EQ(random::uniform({}, random::key(1)).item<float>(), to_float(507451445u));
  EXPECT_EQ(
      values_as<float>(random::uniform({3, 1}, random::key(0))),
      (std::vector<float>{to_float(4146024105u), to_float(1351547692u), to_float(2718843009u)}));
  EXPECT_EQ(random::uniform({0}).size(), 0u);
}

TEST(Random, UniformFloat32MatchesReference) {
  const int n = 1001;
  auto key = random::key(2024);
  auto bits = ref_bits(0, 2024, n, 4);
  auto u = values_as<float>(random::uniform({n}, key));
  auto s = values_as<float>(random::uniform(-2.5f, 4.0f, {n}, float32, key));
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(u[i], ref_unit(bits[i])) << i;
    ASSERT_EQ(s[i], 6.5f * ref_unit(bits[i]) + -2.5f) << i;
  }
}

TEST(Random, UniformBroadcastsLowAndHigh) {
  auto key = random::key(8);
  auto bits = ref_bits(0, 8, 12, 4);
  // low (3, 1), high (1, 4) -> (3, 4).
  auto low = array({-1.0f, 0.0f, 10.0f}, {3, 1});
  auto high = array({1.0f, 2.0f, 3.0f, 20.0f}, {1, 4});
  auto u = values_as<float>(random::uniform(low, high, {3, 4}, float32, key));
  const float lo[3] = {-1, 0, 10}, hi[4] = {1, 2, 3, 20};
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 4; ++j) {
      EXPECT_EQ(u[i * 4 + j], (hi[j] - lo[i]) * ref_unit(bits[i * 4 + j]) + lo[i]);
    }
  }
  // Strided bounds: a transposed low and a reversed high give the same numbers
  // as their contiguous equivalents.
  auto low_t = transpose(array({-1.0f, 0.0f, 10.0f, 1.0f, 2.0f, 3.0f}, {2, 3}));  // (3, 2)
  auto high_r = slice(array({5.0f, 6.0f}), {1}, {-3}, {-1});                      // [6, 5]
  auto a = values_as<float>(random::uniform(low_t, high_r, {4, 3, 2}, float32, key));
  auto b = values_as<float>(random::uniform(array({-1.0f, 1.0f, 0.0f, 2.0f, 10.0f, 3.0f}, {3, 2}),
                                            array({6.0f, 5.0f}), {4, 3, 2}, float32, key));
  EXPECT_EQ(a, b);
  // Integer bounds are cast to the dtype.
  auto c = values_as<float>(random::uniform(array(-1), array(5), {1000}, float32, key));
  for (float v : c) {
    EXPECT_GE(v, -1.0f);
    EXPECT_LT(v, 5.0f);
  }
}

TEST(Random, UniformWithDoubleBounds) {
  // MLX code writes bounds as double literals (uniform(-1.0, 5.0, ...)); they
  // must be taken as those values. Needs array(double) to convert the double.
  auto key = random::key(9);
  auto a = values_as<float>(random::uniform(-1.0, 5.0, {100}, float32, key));
  auto b = values_as<float>(random::uniform(-1.0f, 5.0f, {100}, float32, key));
  EXPECT_EQ(a, b);
}

TEST(Random, UniformHalfTypesMatchReference) {
  const int n = 2000;
  auto key = random::key(77);
  auto bits = ref_bits(0, 77, n, 4);
  {
    auto h = random::uniform({n}, float16, key);
    EXPECT_EQ(h.dtype(), float16);
    auto v = values_as<float16_t>(h);
    const float below = float16_t::from_bits(0x3BFF);
    for (int i = 0; i < n; ++i) {
      float u = float(float16_t(std::min(static_cast<float>(bits[i]) / 4294967295.0f, below)));
      ASSERT_EQ(v[i].bits, float16_t(u).bits) << i;
      ASSERT_LT(float(v[i]), 1.0f);
      ASSERT_GE(float(v[i]), 0.0f);
    }
    // With bounds: range and low in float16, each op rounded to float16.
    auto w = values_as<float16_t>(random::uniform(array(-0.1f), array(0.3f), {n}, float16, key));
    const float lo = float16_t(-0.1f), range = float16_t(float(float16_t(0.3f)) - lo);
    for (int i = 0; i < n; ++i) {
      float u = float(float16_t(std::min(static_cast<float>(bits[i]) / 4294967295.0f, below)));
      float expect = float16_t(float(float16_t(range * u)) + lo);
      ASSERT_EQ(float(w[i]), expect) << i;
    }
  }
  {
    auto h = random::uniform({n}, bfloat16, key);
    EXPECT_EQ(h.dtype(), bfloat16);
    auto v = values_as<bfloat16_t>(h);
    const float below = bfloat16_t::from_bits(0x3F7F);
    double sum = 0;
    for (int i = 0; i < n; ++i) {
      float u = std::min(static_cast<float>(bits[i]) / 4294967295.0f, below);
      ASSERT_EQ(v[i].bits, bfloat16_t(u).bits) << i;
      ASSERT_LT(float(v[i]), 1.0f);
      sum += float(v[i]);
    }
    EXPECT_NEAR(sum / n, 0.5, 0.03);
  }
}

TEST(Random, UniformStatistics) {
  const int n = 100000;
  auto u = values_as<float>(random::uniform({n}, random::key(123)));
  EXPECT_NEAR(mean_of(u), 0.5, 5e-3);
  EXPECT_NEAR(var_of(u), 1.0 / 12, 2e-3);
  auto r = values_as<float>(random::uniform(-3.0f, 5.0f, {n}, float32, random::key(124)));
  for (float v : r) {
    ASSERT_GE(v, -3.0f);
    ASSERT_LT(v, 5.0f);
  }
  EXPECT_NEAR(mean_of(r), 1.0, 0.04);
  EXPECT_NEAR(var_of(r), 64.0 / 12, 0.1);
}

// ---- normal.

TEST(Random, NormalIsSqrt2ErfinvOfUniform) {
  // MLX composes normal as sqrt(2) * erfinv(uniform(nextafter(-1, 0), 1)).
  const int n = 1000;
  auto key = random::key(31);
  auto x = random::normal({n}, key);
  EXPECT_EQ(x.dtype(), float32);
  auto got = values_as<float>(x);
  auto u = values_as<float>(
      random::uniform(array(std::nextafter(-1.0f, 0.0f)), array(1.0f), {n}, float32, key));
  auto e = values_as<float>(
      erfinv(random::uniform(array(std::nextafter(-1.0f, 0.0f)), array(1.0f), {n}, float32, key)));
  const float sqrt2 = std::sqrt(2.0f);
  auto bits = ref_bits(0, 31, n, 4);
  for (int i = 0; i < n; ++i) {
    // The uniform step, from the reference bits.
    float lo = std::nextafter(-1.0f, 0.0f);
    ASSERT_EQ(u[i], (1.0f - lo) * ref_unit(bits[i]) + lo) << i;
    ASSERT_EQ(got[i], sqrt2 * e[i]) << i;
    // And against an independent erfinv, to a float tolerance.
    double ref = std::sqrt(2.0) * ref_erfinv(u[i]);
    ASSERT_NEAR(got[i], ref, 1e-5 * std::max(1.0, std::abs(ref))) << i;
  }
}

TEST(Random, NormalLocScale) {
  auto key = random::key(0);
  auto a = values_as<float>(random::normal({3, 2}, float32, 1.0f, 2.0f, key));
  auto b = values_as<float>(random::normal({3, 2}, key));
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(a[i], 2.0f * b[i] + 1.0f, 1e-5);
  // Array loc and scale, broadcast: loc (3, 1), scale (2).
  auto loc = array({0.0f, 10.0f, -10.0f}, {3, 1});
  auto scale = array({1.0f, 0.5f});
  auto c = values_as<float>(random::normal({3, 2}, float32, loc, scale, key));
  const float l[3] = {0, 10, -10}, sc[2] = {1, 0.5};
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 2; ++j) EXPECT_NEAR(c[i * 2 + j], l[i] + sc[j] * b[i * 2 + j], 1e-5);
  }
  // loc 0 and scale 1 are the standard normal, bit for bit.
  EXPECT_EQ(values_as<float>(random::normal({3, 2}, float32, 0.0f, 1.0f, key)), b);
}

TEST(Random, NormalStatistics) {
  const int n = 100000;
  auto x = values_as<float>(random::normal({n}, random::key(128291)));
  for (float v : x) ASSERT_TRUE(std::isfinite(v));
  EXPECT_NEAR(mean_of(x), 0.0, 0.015);
  EXPECT_NEAR(var_of(x), 1.0, 0.02);
  auto y = values_as<float>(random::normal({n}, float32, 3.0f, 0.5f, random::key(5)));
  EXPECT_NEAR(mean_of(y), 3.0, 0.01);
  EXPECT_NEAR(var_of(y), 0.25, 0.006);
}

TEST(Random, NormalHalfTypes) {
  const int n = 20000;
  auto key = random::key(128291);
  auto e = values_as<float>(
      erfinv(random::uniform(array(std::nextafter(-1.0f, 0.0f)), array(1.0f), {n}, float32, key)));
  {
    auto h = random::normal({n}, float16, key);
    EXPECT_EQ(h.dtype(), float16);
    auto v = values_as<float16_t>(h);
    const float sqrt2 = float16_t(std::sqrt(2.0f));
    std::vector<float> f(n);
    for (int i = 0; i < n; ++i) {
      ASSERT_EQ(v[i].bits, float16_t(sqrt2 * float(float16_t(e[i]))).bits) << i;
      f[i] = v[i];
      ASSERT_TRUE(std::isfinite(f[i]));
    }
    EXPECT_NEAR(mean_of(f), 0.0, 0.03);
    EXPECT_NEAR(var_of(f), 1.0, 0.04);
  }
  {
    auto h = random::normal({n}, bfloat16, 1.0f, 2.0f, key);
    EXPECT_EQ(h.dtype(), bfloat16);
    auto v = values_as<bfloat16_t>(h);
    // MLX: (sqrt(2) * scale) * erfinv(u) + loc, every op rounded to bfloat16.
    const float applied = bfloat16_t(float(bfloat16_t(std::sqrt(2.0f))) * 2.0f);
    std::vector<float> f(n);
    for (int i = 0; i < n; ++i) {
      float scaled = bfloat16_t(applied * float(bfloat16_t(e[i])));
      ASSERT_EQ(v[i].bits, bfloat16_t(1.0f + scaled).bits) << i;
      f[i] = v[i];
      ASSERT_TRUE(std::isfinite(f[i]));
    }
    EXPECT_NEAR(mean_of(f), 1.0, 0.06);
    EXPECT_NEAR(var_of(f), 4.0, 0.15);
  }
}

// ---- bad input.

TEST(Random, BadKeys) {
  // Wrong dtype.
  EXPECT_INVALID(random::bits({}, array({0, 0})),
                 "[bits] Expected key type uint32 but received int32");
  EXPECT_INVALID(random::uniform({}, array({0, 0})), "Expected key type uint32");
  EXPECT_INVALID(random::normal({}, array({0, 0})), "Expected key type uint32");
  // Wrong shapes (MLX's cases), and leading dims that do not lead the shape.
  EXPECT_INVALID(random::uniform({}, array({0u, 0u, 0u}, {3, 1})), "received (3,1)");
  EXPECT_INVALID(random::uniform({}, array({0u, 0u}, {2, 1})), "received (2,1)");
  EXPECT_INVALID(random::uniform({}, array({0u, 0u}, {1, 2})), "received (1,2)");
  EXPECT_INVALID(random::normal({}, array({0u, 0u}, {2, 1})), "[bits] Expected key shape (2,)");
  EXPECT_INVALID(random::bits({3, 4}, array({0u, 0u, 0u, 0u}, {2, 2})), "shape (3,4)");
  EXPECT_INVALID(random::bits({4}, array(0u)), "received ()");
  EXPECT_INVALID(random::split(array({0u, 0u, 0u, 0u}, {2, 2})), "[split] Expected key shape (2,)");
  EXPECT_INVALID(random::split(array({0, 0})), "Expected key type uint32");
  EXPECT_INVALID(random::split(random::key(0), -1), "[split]");
}

TEST(Random, BadWidthAndShape) {
  for (int w : {0, 3, 5, -1, 8}) {
    EXPECT_INVALID(random::bits({}, w, random::key(1)),
                   "[bits] Bit width must be in {1, 2, 4} but got " + std::to_string(w));
  }
  EXPECT_INVALID(random::bits({2, -1}, random::key(1)), "negative");
}

TEST(Random, BadDtypes) {
  for (Dtype t : {int32, uint32, bool_, int64, uint8}) {
    EXPECT_INVALID(random::uniform({}, t), "[uniform] Can only generate random numbers");
    EXPECT_INVALID(random::normal({}, t), "[normal] Can only generate random numbers");
  }
  EXPECT_INVALID(random::uniform({}, int32), "got int32");
}

TEST(Random, BadBoundShapes) {
  // MLX's cases: bounds that broadcast beyond the requested shape.
  EXPECT_INVALID(random::uniform(filled({3, 3}, 0), array(1.0f), {1, 3}),
                 "[uniform] Cannot generate random values of shape (1,3)");
  EXPECT_INVALID(random::uniform(filled({3, 3}, 0), array(1.0f), {2, 3}), "[uniform]");
  EXPECT_INVALID(random::uniform(filled({3, 1}, 0), filled({1, 3}, 1), {1, 3}),
                 "broadcasts to (3,3)");
  // Bounds that do not broadcast with each other.
  EXPECT_INVALID(random::uniform(filled({2}, 0), filled({3}, 1), {3}),
                 "[uniform] Shapes (2,) and (3,)");
  EXPECT_INVALID(
      random::normal({2, 3}, float32, filled({2, 2, 3}, 0), std::nullopt, random::key(0)),
      "[normal] Cannot generate random values of shape (2,3) from loc of shape (2,2,3)");
  EXPECT_INVALID(random::normal({2, 3}, float32, filled({3, 3}, 0), std::nullopt, random::key(0)),
                 "[normal] Shapes (2,3) and (3,3) cannot be broadcast");
  EXPECT_INVALID(random::normal({2, 3}, float32, std::nullopt, filled({4}, 1), random::key(0)),
                 "[normal]");
  // Broadcasting up to the shape is fine.
  EXPECT_EQ(random::uniform(filled({3, 1}, 0), filled({1, 3}, 1), {3, 3}).shape(), (Shape{3, 3}));
}
