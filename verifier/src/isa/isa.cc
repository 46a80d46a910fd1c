#include "keel/isa.h"

#include "support/bytes.h"

namespace keel {

RawInsn read_raw(const uint8_t* bytes, size_t index) {
  const uint8_t* slot = bytes + index * 8;
  return RawInsn{slot[0], static_cast<uint8_t>(slot[1] & 0x0f), static_cast<uint8_t>(slot[1] >> 4),
                 bytes::load<int16_t>(slot + 2), bytes::load<int32_t>(slot + 4)};
}

void write_raw(uint8_t* bytes, size_t index, const RawInsn& insn) {
  uint8_t* slot = bytes + index * 8;
  slot[0] = insn.opcode;
  slot[1] = static_cast<uint8_t>((insn.dst & 0x0f) | (insn.src << 4));
  bytes::store<int16_t>(slot + 2, insn.offset);
  bytes::store<int32_t>(slot + 4, insn.imm);
}

namespace {

constexpr const char* kOpNames[] = {
#define KEEL_ALU_NAME(name) #name "64_imm", #name "64_reg", #name "32_imm", #name "32_reg",
    KEEL_ALU_OPS(KEEL_ALU_NAME)
#undef KEEL_ALU_NAME
    "neg64", "neg32", "movsx64_8", "movsx64_16", "movsx64_32", "movsx32_8", "movsx32_16",
    "le16", "le32", "le64", "be16", "be32", "be64", "bswap16", "bswap32", "bswap64",
#define KEEL_JMP_NAME(name) #name "64_imm", #name "64_reg", #name "32_imm", #name "32_reg",
    KEEL_JMP_OPS(KEEL_JMP_NAME)
#undef KEEL_JMP_NAME
    "ja", "call_helper", "call_local", "callx", "exit",
    "lddw_imm64", "lddw_map_fd", "lddw_map_value", "lddw_var_addr", "lddw_code_addr",
    "lddw_map_idx", "lddw_map_idx_value", "lddw_tail",
    "ldxb", "ldxh", "ldxw", "ldxdw", "ldxsb", "ldxsh", "ldxsw",
    "stb", "sth", "stw", "stdw", "stxb", "stxh", "stxw", "stxdw",
#define KEEL_ATOMIC_NAME(name) \
  "atomic32_" #name, "atomic32_fetch_" #name, "atomic64_" #name, "atomic64_fetch_" #name,
    KEEL_ATOMIC_OPS(KEEL_ATOMIC_NAME)
#undef KEEL_ATOMIC_NAME
    "atomic32_xchg", "atomic64_xchg", "atomic32_cmpxchg", "atomic64_cmpxchg",
    "ld_abs_b", "ld_abs_h", "ld_abs_w", "ld_ind_b", "ld_ind_h", "ld_ind_w",
};
static_assert(sizeof(kOpNames) / sizeof(kOpNames[0]) == kOpCount, "one name per Op");

}  // namespace

const char* op_name(Op op) {
  const auto index = static_cast<size_t>(op);
  return index < kOpCount ? kOpNames[index] : "invalid";
}

namespace {
constexpr const char* kBuiltinNames[] = {"memset", "memcpy", "memmove", "memcmp"};
static_assert(sizeof(kBuiltinNames) / sizeof(kBuiltinNames[0]) == kBuiltinMemcmp - kBuiltinMemset + 1,
              "one name per builtin");
}  // namespace

const char* builtin_name(uint64_t id) {
  return is_builtin(id) ? kBuiltinNames[id - kBuiltinMemset] : nullptr;
}

int32_t builtin_id(const char* name, size_t length) {
  for (int32_t i = 0; i <= kBuiltinMemcmp - kBuiltinMemset; ++i) {
    const char* candidate = kBuiltinNames[i];
    size_t k = 0;
    while (k < length && candidate[k] != '\0' && candidate[k] == name[k]) ++k;
    if (candidate[k] == '\0' && (k == length || name[k] == '\0')) return kBuiltinMemset + i;
  }
  return 0;
}

}  // namespace keel
