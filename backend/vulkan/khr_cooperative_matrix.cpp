#include "backend/vulkan/khr_cooperative_matrix.h"

#define SPV_ENABLE_UTILITY_CODE  // spv::HasResultAndType
#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>
#include <fmt/format.h>

#include <array>
#include <glslang/SPIRV/spirv.hpp>
#include <numeric>
#include <spirv-tools/libspirv.hpp>
#include <spirv-tools/optimizer.hpp>
#include <string>

namespace mlx_lite::vulkan {

namespace {

// SPV_KHR_cooperative_matrix and SPV_KHR_bfloat16, which glslang 12's
// spirv.hpp predates (SPIR-V registry, unified1 grammar).
constexpr uint32_t kOpTypeCooperativeMatrixKHR = 4456;
constexpr uint32_t kOpCooperativeMatrixLoadKHR = 4457;
constexpr uint32_t kOpCooperativeMatrixStoreKHR = 4458;
constexpr uint32_t kOpCooperativeMatrixMulAddKHR = 4459;
constexpr uint32_t kOpCooperativeMatrixLengthKHR = 4460;
constexpr uint32_t kCapabilityCooperativeMatrixKHR = 6022;
constexpr uint32_t kCapabilityBFloat16TypeKHR = 5116;
constexpr uint32_t kCapabilityBFloat16CooperativeMatrixKHR = 5118;
constexpr uint32_t kFPEncodingBFloat16KHR = 0;

// CooperativeMatrixUse; the same numbers serve as MemoryLayout constants
// (RowMajorKHR 0, ColumnMajorKHR 1).
enum Use : uint32_t { kA = 0, kB = 1, kAccumulator = 2, kUses = 3 };
constexpr const char* kUseNames[kUses] = {"the A operand", "the B operand", "an accumulator"};
using UseMask = uint32_t;  // bit u: a variant of use u is needed

constexpr size_t kHeaderWords = 5;

struct Instruction {
  spv::Op op;
  std::vector<uint32_t> w;  // the operands: every word after the first
};

std::vector<uint32_t> encode_string(std::string_view s) {
  std::vector<uint32_t> words((s.size() + 4) / 4, 0u);  // NUL-terminated, padded
  for (size_t i = 0; i < s.size(); ++i) words[i / 4] |= uint32_t(uint8_t(s[i])) << (8 * (i % 4));
  return words;
}

std::string decode_string(std::span<const uint32_t> words) {
  std::string s;
  for (uint32_t word : words) {
    for (int b = 0; b < 4; ++b) {
      const char c = static_cast<char>((word >> (8 * b)) & 0xffu);
      if (c == '\0') return s;
      s += c;
    }
  }
  return s;
}

// Every function that takes or returns a matrix inlined into its callers
// (merge-return first: the inliner skips functions with early returns).
std::vector<uint32_t> inline_functions(std::span<const uint32_t> in) {
  spvtools::Optimizer optimizer(SPV_ENV_VULKAN_1_2);
  std::string log;
  optimizer.SetMessageConsumer(
      [&log](spv_message_level_t level, const char*, const spv_position_t&, const char* message) {
        if (level <= SPV_MSG_ERROR) log += fmt::format("\n  {}", message);
      });
  optimizer.RegisterPass(spvtools::CreateMergeReturnPass())
      .RegisterPass(spvtools::CreateInlineExhaustivePass())
      .RegisterPass(spvtools::CreateEliminateDeadFunctionsPass());
  spvtools::OptimizerOptions options;
  options.set_run_validator(false);  // the input is glslang's; the output is checked by drivers
  std::vector<uint32_t> out;
  if (!optimizer.Run(in.data(), in.size(), &out, options)) {
    throw KhrTranslationError("[gpu] Inlining a cooperative-matrix module failed:" + log);
  }
  return out;
}

std::vector<Instruction> parse(std::span<const uint32_t> spirv) {
  if (spirv.size() < kHeaderWords || spirv[0] != spv::MagicNumber) {
    throw KhrTranslationError("[gpu] Not a SPIR-V module.");
  }
  std::vector<Instruction> out;
  for (size_t i = kHeaderWords; i < spirv.size();) {
    const uint32_t words = spirv[i] >> 16;
    if (words == 0 || i + words > spirv.size()) {
      throw KhrTranslationError(fmt::format("[gpu] Malformed SPIR-V instruction at word {}.", i));
    }
    out.push_back({static_cast<spv::Op>(spirv[i] & 0xffffu),
                   std::vector<uint32_t>(spirv.begin() + i + 1, spirv.begin() + i + words)});
    i += words;
  }
  return out;
}

// The translation's state: the module's matrix types and everything that
// holds one (arrays of them, pointers to them), and a union-find over the
// values of those types, each class one use.
class Translator {
 public:
  Translator(std::span<const uint32_t> spirv, const KhrMatrixOptions& options)
      : options_(options), insts_(parse(spirv)) {
    header_.assign(spirv.begin(), spirv.begin() + kHeaderWords);
    bound_ = header_[3];
    parent_.resize(bound_);
    std::iota(parent_.begin(), parent_.end(), 0u);
  }

  std::vector<uint32_t> run() {
    read_types();
    if (matrix_of_.empty()) return serialize(insts_);
    link_values();
    assign_uses();
    return serialize(rewrite());
  }

 private:
  // --- Types -------------------------------------------------------------

  static bool result_and_type(spv::Op op, bool& has_result, bool& has_type) {
    spv::HasResultAndType(op, &has_result, &has_type);
    return has_result;
  }

  // The NV matrix type `type` holds (itself, an array's element, a
  // pointer's pointee), or 0.
  uint32_t matrix_in(uint32_t type) const {
    auto it = matrix_of_.find(type);
    return it == matrix_of_.end() ? 0u : it->second;
  }

  void read_types() {
    for (size_t i = 0; i < insts_.size(); ++i) {
      const Instruction& in = insts_[i];
      bool has_result, has_type;
      if (result_and_type(in.op, has_result, has_type)) {
        const uint32_t id = in.w[has_type ? 1 : 0];
        def_[id] = i;
        if (has_type) type_of_[id] = in.w[0];
      }
      switch (in.op) {
        case spv::OpName:
          names_[in.w[0]] = decode_string(std::span(in.w).subspan(1));
          break;
        case spv::OpTypeInt:
          if (in.w[1] == 32 && in.w[2] == 0 && uint_type_ == 0) uint_type_ = in.w[0];
          break;
        case spv::OpTypeCooperativeMatrixNV:
          matrix_of_[in.w[0]] = in.w[0];
          break;
        case spv::OpTypeArray:
        case spv::OpTypeRuntimeArray:
          if (uint32_t m = matrix_in(in.w[1])) matrix_of_[in.w[0]] = m;
          break;
        case spv::OpTypePointer:
          if (uint32_t m = matrix_in(in.w[2])) matrix_of_[in.w[0]] = m;
          break;
        case spv::OpTypeStruct:
          for (size_t k = 1; k < in.w.size(); ++k) {
            if (matrix_in(in.w[k])) {
              throw KhrTranslationError(
                  "[gpu] A cooperative matrix inside a structure has no KHR translation (its "
                  "members' uses cannot be told apart).");
            }
          }
          break;
        case spv::OpTypeFunction:  // those of inlined functions stay declared: dropped
          for (size_t k = 1; k < in.w.size(); ++k) {
            if (matrix_in(in.w[k])) matrix_signatures_.insert(in.w[0]);
          }
          break;
        case spv::OpFunction:
          if (first_function_ == 0) first_function_ = i;
          if (matrix_signatures_.contains(in.w[3])) {
            throw KhrTranslationError(
                "[gpu] A function that takes or returns a cooperative matrix was not inlined.");
          }
          break;
        default:
          break;
      }
    }
    if (first_function_ == 0) first_function_ = insts_.size();
    if (uint_type_ == 0 && !matrix_of_.empty()) {
      throw KhrTranslationError("[gpu] A cooperative-matrix module without a 32-bit uint type.");
    }
  }

  // A matrix value that every use of it may need in another type: constants,
  // null values and undefined values, cloned per use.
  bool is_shared_value(uint32_t id) const {
    auto d = def_.find(id);
    if (d == def_.end() || !matrix_in(type_of(id))) return false;
    const spv::Op op = insts_[d->second].op;
    return op == spv::OpConstantComposite || op == spv::OpConstantNull || op == spv::OpUndef ||
           op == spv::OpSpecConstantComposite;
  }

  uint32_t type_of(uint32_t id) const {
    auto it = type_of_.find(id);
    return it == type_of_.end() ? 0u : it->second;
  }

  bool holds_matrix(uint32_t id) const { return matrix_in(type_of(id)) != 0; }

  // Types that hold a matrix when the type they name does.
  static bool holds_other_type(spv::Op op) {
    return op == spv::OpTypePointer || op == spv::OpTypeArray || op == spv::OpTypeRuntimeArray;
  }

  const Instruction& defining(uint32_t id) const {
    auto d = def_.find(id);
    if (d == def_.end()) {
      throw KhrTranslationError(fmt::format("[gpu] SPIR-V id {} is used but not defined.", id));
    }
    return insts_[d->second];
  }

  // --- Classes of values -------------------------------------------------

  uint32_t find(uint32_t n) {
    while (parent_[n] != n) n = parent_[n] = parent_[parent_[n]];
    return n;
  }
  void join(uint32_t a, uint32_t b) { parent_[find(a)] = find(b); }

  // The node of operand word `k` of instruction `i`: the id itself, or for
  // a shared value a node of this reference alone.
  uint32_t node(size_t i, size_t k) {
    const uint32_t id = insts_[i].w[k];
    if (!is_shared_value(id)) return id;
    const uint32_t n = static_cast<uint32_t>(parent_.size());
    parent_.push_back(n);
    shared_refs_.push_back({n, i, k});
    return n;
  }

  void require(uint32_t n, Use u) { required_.push_back({n, u}); }

  // Joins the values that must have one type: what a load reads and the
  // pointer, what a store writes, copies, phis, selects, conversions,
  // arithmetic; records the uses multiply-adds give.
  void link_values() {
    for (size_t i = first_function_; i < insts_.size(); ++i) {
      const Instruction& in = insts_[i];
      bool has_result, has_type;
      result_and_type(in.op, has_result, has_type);
      const bool result_holds = has_type && matrix_in(in.w[0]);
      const uint32_t result = has_result ? in.w[has_type ? 1 : 0] : 0u;
      auto join_operand = [&](size_t k) {
        if (k < in.w.size() && holds_matrix(in.w[k])) join(node(i, k), result);
      };
      switch (in.op) {
        case spv::OpFunctionParameter:
        case spv::OpFunctionCall:
        case spv::OpReturnValue:
          if (result_holds || (in.op == spv::OpReturnValue && holds_matrix(in.w[0])) ||
              (in.op == spv::OpFunctionCall && any_operand_holds(in, 3))) {
            throw KhrTranslationError(
                "[gpu] A cooperative matrix crosses a call that was not inlined.");
          }
          break;
        case spv::OpCooperativeMatrixMulAddNV:
          require(node(i, 2), kA);
          require(node(i, 3), kB);
          require(node(i, 4), kAccumulator);
          require(result, kAccumulator);
          break;
        case spv::OpStore:
          if (holds_matrix(in.w[0])) join(node(i, 1), in.w[0]);
          break;
        case spv::OpCopyMemory:
        case spv::OpCopyMemorySized:
          if (holds_matrix(in.w[0])) join(in.w[1], in.w[0]);
          break;
        case spv::OpVariable:
          if (result_holds) join_operand(3);  // the initializer
          break;
        case spv::OpLoad:
        case spv::OpAccessChain:
        case spv::OpInBoundsAccessChain:
        case spv::OpPtrAccessChain:
        case spv::OpCopyObject:
        case spv::OpCopyLogical:
        case spv::OpCompositeExtract:
        case spv::OpFNegate:
        case spv::OpSNegate:
        case spv::OpFConvert:
        case spv::OpSConvert:
        case spv::OpUConvert:
        case spv::OpConvertFToS:
        case spv::OpConvertFToU:
        case spv::OpConvertSToF:
        case spv::OpConvertUToF:
        case spv::OpBitcast:
        case spv::OpMatrixTimesScalar:
          if (result_holds) join_operand(2);
          break;
        case spv::OpCompositeInsert:  // object, composite
          if (result_holds) join_operand(3);
          if (result_holds) join_operand(2);
          break;
        case spv::OpFAdd:
        case spv::OpFSub:
        case spv::OpFMul:
        case spv::OpFDiv:
        case spv::OpIAdd:
        case spv::OpISub:
        case spv::OpIMul:
        case spv::OpSDiv:
        case spv::OpUDiv:
        case spv::OpCompositeConstruct:
          if (result_holds) {
            for (size_t k = 2; k < in.w.size(); ++k) join_operand(k);
          }
          break;
        case spv::OpSelect:
          if (result_holds) join_operand(3), join_operand(4);
          break;
        case spv::OpPhi:  // (value, block) pairs
          if (result_holds) {
            for (size_t k = 2; k < in.w.size(); k += 2) join_operand(k);
          }
          break;
        case spv::OpCooperativeMatrixLoadNV:
        case spv::OpCooperativeMatrixStoreNV:
        case spv::OpCooperativeMatrixLengthNV:
        case spv::OpUndef:
        case spv::OpFunction:
        case spv::OpConstantComposite:  // shared values: cloned per use
        case spv::OpConstantNull:
          break;
        default:
          if (result_holds) {
            throw KhrTranslationError(fmt::format(
                "[gpu] The cooperative-matrix translation does not know instruction {} on "
                "matrices.",
                static_cast<uint32_t>(in.op)));
          }
          break;
      }
    }
  }

  bool any_operand_holds(const Instruction& in, size_t from) const {
    for (size_t k = from; k < in.w.size(); ++k) {
      if (holds_matrix(in.w[k])) return true;
    }
    return false;
  }

  // A name for the class of `n` in messages: a variable's, where one has one.
  std::string class_name(uint32_t n) {
    const uint32_t root = find(n);
    for (const auto& [id, name] : names_) {
      if (id < header_[3] && find(id) == root && !name.empty()) {
        return fmt::format(" '{}'", name);
      }
    }
    return "";
  }

  // The use of a matrix of NV type `matrix` that no multiply-add fixes:
  // float16 ones are loaded for operands, the rest are accumulators.
  Use default_use(uint32_t matrix) const {
    const Instruction& component = defining(defining(matrix).w[1]);
    return component.op == spv::OpTypeFloat && component.w[1] == 16 ? kA : kAccumulator;
  }

  void assign_uses() {
    for (const auto& [n, u] : required_) {
      auto [it, added] = use_of_root_.try_emplace(find(n), u);
      if (!added && it->second != u) {
        throw KhrTranslationError(fmt::format(
            "[gpu] The cooperative matrix{} is both {} and {} of multiply-adds; a "
            "VK_KHR_cooperative_matrix type has one use.",
            class_name(n), kUseNames[std::min(it->second, u)], kUseNames[std::max(it->second, u)]));
      }
    }
  }

  Use use_of(uint32_t n, uint32_t type) {
    auto it = use_of_root_.find(find(n));
    return it != use_of_root_.end() ? it->second : default_use(matrix_in(type));
  }

  // --- The translated module ----------------------------------------------

  uint32_t fresh() { return bound_++; }

  // The KHR counterpart, for use `u`, of `id`: a type that holds a matrix,
  // or a shared value (its clone).
  uint32_t variant(uint32_t id, Use u) {
    auto [it, added] = variants_.try_emplace(std::pair(id, u), 0u);
    if (added) it->second = fresh();
    return it->second;
  }

  // Marks every type that holds a matrix with the uses its values take (an
  // array's or pointer's variants need their element's of the same use).
  void collect_needed_uses() {
    for (const auto& [id, type] : type_of_) {
      if (matrix_in(type) && !is_shared_value(id)) needed_[type] |= 1u << use_of(id, type);
    }
    for (const SharedRef& r : shared_refs_) {
      const uint32_t id = insts_[r.inst].w[r.word];
      const Use u = use_of(r.node, type_of(id));
      needed_[type_of(id)] |= 1u << u;
      shared_uses_[id] |= 1u << u;
    }
    for (size_t i = insts_.size(); i-- > 0;) {  // holders after what they hold
      const Instruction& in = insts_[i];
      if (!holds_other_type(in.op) || !needed_.contains(in.w[0])) continue;
      const UseMask mask = needed_.at(in.w[0]);
      needed_[in.w[in.op == spv::OpTypePointer ? 2 : 1]] |= mask;
    }
  }

  // What precedes the first KHR type: the use constants (also layouts) and
  // bfloat16.
  void emit_prelude(std::vector<Instruction>& out) {
    if (use_constant_[0] != 0) return;
    for (uint32_t u = 0; u < kUses; ++u) {
      use_constant_[u] = fresh();
      out.push_back({spv::OpConstant, {uint_type_, use_constant_[u], u}});
    }
    if (options_.float16_as_bfloat16) {
      bfloat16_ = fresh();
      out.push_back({spv::OpTypeFloat, {bfloat16_, 16, kFPEncodingBFloat16KHR}});
    }
  }

  bool is_float16(uint32_t type) const {
    auto d = def_.find(type);
    return d != def_.end() && insts_[d->second].op == spv::OpTypeFloat &&
           insts_[d->second].w[1] == 16 && insts_[d->second].w.size() == 2;
  }

  void emit_variants(const Instruction& in, UseMask mask, std::vector<Instruction>& out) {
    emit_prelude(out);
    for (uint32_t u = 0; u < kUses; ++u) {
      if (!(mask & (1u << u))) continue;
      const Use use = static_cast<Use>(u);
      Instruction v = in;
      switch (in.op) {
        case spv::OpTypeCooperativeMatrixNV: {  // component, scope, rows, columns
          uint32_t component = in.w[1];
          if (options_.float16_as_bfloat16 && is_float16(component)) {
            component = bfloat16_;
          }
          v = {static_cast<spv::Op>(kOpTypeCooperativeMatrixKHR),
               {variant(in.w[0], use), component, in.w[2], in.w[3], in.w[4], use_constant_[u]}};
          break;
        }
        case spv::OpTypeArray:
        case spv::OpTypeRuntimeArray:
          v.w[0] = variant(in.w[0], use);
          v.w[1] = variant(in.w[1], use);
          break;
        case spv::OpTypePointer:
          v.w[0] = variant(in.w[0], use);
          v.w[2] = variant(in.w[2], use);
          break;
        default:  // a shared value: (type, id, constituents...)
          v.w[0] = variant(in.w[0], use);
          v.w[1] = variant(in.w[1], use);
          if (v.op == spv::OpConstantComposite && component_is_bfloat16(in.w[0])) {
            v = bfloat16_fill(v);
          }
          break;
      }
      out.push_back(std::move(v));
    }
  }

  bool component_is_bfloat16(uint32_t matrix) const {
    return options_.float16_as_bfloat16 && is_float16(defining(matrix).w[1]);
  }

  // A float16 fill of a matrix that becomes bfloat16: zero is the same bits
  // in both; other values would need bfloat16 constants.
  Instruction bfloat16_fill(const Instruction& fill) const {
    for (size_t k = 2; k < fill.w.size(); ++k) {
      const Instruction& c = defining(fill.w[k]);
      const bool zero = c.op == spv::OpConstantNull || (c.op == spv::OpConstant && c.w[2] == 0u);
      if (!zero) {
        throw KhrTranslationError(
            "[gpu] A float16 matrix filled with a value other than 0 cannot become bfloat16.");
      }
    }
    return {spv::OpConstantNull, {fill.w[0], fill.w[1]}};
  }

  uint32_t layout(uint32_t column_major) const {
    const spv::Op op = defining(column_major).op;
    if (op != spv::OpConstantTrue && op != spv::OpConstantFalse) {
      throw KhrTranslationError(
          "[gpu] A cooperative-matrix load or store whose layout is not a constant.");
    }
    return use_constant_[op == spv::OpConstantTrue ? 1 : 0];
  }

  // Operands of KHR's multiply-add for integer components: which are signed.
  uint32_t signedness(const Instruction& muladd) const {
    uint32_t flags = 0;
    const uint32_t types[4] = {type_of(muladd.w[2]), type_of(muladd.w[3]), type_of(muladd.w[4]),
                               muladd.w[0]};
    for (int k = 0; k < 4; ++k) {
      const Instruction& c = defining(defining(matrix_in(types[k])).w[1]);
      if (c.op == spv::OpTypeInt && c.w[2] == 1) flags |= 1u << k;
    }
    return flags;
  }

  void rewrite_function_instruction(Instruction& in) {
    bool has_result, has_type;
    result_and_type(in.op, has_result, has_type);
    const uint32_t flags = in.op == spv::OpCooperativeMatrixMulAddNV ? signedness(in) : 0u;
    if (has_type && matrix_in(in.w[0])) in.w[0] = variant(in.w[0], use_of(in.w[1], in.w[0]));
    switch (in.op) {
      case spv::OpCooperativeMatrixLoadNV:  // type, id, pointer, stride, column major, access...
        std::swap(in.w[3], in.w[4]);
        in.w[3] = layout(in.w[3]);
        in.op = static_cast<spv::Op>(kOpCooperativeMatrixLoadKHR);
        break;
      case spv::OpCooperativeMatrixStoreNV:  // pointer, object, stride, column major, access...
        std::swap(in.w[2], in.w[3]);
        in.w[2] = layout(in.w[2]);
        in.op = static_cast<spv::Op>(kOpCooperativeMatrixStoreKHR);
        break;
      case spv::OpCooperativeMatrixMulAddNV:
        if (flags != 0) in.w.push_back(flags);
        in.op = static_cast<spv::Op>(kOpCooperativeMatrixMulAddKHR);
        break;
      case spv::OpCooperativeMatrixLengthNV:
        in.w[2] = variant(in.w[2], length_use(in.w[2]));
        in.op = static_cast<spv::Op>(kOpCooperativeMatrixLengthKHR);
        break;
      default:
        break;
    }
  }

  // The length of a KHR matrix depends on its use: the one use the type's
  // values take, else (none) its default.
  Use length_use(uint32_t type) {
    const UseMask mask = needed_.contains(type) ? needed_.at(type) : 0u;
    if (mask == 0) return default_use(type);
    if ((mask & (mask - 1u)) != 0) {
      throw KhrTranslationError(
          "[gpu] The length of a cooperative-matrix type whose values take several uses.");
    }
    return static_cast<Use>(__builtin_ctz(mask));
  }

  bool names_removed_type(const Instruction& in) const {
    if (in.op == spv::OpTypeFunction && matrix_signatures_.contains(in.w[0])) return true;
    switch (in.op) {
      case spv::OpName:
      case spv::OpMemberName:
      case spv::OpDecorate:
      case spv::OpMemberDecorate:
        return matrix_in(in.w[0]) != 0 || is_shared_value(in.w[0]);
      default:
        return false;
    }
  }

  // Shared values' references take their use's clone (before the
  // instructions' own rewrites move operand words).
  void point_shared_refs_at_clones() {
    for (const SharedRef& r : shared_refs_) {
      const uint32_t id = insts_[r.inst].w[r.word];
      const uint32_t copy = variant(id, use_of(r.node, type_of(id)));
      type_of_[copy] = type_of(id);  // for signedness()
      insts_[r.inst].w[r.word] = copy;
    }
  }

  // The NV capability and extension become KHR's (and bfloat16's); false
  // for any other instruction.
  bool rewrite_declaration(const Instruction& in, std::vector<Instruction>& out) const {
    if (in.op == spv::OpCapability && in.w[0] == spv::CapabilityCooperativeMatrixNV) {
      out.push_back({spv::OpCapability, {kCapabilityCooperativeMatrixKHR}});
      if (options_.float16_as_bfloat16) {
        out.push_back({spv::OpCapability, {kCapabilityBFloat16TypeKHR}});
        out.push_back({spv::OpCapability, {kCapabilityBFloat16CooperativeMatrixKHR}});
      }
      return true;
    }
    if (in.op == spv::OpExtension && decode_string(in.w) == "SPV_NV_cooperative_matrix") {
      out.push_back({spv::OpExtension, encode_string("SPV_KHR_cooperative_matrix")});
      if (options_.float16_as_bfloat16) {
        out.push_back({spv::OpExtension, encode_string("SPV_KHR_bfloat16")});
      }
      return true;
    }
    return false;
  }

  // A type, constant or global before the first function.
  void rewrite_module_level(Instruction in, std::vector<Instruction>& out) {
    const bool holder =
        (in.op == spv::OpTypeCooperativeMatrixNV || holds_other_type(in.op)) && matrix_in(in.w[0]);
    if (holder) {
      emit_variants(in, needed_.contains(in.w[0]) ? needed_.at(in.w[0]) : 0u, out);
      return;
    }
    bool has_result, has_type;
    result_and_type(in.op, has_result, has_type);
    if (has_type && is_shared_value(in.w[1])) {
      emit_variants(in, shared_uses_[in.w[1]], out);
      return;
    }
    if (in.op == spv::OpVariable && matrix_in(in.w[0])) {
      in.w[0] = variant(in.w[0], use_of(in.w[1], in.w[0]));
    }
    out.push_back(std::move(in));
  }

  std::vector<Instruction> rewrite() {
    collect_needed_uses();
    point_shared_refs_at_clones();
    std::vector<Instruction> out;
    for (size_t i = 0; i < insts_.size(); ++i) {
      Instruction in = insts_[i];
      if (rewrite_declaration(in, out) || names_removed_type(in)) continue;
      if (i < first_function_) {
        rewrite_module_level(std::move(in), out);
        continue;
      }
      bool has_result, has_type;
      result_and_type(in.op, has_result, has_type);
      if (has_type && is_shared_value(in.w[1])) {  // an OpUndef in a block
        emit_variants(in, shared_uses_[in.w[1]], out);
        continue;
      }
      rewrite_function_instruction(in);
      out.push_back(std::move(in));
    }
    return out;
  }

  std::vector<uint32_t> serialize(const std::vector<Instruction>& insts) {
    std::vector<uint32_t> out(header_);
    out[3] = bound_;
    for (const Instruction& in : insts) {
      out.push_back(static_cast<uint32_t>(in.w.size() + 1) << 16 | static_cast<uint32_t>(in.op));
      out.insert(out.end(), in.w.begin(), in.w.end());
    }
    return out;
  }

  struct SharedRef {
    uint32_t node;
    size_t inst, word;
  };

  KhrMatrixOptions options_;
  std::vector<Instruction> insts_;
  std::vector<uint32_t> header_;
  uint32_t bound_ = 0;
  size_t first_function_ = 0;
  uint32_t uint_type_ = 0, bfloat16_ = 0;
  std::array<uint32_t, kUses> use_constant_{};
  absl::flat_hash_map<uint32_t, size_t> def_;
  absl::flat_hash_map<uint32_t, uint32_t> type_of_, matrix_of_;
  absl::flat_hash_map<uint32_t, std::string> names_;
  absl::flat_hash_set<uint32_t> matrix_signatures_;  // function types that hold matrices
  std::vector<uint32_t> parent_;
  std::vector<SharedRef> shared_refs_;
  std::vector<std::pair<uint32_t, Use>> required_;
  absl::flat_hash_map<uint32_t, Use> use_of_root_;
  absl::flat_hash_map<uint32_t, UseMask> needed_, shared_uses_;
  absl::flat_hash_map<std::pair<uint32_t, Use>, uint32_t> variants_;
};

}  // namespace

std::vector<uint32_t> translate_to_khr_cooperative_matrix(std::span<const uint32_t> nv,
                                                          const KhrMatrixOptions& options) {
  const std::vector<uint32_t> inlined = inline_functions(nv);
  return Translator(inlined, options).run();
}

}  // namespace mlx_lite::vulkan
