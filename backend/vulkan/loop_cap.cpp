#include "backend/vulkan/loop_cap.h"

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <vector>

#include "backend/common/log.h"
#include "backend/vulkan/device.h"

namespace mlx_lite::vulkan {

uint64_t device_loop_cap() {
  return Device::get().name().starts_with("llvmpipe") ? kLlvmpipeLoopCap : 0;
}

void note_loop_cap(bool verbose) {
  const uint64_t cap = device_loop_cap();
  if (cap == 0 || (!verbose && logging::level() < logging::Level::info)) return;
  static std::atomic<bool> said{false};
  if (said.exchange(true)) return;
  logging::write(fmt::format(
      "custom kernels on this device ({}) stop each invocation after {} loop iterations in "
      "total, silently (Mesa's LP_MAX_TGSI_LOOP_ITERATIONS): give each thread fewer "
      "(docs/custom_kernels.md)",
      Device::get().name(), cap));
}

namespace {

// SPIR-V opcodes read here (the SPIR-V specification, section 3.52).
enum Opcode : uint32_t {
  kTypeInt = 21,
  kConstant = 43,
  kIEqual = 170,
  kSLessThanEqual = 179,  // kIEqual..kSLessThanEqual: the integer comparisons
  kLoopMerge = 246,
  kBranchConditional = 250,
};

}  // namespace

uint64_t largest_constant_loop_bound(std::span<const uint32_t> spirv) {
  absl::flat_hash_set<uint32_t> int_types, loop_exits;
  absl::flat_hash_map<uint32_t, uint64_t> constants;    // id -> |value| of integer constants
  absl::flat_hash_map<uint32_t, uint64_t> comparisons;  // id -> largest constant operand
  std::vector<uint32_t> branch_conditions;              // of branches that may leave a loop
  uint64_t largest = 0;
  for (size_t i = 5; i < spirv.size();) {  // after the 5-word header
    const uint32_t op = spirv[i] & 0xffff, words = spirv[i] >> 16;
    if (words == 0 || i + words > spirv.size()) break;  // not SPIR-V we can read
    const auto w = spirv.subspan(i + 1, words - 1);
    if (op == kTypeInt && w.size() >= 3) int_types.insert(w[0]);
    if (op == kConstant && w.size() >= 3 && int_types.contains(w[0])) {
      int64_t v = static_cast<int32_t>(w[2]);  // signed or not, a bound past 2^31 is past the cap
      if (w.size() >= 4) v = static_cast<int64_t>(uint64_t{w[3]} << 32 | w[2]);
      constants[w[1]] = v < 0 ? static_cast<uint64_t>(-(v + 1)) + 1 : static_cast<uint64_t>(v);
    }
    if (op >= kIEqual && op <= kSLessThanEqual && w.size() >= 4) {
      uint64_t c = 0;
      for (uint32_t operand : {w[2], w[3]}) {
        if (auto it = constants.find(operand); it != constants.end()) c = std::max(c, it->second);
      }
      if (c > 0) comparisons[w[1]] = c;
    }
    if (op == kLoopMerge && !w.empty()) loop_exits.insert(w[0]);
    if (op == kBranchConditional && w.size() >= 3 &&
        (loop_exits.contains(w[1]) || loop_exits.contains(w[2]))) {
      branch_conditions.push_back(w[0]);
    }
    i += words;
  }
  for (uint32_t c : branch_conditions) {
    if (auto it = comparisons.find(c); it != comparisons.end())
      largest = std::max(largest, it->second);
  }
  return largest;
}

}  // namespace mlx_lite::vulkan
