// Shape arithmetic past INT32_MAX (issue 14, bug 3): every op that computes a
// dimension or an element count checks it in 64 bits and throws
// std::overflow_error before it builds an array, as MLX does. The inputs are
// broadcast views of one element (zeros), so nothing here allocates: if a
// check were missing the op would return a wrapped shape, which the tests
// also reject.
#include <gtest/gtest.h>

#include <climits>
#include <stdexcept>

#include "mlx_lite/mlx_lite.h"

using namespace mlx_lite;

namespace {

// The op throws std::overflow_error whose message names it.
template <typename F>
void expect_overflow(F&& f, const std::string& op) {
  try {
    array out = f();
    ADD_FAILURE() << op << " returned shape " << shape_string(out.shape())
                  << " instead of throwing std::overflow_error";
  } catch (const std::overflow_error& e) {
    EXPECT_NE(std::string(e.what()).find("[" + op + "]"), std::string::npos) << e.what();
  }
}

TEST(ShapeOverflow, PadPastIntMax) {
  // 8 + 2 * INT_MAX wrapped to 6 before.
  expect_overflow(
      [] { return pad(zeros({8}), std::vector<int>{0}, Shape{INT_MAX}, Shape{INT_MAX}); }, "pad");
  expect_overflow(
      [] {
        return pad(zeros({8}), std::vector<int>{0}, Shape{INT_MAX}, Shape{INT_MAX}, array(0),
                   "edge");
      },
      "pad");
  expect_overflow([] { return pad(zeros({2, 8}), {{0, 0}, {INT_MAX - 7, 1}}); }, "pad");
  // Exactly INT_MAX still fits.
  EXPECT_EQ(pad(zeros({8}), std::vector<int>{0}, Shape{INT_MAX - 8}, Shape{0}).shape(),
            Shape{INT_MAX});
}

TEST(ShapeOverflow, ReshapeInferredDimPastIntMax) {
  // 65536 * 65537 elements inferred into one dim wrapped to 65536 before.
  expect_overflow([] { return reshape(zeros({65536, 65537}), {-1}); }, "reshape");
  expect_overflow([] { return flatten(zeros({65536, 65537})); }, "flatten");
  expect_overflow([] { return flatten(zeros({2, 65536, 65537}), 1, 2); }, "flatten");
  // A shape whose element count leaves 64 bits.
  expect_overflow([] { return reshape(zeros({4}), {INT_MAX, INT_MAX, INT_MAX, -1}); }, "reshape");
  EXPECT_EQ(reshape(zeros({65536, 65537}), {-1, 65536}).shape(), (Shape{65537, 65536}));
}

TEST(ShapeOverflow, ConcatenatePastIntMax) {
  // INT_MAX + INT_MAX + 4 wrapped to 2 before.
  expect_overflow(
      [] {
        return concatenate({zeros({INT_MAX}), zeros({INT_MAX}), zeros({4})}, 0);
      },
      "concatenate");
  expect_overflow([] { return concatenate({zeros({INT_MAX}), zeros({1})}); }, "concatenate");
}

TEST(ShapeOverflow, TileAndRepeatPastIntMax) {
  expect_overflow([] { return tile(zeros({65536}), {65537}); }, "tile");
  expect_overflow([] { return repeat(zeros({65536}), 65537, 0); }, "repeat");
  expect_overflow([] { return repeat(zeros({2, 65536}), 65537); }, "repeat");
}

TEST(ShapeOverflow, ElementCountPast64Bits) {
  // Each dim fits; their product does not fit in int64.
  expect_overflow(
      [] {
        return broadcast_to(zeros({1}), {INT_MAX, INT_MAX, INT_MAX});
      },
      "broadcast_to");
  expect_overflow([] { return zeros({INT_MAX, INT_MAX, INT_MAX}); }, "full");
  expect_overflow(
      [] {
        // uint8 values: float32 ones of this shape would already be 2^64 bytes.
        return full_like(zeros({INT_MAX, 1, 1}), zeros({INT_MAX, INT_MAX}, uint8));
      },
      "full");
  // Past 32 bits but within 64 is a valid (lazy) shape.
  EXPECT_EQ(zeros({INT_MAX, 4}).size(), size_t{INT_MAX} * 4);
}

TEST(ShapeOverflow, NewOpsCheckTheirSizes) {
  expect_overflow([] { return view(zeros({INT_MAX}, float32), uint8); }, "view");
  expect_overflow([] { return diag(zeros({2}), INT_MAX); }, "diag");
  expect_overflow(
      [] {
        return unflatten(zeros({4}), 0, {INT_MAX, INT_MAX, INT_MAX, -1});
      },
      "unflatten");
  expect_overflow([] { return outer(zeros({65536, 65537}), zeros({2})); }, "outer");
  expect_overflow(
      [] {
        return as_strided(zeros({4}), {INT_MAX, INT_MAX, INT_MAX}, {0, 0, 0}, 0);
      },
      "as_strided");
  expect_overflow(
      [] {
        return tensordot(zeros({65536, 65537, 2}), zeros({2, 3}), 1);
      },
      "tensordot");
}

TEST(ShapeOverflow, EmptyShapesWhoseStridesOverflow) {
  // No elements, but the row-major strides (which count the 0 as 1) would be
  // INT_MAX^3: signed overflow in row_major_strides before.
  expect_overflow([] { return zeros({0, INT_MAX, INT_MAX, INT_MAX}); }, "full");
  expect_overflow([] { return reshape(zeros({0}), {0, INT_MAX, INT_MAX, INT_MAX}); }, "reshape");
  // Either order of the dims is refused the same way.
  expect_overflow([] { return zeros({INT_MAX, INT_MAX, INT_MAX, 0}); }, "full");
  // Strides that fit are fine.
  array e = zeros({0, INT_MAX, INT_MAX});
  EXPECT_EQ(e.size(), 0u);
  EXPECT_EQ(e.strides(0), int64_t{INT_MAX} * INT_MAX);
}

TEST(ShapeOverflow, BytesPast64Bits) {
  // 2^62 float32 elements fit in int64, their 2^64 bytes do not (nbytes()
  // wrapped to 0 before, so an eval would allocate nothing and write 16 EiB).
  expect_overflow([] { return zeros({1 << 30, 1 << 30, 4}, float32); }, "full");
  expect_overflow([] { return astype(zeros({1 << 30, 1 << 30, 4}, uint8), float32); }, "AsType");
  // 2^61 float32 elements: 2^63 bytes, one past INT64_MAX.
  expect_overflow([] { return zeros({1 << 30, 1 << 30, 2}, float32); }, "full");
  EXPECT_EQ(zeros({1 << 30, 1 << 30, 4}, uint8).nbytes(), size_t{1} << 62);
}

TEST(ShapeOverflow, Helpers) {
  EXPECT_EQ(checked_dim(INT_MAX, "t"), INT_MAX);
  EXPECT_THROW(checked_dim(int64_t{INT_MAX} + 1, "t"), std::overflow_error);
  EXPECT_THROW(checked_dim(int64_t{INT_MIN} - 1, "t"), std::overflow_error);
  EXPECT_EQ(checked_size({INT_MAX, INT_MAX}, "t"), int64_t{INT_MAX} * INT_MAX);
  EXPECT_EQ(checked_size({}, "t"), 1);
  EXPECT_EQ(checked_size({3, 0, INT_MAX}, "t"), 0);
  EXPECT_THROW(checked_size({INT_MAX, INT_MAX, 4}, "t"), std::overflow_error);
  EXPECT_THROW(checked_size({0, INT_MAX, INT_MAX, INT_MAX}, "t"), std::overflow_error);
  EXPECT_EQ(checked_size({0, INT_MAX, INT_MAX}, "t"), 0);
}

}  // namespace
