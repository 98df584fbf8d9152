// What the encoder dispatches: a Shader (a built-in one, compiled at build
// time, or a custom kernel's, compiled at run time), and Kernel<P, S>, a
// shader whose parameter struct is P and whose specialization constants are
// S (both declared in its family's header, shaders/params/<family>.h), so
// that a dispatch with the wrong arguments does not compile.
#pragma once

#include <fmt/format.h>

#include <atomic>
#include <cstdint>
#include <deque>
#include <iterator>
#include <span>
#include <string>

#include "backend/vulkan/builtin_shaders.h"
#include "mlx_lite/dtype.h"

namespace mlx_lite::vulkan {

class Shader {
 public:
  // A built-in shader (backend/vulkan/shaders.cmake names the variants).
  explicit Shader(std::string name) : Shader(std::move(name), {}, false) {}
  // A built-in shader's SPIR-V translated at run time (for
  // VK_KHR_cooperative_matrix: khr_cooperative_matrix.h); `spirv` lives for
  // the process, and so do its pipelines, as built-in ones'.
  static Shader translated_builtin(std::string name, std::span<const uint32_t> spirv) {
    Shader s(std::move(name), spirv, false);
    s.translated_builtin_ = true;
    return s;
  }
  // A shader compiled at run time; `spirv` outlives it. Its binding 0 (the
  // shape block) is a storage buffer where `storage_shape_block`, else a
  // uniform buffer, as for every built-in shader. Its pipelines require
  // subgroups of `required_subgroup_size` where that is not 0
  // (VK_EXT_subgroup_size_control; the device must allow it).
  Shader(std::string name, std::span<const uint32_t> spirv, bool storage_shape_block,
         uint32_t required_subgroup_size = 0)
      : name_(std::move(name)),
        spirv_(spirv),
        storage_shape_block_(storage_shape_block),
        required_subgroup_size_(required_subgroup_size),
        id_(next_id()) {}
  Shader(const Shader&) = delete;
  Shader& operator=(const Shader&) = delete;
  Shader(Shader&&) = default;  // the id moves with it (translated_builtin returns one)

  const std::string& name() const { return name_; }
  // Throws std::invalid_argument for a built-in name without a variant.
  std::span<const uint32_t> spirv() const {
    return spirv_.empty() ? builtin_shader(name_) : spirv_;
  }
  bool storage_shape_block() const { return storage_shape_block_; }
  uint32_t required_subgroup_size() const { return required_subgroup_size_; }
  // Compiled at build time, or translated from such a shader (else at run
  // time, from a custom kernel): its pipelines are kept for the process.
  bool builtin() const { return spirv_.empty() || translated_builtin_; }
  // Unique in the process (never reused): the pipeline cache's key.
  uint64_t id() const { return id_; }

 private:
  static uint64_t next_id() {
    static std::atomic<uint64_t> next{1};
    return next.fetch_add(1, std::memory_order_relaxed);
  }

  std::string name_;
  std::span<const uint32_t> spirv_;
  bool storage_shape_block_;
  uint32_t required_subgroup_size_;
  uint64_t id_;
  bool translated_builtin_ = false;
};

template <class P, class S>
class Kernel {
 public:
  using Params = P;
  using Spec = S;
  explicit Kernel(std::string name) : shader_(std::move(name)) {}
  explicit Kernel(Shader shader) : shader_(std::move(shader)) {}
  const Shader& shader() const { return shader_; }

 private:
  Shader shader_;
};

// A family's built-in kernels, one per dtype (or pair of dtypes: input and
// output), named once rather than per dispatch (small ops are host-bound).
// The name is a fmt pattern of one or two dtype names: "unary_{}",
// "copy_{}_{}".
template <class K>
class KernelsByDtype {
 public:
  explicit KernelsByDtype(std::string_view pattern)
      : pair_(pattern.find("{}") != pattern.rfind("{}")) {
    for (Dtype a : all_dtypes) {
      if (!pair_) {
        kernels_.emplace_back(fmt::format(fmt::runtime(pattern), dtype_name(a)));
        continue;
      }
      for (Dtype b : all_dtypes) {
        kernels_.emplace_back(fmt::format(fmt::runtime(pattern), dtype_name(a), dtype_name(b)));
      }
    }
  }
  const K& operator()(Dtype a) const { return kernels_[index(a)]; }
  const K& operator()(Dtype a, Dtype b) const {
    return kernels_[index(a) * std::size(all_dtypes) + index(b)];
  }

 private:
  static size_t index(Dtype t) { return static_cast<size_t>(t.val); }
  bool pair_;
  std::deque<K> kernels_;  // kernels are not movable: their ids stay theirs
};

}  // namespace mlx_lite::vulkan
