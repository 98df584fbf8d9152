#include "backend/vulkan/shared_memory.h"

#include <absl/container/flat_hash_map.h>
#include <fmt/format.h>

#include <stdexcept>
#include <vector>

namespace mlx_lite::vulkan {

namespace {

// SPIR-V opcodes, decorations and storage classes read here (the SPIR-V
// specification, section 3).
enum Op : uint32_t {
  kTypeBool = 20,
  kTypeInt = 21,
  kTypeFloat = 22,
  kTypeVector = 23,
  kTypeMatrix = 24,
  kTypeArray = 28,
  kTypeStruct = 30,
  kTypePointer = 32,
  kConstantTrue = 41,
  kConstantFalse = 42,
  kConstant = 43,
  kConstantComposite = 44,
  kSpecConstantTrue = 48,
  kSpecConstantFalse = 49,
  kSpecConstant = 50,
  kSpecConstantComposite = 51,
  kSpecConstantOp = 52,
  kVariable = 59,
  kDecorate = 71,
  kCompositeExtract = 81,
  kSNegate = 126,
  kIAdd = 128,
  kISub = 130,
  kIMul = 132,
  kUDiv = 134,
  kSDiv = 135,
  kUMod = 137,
  kSRem = 138,
  kSMod = 139,
  kSelect = 169,
  kIEqual = 170,
  kINotEqual = 171,
  kUGreaterThan = 172,
  kSGreaterThan = 173,
  kUGreaterThanEqual = 174,
  kSGreaterThanEqual = 175,
  kULessThan = 176,
  kSLessThan = 177,
  kULessThanEqual = 178,
  kSLessThanEqual = 179,
  kShiftRightLogical = 194,
  kShiftRightArithmetic = 195,
  kShiftLeftLogical = 196,
  kBitwiseOr = 197,
  kBitwiseXor = 198,
  kBitwiseAnd = 199,
  kUConvert = 113,
  kSConvert = 114,
  kBitcast = 124,
};
constexpr uint32_t kDecorationSpecId = 1;
constexpr uint32_t kStorageWorkgroup = 4;

// A constant's components (one for a scalar), and whether a specialization
// constant feeds it.
struct Value {
  std::vector<int64_t> parts;
  bool spec = false;
};

struct Module {
  absl::flat_hash_map<uint32_t, uint32_t> spec_ids;  // result id -> SpecId
  absl::flat_hash_map<uint32_t, Value> values;
  struct Type {
    uint64_t bytes = 0;
    bool spec = false;
  };
  absl::flat_hash_map<uint32_t, Type> types;
  absl::flat_hash_map<uint32_t, uint32_t> pointees;  // Workgroup pointer type -> pointee
  std::vector<uint32_t> shared_pointer_types;        // of the Workgroup variables
};

[[noreturn]] void cannot_evaluate(const std::string& kernel_name, uint32_t opcode) {
  throw std::runtime_error(fmt::format(
      "[vulkan_kernel] Kernel '{}' sizes a shared array with a specialization-constant "
      "expression this library cannot evaluate (SPIR-V opcode {}); size it with integer "
      "arithmetic (+ - * / % << >> & | ^, comparisons, ?:) of gl_WorkGroupSize and constants.",
      kernel_name, opcode));
}

int64_t binary(const std::string& kernel_name, uint32_t op, int64_t a, int64_t b) {
  const auto ua = static_cast<uint32_t>(a), ub = static_cast<uint32_t>(b);
  const auto sa = static_cast<int32_t>(a), sb = static_cast<int32_t>(b);
  if ((op == kUDiv || op == kSDiv || op == kUMod || op == kSRem || op == kSMod) && b == 0) {
    cannot_evaluate(kernel_name, op);  // undefined in SPIR-V too
  }
  switch (op) {
    case kIAdd:
      return ua + ub;
    case kISub:
      return static_cast<uint32_t>(ua - ub);
    case kIMul:
      return static_cast<uint32_t>(ua * ub);
    case kUDiv:
      return ua / ub;
    case kSDiv:
      return sa / sb;
    case kUMod:
      return ua % ub;
    case kSRem:
      return sa % sb;
    case kSMod:
      return ((sa % sb) + sb) % sb;
    case kIEqual:
      return ua == ub;
    case kINotEqual:
      return ua != ub;
    case kUGreaterThan:
      return ua > ub;
    case kSGreaterThan:
      return sa > sb;
    case kUGreaterThanEqual:
      return ua >= ub;
    case kSGreaterThanEqual:
      return sa >= sb;
    case kULessThan:
      return ua < ub;
    case kSLessThan:
      return sa < sb;
    case kULessThanEqual:
      return ua <= ub;
    case kSLessThanEqual:
      return sa <= sb;
    case kShiftRightLogical:
      return ua >> (ub & 31);
    case kShiftRightArithmetic:
      return sa >> (ub & 31);
    case kShiftLeftLogical:
      return static_cast<uint32_t>(ua << (ub & 31));
    case kBitwiseOr:
      return ua | ub;
    case kBitwiseXor:
      return ua ^ ub;
    case kBitwiseAnd:
      return ua & ub;
    default:
      cannot_evaluate(kernel_name, op);
  }
}

// OpSpecConstantOp's operation on the values it names.
Value spec_op(const std::string& kernel_name, const Module& m, std::span<const uint32_t> w) {
  const uint32_t op = w[2];
  auto arg = [&](size_t k) -> const Value& {
    auto it = k + 3 < w.size() ? m.values.find(w[k + 3]) : m.values.end();
    if (it == m.values.end() || it->second.parts.empty()) cannot_evaluate(kernel_name, op);
    return it->second;
  };
  Value v{{}, true};
  if (op == kCompositeExtract) {
    const Value& c = arg(0);
    if (w.size() < 5 || w[4] >= c.parts.size()) cannot_evaluate(kernel_name, op);
    v.parts = {c.parts[w[4]]};
  } else if (op == kSNegate || op == kUConvert || op == kSConvert || op == kBitcast) {
    const int64_t a = arg(0).parts[0];
    v.parts = {op == kSNegate ? static_cast<uint32_t>(-static_cast<int32_t>(a)) : a};
  } else if (op == kSelect) {
    v.parts = {arg(0).parts[0] != 0 ? arg(1).parts[0] : arg(2).parts[0]};
  } else {
    v.parts = {binary(kernel_name, op, arg(0).parts[0], arg(1).parts[0])};
  }
  return v;
}

// The size in bytes of a type (std430 is not applied: shared memory has no
// layout, and drivers size it as the packed sum or more).
void add_type(const std::string& kernel_name, Module& m, uint32_t op, std::span<const uint32_t> w) {
  auto type = [&](uint32_t id) { return m.types.contains(id) ? m.types[id] : Module::Type{}; };
  switch (op) {
    case kTypeBool:
      m.types[w[0]] = {4, false};
      break;
    case kTypeInt:
    case kTypeFloat:
      m.types[w[0]] = {w[1] / 8, false};
      break;
    case kTypeVector:
    case kTypeMatrix: {
      const auto t = type(w[1]);
      m.types[w[0]] = {t.bytes * w[2], t.spec};
      break;
    }
    case kTypeArray: {
      const auto t = type(w[1]);
      auto it = m.values.find(w[2]);
      if (it == m.values.end() || it->second.parts.empty()) cannot_evaluate(kernel_name, op);
      const auto n = static_cast<uint64_t>(it->second.parts[0]);
      m.types[w[0]] = {t.bytes * n, t.spec || it->second.spec};
      break;
    }
    case kTypeStruct: {
      Module::Type s;
      for (size_t k = 1; k < w.size(); ++k) {
        s.bytes += type(w[k]).bytes;
        s.spec = s.spec || type(w[k]).spec;
      }
      m.types[w[0]] = s;
      break;
    }
    default:
      break;
  }
}

}  // namespace

SharedMemoryUse shared_memory_use(const std::string& kernel_name, std::span<const uint32_t> spirv,
                                  const std::array<uint32_t, 3>& threadgroup) {
  Module m;
  for (size_t i = 5; i < spirv.size();) {  // after the 5-word header
    const uint32_t op = spirv[i] & 0xffff, words = spirv[i] >> 16;
    if (words == 0 || i + words > spirv.size()) break;  // not SPIR-V we can read
    const auto w = spirv.subspan(i + 1, words - 1);
    i += words;
    if (op == kDecorate && w.size() >= 3 && w[1] == kDecorationSpecId) m.spec_ids[w[0]] = w[2];
    if ((op == kConstant || op == kSpecConstant) && w.size() >= 3) {
      Value v{{w[2]}, op == kSpecConstant};
      if (auto it = m.spec_ids.find(w[1]); v.spec && it != m.spec_ids.end() && it->second < 3) {
        v.parts = {threadgroup[it->second]};
      }
      m.values[w[1]] = v;
    }
    if (op == kConstantTrue || op == kConstantFalse || op == kSpecConstantTrue ||
        op == kSpecConstantFalse) {
      m.values[w[1]] = {{op == kConstantTrue || op == kSpecConstantTrue},
                        op == kSpecConstantTrue || op == kSpecConstantFalse};
    }
    if ((op == kConstantComposite || op == kSpecConstantComposite) && w.size() >= 2) {
      Value v{{}, op == kSpecConstantComposite};
      for (size_t k = 2; k < w.size(); ++k) {
        auto it = m.values.find(w[k]);
        v.parts.push_back(it == m.values.end() || it->second.parts.empty() ? 0
                                                                           : it->second.parts[0]);
        v.spec = v.spec || (it != m.values.end() && it->second.spec);
      }
      m.values[w[1]] = v;
    }
    if (op == kSpecConstantOp && w.size() >= 4) m.values[w[1]] = spec_op(kernel_name, m, w);
    if (op >= kTypeBool && op <= kTypeStruct) add_type(kernel_name, m, op, w);
    if (op == kTypePointer && w.size() >= 3 && w[1] == kStorageWorkgroup) m.pointees[w[0]] = w[2];
    if (op == kVariable && w.size() >= 3 && w[2] == kStorageWorkgroup) {
      m.shared_pointer_types.push_back(w[0]);
    }
  }
  SharedMemoryUse use;
  for (uint32_t pointer : m.shared_pointer_types) {
    const auto& t = m.types[m.pointees[pointer]];
    use.bytes += t.bytes;
    use.depends_on_threadgroup = use.depends_on_threadgroup || t.spec;
  }
  return use;
}

}  // namespace mlx_lite::vulkan
