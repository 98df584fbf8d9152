// Builds a dispatch's shape block: the variable-length part of its
// arguments (shaders/params/shape_block.h says what it holds and how the
// shaders read it). The encoder copies it into a uniform buffer at binding 0.
#pragma once

#include <absl/container/inlined_vector.h>
#include <fmt/format.h>

#include <array>
#include <cstddef>
#include <cstring>
#include <span>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "backend/vulkan/shaders/params/shape_block.h"
#include "mlx_lite/array.h"

namespace mlx_lite::vulkan {

class ShapeBlock {
 public:
  // Appends the strided layout of N operands over `dims` (merged already)
  // and returns where it is.
  template <size_t N>
  params::ShapeRef add(const Shape& dims, const std::array<Strides, N>& strides) {
    std::array<const Strides*, N> pointers;
    for (size_t k = 0; k < N; ++k) pointers[k] = &strides[k];
    return add(dims, std::span<const Strides* const>(pointers));
  }

  params::ShapeRef add(const Shape& dims, std::span<const Strides* const> strides) {
    const params::ShapeRef ref{static_cast<int32_t>(words_.size()),
                               static_cast<int32_t>(dims.size())};
    reserve((1 + strides.size()) * dims.size());
    words_.insert(words_.end(), dims.begin(), dims.end());
    for (const Strides* st : strides) words_.insert(words_.end(), st->begin(), st->end());
    return ref;
  }

  // The family's table, which the shaders read before the words
  // (MLX_SHAPE_BLOCK_TABLE); a multiple of 16 bytes (std140).
  template <class Table>
  void set_table(const Table& table) {
    static_assert(std::is_trivially_copyable_v<Table> && sizeof(Table) % 16 == 0);
    table_.resize(sizeof(Table));
    std::memcpy(table_.data(), &table, sizeof(Table));
  }

  // Bytes laid out by the kernel itself (a custom kernel's metadata).
  void set_table_bytes(std::span<const std::byte> bytes) {
    table_.assign(bytes.begin(), bytes.end());
    table_.resize((table_.size() + 15) / 16 * 16);
  }

  std::span<const std::byte> table() const { return table_; }
  std::span<const int64_t> words() const { return words_; }
  bool empty() const { return table_.empty() && words_.empty(); }

 private:
  void reserve(size_t more) {
    if (words_.size() + more > static_cast<size_t>(params::kShapeBlockWords)) {
      throw std::invalid_argument(fmt::format(
          "[gpu] A kernel's shapes and strides need {} words, more than the {} a dispatch "
          "passes: the arrays have too many dimensions that cannot be merged.",
          words_.size() + more, params::kShapeBlockWords));
    }
  }

  std::vector<std::byte> table_;  // empty for most families: no allocation
  absl::InlinedVector<int64_t, 32> words_;
};

}  // namespace mlx_lite::vulkan
