// CO-RE relocations (elf/core_reloc.cc) against small BTF blobs built here,
// one per relocation kind, flavors, the poison and libbpf's refusals; then,
// where the host has it, against /sys/kernel/btf/vmlinux.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "elf/btf.h"
#include "elf/core_reloc.h"
#include "keel/decode.h"
#include "keel/elf.h"
#include "keel/platform_linux.h"
#include "keel/verify.h"

namespace keel::elf {
namespace {

// A BTF blob (Documentation/bpf/btf.rst §2): header, types, strings.
class BtfBuilder {
 public:
  struct Member {
    const char* name;
    uint32_t type;
    uint32_t bit_offset;
    uint32_t bitfield_size = 0;
  };
  struct Enumerator {
    const char* name;
    int64_t value;
  };

  uint32_t str(const std::string& s) {
    if (s.empty()) return 0;
    const size_t at = strings_.find(s + '\0');
    if (at != std::string::npos && (at == 0 || strings_[at - 1] == '\0')) return static_cast<uint32_t>(at);
    const uint32_t off = static_cast<uint32_t>(strings_.size());
    strings_ += s;
    strings_ += '\0';
    return off;
  }
  uint32_t integer(const char* name, uint32_t bytes, bool is_signed) {
    head(str(name), kBtfInt, 0, false, bytes);
    words_.push_back((is_signed ? 1u << 24 : 0u) | (bytes * 8));
    return next_++;
  }
  uint32_t pointer(uint32_t to) { return simple(kBtfPtr, to); }
  uint32_t typedef_(const char* name, uint32_t to) {
    head(str(name), kBtfTypedef, 0, false, to);
    return next_++;
  }
  uint32_t array(uint32_t element, uint32_t count) {
    head(0, kBtfArray, 0, false, 0);
    words_.insert(words_.end(), {element, 1 /* index type: any */, count});
    return next_++;
  }
  uint32_t fwd(const char* name) {
    head(str(name), kBtfFwd, 0, false, 0);
    return next_++;
  }
  uint32_t composite(uint32_t kind, const char* name, uint32_t size, const std::vector<Member>& members) {
    bool bitfields = false;
    for (const Member& m : members) bitfields |= m.bitfield_size != 0;
    head(str(name), kind, static_cast<uint32_t>(members.size()), bitfields, size);
    for (const Member& m : members) {
      words_.push_back(str(m.name));
      words_.push_back(m.type);
      words_.push_back(bitfields ? (m.bitfield_size << 24) | m.bit_offset : m.bit_offset);
    }
    return next_++;
  }
  uint32_t structure(const char* name, uint32_t size, const std::vector<Member>& members) {
    return composite(kBtfStruct, name, size, members);
  }
  uint32_t enumeration(const char* name, uint32_t size, const std::vector<Enumerator>& values, bool wide = false) {
    head(str(name), wide ? kBtfEnum64 : kBtfEnum, static_cast<uint32_t>(values.size()), false, size);
    for (const Enumerator& e : values) {
      words_.push_back(str(e.name));
      words_.push_back(static_cast<uint32_t>(e.value));
      if (wide) words_.push_back(static_cast<uint32_t>(static_cast<uint64_t>(e.value) >> 32));
    }
    return next_++;
  }

  std::vector<uint8_t> bytes() const {
    std::vector<uint8_t> out(24);
    const uint32_t type_len = static_cast<uint32_t>(words_.size() * 4);
    const uint32_t header[6] = {0x0001eb9f, 24, 0, type_len, type_len, static_cast<uint32_t>(strings_.size())};
    std::memcpy(out.data(), header, 24);
    const size_t at = out.size();
    out.resize(at + type_len + strings_.size());
    std::memcpy(out.data() + at, words_.data(), type_len);
    std::memcpy(out.data() + at + type_len, strings_.data(), strings_.size());
    return out;
  }

 private:
  void head(uint32_t name, uint32_t kind, uint32_t vlen, bool kind_flag, uint32_t size_or_type) {
    words_.push_back(name);
    words_.push_back((kind_flag ? 1u << 31 : 0u) | (kind << 24) | vlen);
    words_.push_back(size_or_type);
  }
  uint32_t simple(uint32_t kind, uint32_t to) {
    head(0, kind, 0, false, to);
    return next_++;
  }
  std::vector<uint32_t> words_;
  std::string strings_ = std::string(1, '\0');
  uint32_t next_ = 1;
};

// One instruction (RFC 9669 §3 encoding).
std::vector<uint8_t> insn(uint8_t code, uint8_t dst, uint8_t src, int16_t off, int32_t imm) {
  std::vector<uint8_t> out(8);
  out[0] = code;
  out[1] = static_cast<uint8_t>(dst | (src << 4));
  std::memcpy(&out[2], &off, 2);
  std::memcpy(&out[4], &imm, 4);
  return out;
}

constexpr uint8_t kLdxW = 0x61, kLdxDw = 0x79, kMov64Imm = 0xb7, kExit = 0x95, kLddw = 0x18, kJeqImm = 0x15;

struct Reloc {
  uint32_t pc;
  uint32_t type_id;
  std::string access;
  uint32_t kind;
};

// A program of `code` with the records `relocs` against local BTF `local`
// (whose strings must hold the access strings), relocated against `target`.
struct Relocated {
  std::vector<uint8_t> local_bytes, code;
  std::vector<uint8_t> arena_memory = std::vector<uint8_t>(size_t{8} << 20);
  std::vector<uint8_t> records;
  Section sections[2];
  File file;
  Btf local;
  BtfExt ext;
  BtfExtBlock block;
  ElfFunction function;
  ElfProgram program;
  CoreTarget target;
  ElfResult status;
  ElfResult result;

  Relocated(BtfBuilder& local_btf, const std::vector<Reloc>& relocs, std::vector<uint8_t> program_code,
            const std::vector<uint8_t>* target_bytes) {
    std::vector<uint32_t> access_offsets;
    for (const Reloc& r : relocs) access_offsets.push_back(local_btf.str(r.access));
    local_bytes = local_btf.bytes();
    code = std::move(program_code);
    Arena arena(arena_memory.data(), arena_memory.size());
    BtfFault fault;
    EXPECT_EQ(parse_btf_bytes(local_bytes.data(), local_bytes.size(), arena, local, fault), ElfError::ok);
    for (size_t i = 0; i < relocs.size(); ++i) {
      const uint32_t record[4] = {relocs[i].pc * 8, relocs[i].type_id, access_offsets[i], relocs[i].kind};
      records.insert(records.end(), reinterpret_cast<const uint8_t*>(record),
                     reinterpret_cast<const uint8_t*>(record) + 16);
    }
    sections[1].name = "kprobe/test";
    file.sections = sections;
    file.section_count = 2;
    block = {1, records.data(), static_cast<uint32_t>(relocs.size()), 16, 0, true};
    ext.core_relo = &block;
    ext.core_relo_blocks = 1;
    function = {"test", 1, "kprobe/test", 0, 0, static_cast<uint32_t>(code.size() / 8)};
    program.insns = code.data();
    program.slots = function.slots;
    program.instruction_count = function.slots;
    program.functions = &function;
    program.function_count = 1;
    if (target_bytes != nullptr) {
      target.bytes = target_bytes->data();
      target.size = target_bytes->size();
    }
    result = apply_core_relocations(file, local, ext, target, arena, program, status);
  }

  int16_t off(uint32_t pc) const {
    int16_t v;
    std::memcpy(&v, &code[pc * 8 + 2], 2);
    return v;
  }
  int32_t imm(uint32_t pc) const {
    int32_t v;
    std::memcpy(&v, &code[pc * 8 + 4], 4);
    return v;
  }
  bool poisoned(uint32_t pc) const { return code[pc * 8] == 0x85 && imm(pc) == kCorePoisonHelper; }
};

std::vector<uint8_t> concat(std::initializer_list<std::vector<uint8_t>> parts) {
  std::vector<uint8_t> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

// The kernel side of most tests: `struct foo { long x; int b; int a; }` and friends.
struct Kernel {
  BtfBuilder b;
  uint32_t s32, u32, s64, u64, foo, color, big;
  std::vector<uint8_t> bytes;
  Kernel() {
    s32 = b.integer("int", 4, true);
    u32 = b.integer("unsigned int", 4, false);
    s64 = b.integer("long", 8, true);
    u64 = b.integer("unsigned long", 8, false);
    const uint32_t arr = b.array(s32, 4);
    // struct foo { long x; int b; unsigned int a; union { int anon_u; }; unsigned int flags:3, mode:5;
    //              long wide; int arr[4]; unsigned long grown; }
    const uint32_t anon = b.composite(kBtfUnion, "", 4, {{"anon_u", s32, 0}});
    foo = b.structure("foo", 64,
                      {{"x", s64, 0},
                       {"b", s32, 64},
                       {"a", u32, 96},
                       {"", anon, 128},
                       {"flags", u32, 160, 3},
                       {"mode", u32, 163, 5},
                       {"wide", s64, 192},
                       {"arr", arr, 256},
                       {"grown", u64, 384}});
    color = b.enumeration("color", 4, {{"RED", 0}, {"BLUE", 7}, {"GREEN", -3}});
    big = b.enumeration("big", 8, {{"HUGE", int64_t{1} << 40}}, true);
    bytes = b.bytes();
  }
};

// The program's view: `struct foo___local { int a; int b; ... }`.
struct Local {
  BtfBuilder b;
  uint32_t s32, u32, foo, missing, color;
  Local() {
    s32 = b.integer("int", 4, true);
    u32 = b.integer("unsigned int", 4, false);
    const uint32_t anon = b.composite(kBtfUnion, "", 4, {{"anon_u", s32, 0}});
    const uint32_t arr = b.array(s32, 2);
    // struct foo___local { unsigned int a; int b; int gone; union { int anon_u; };
    //                      unsigned int flags:3, mode:5; int wide; int arr[2]; unsigned int grown; }
    foo = b.structure("foo___local", 40,
                      {{"a", u32, 0},
                       {"b", s32, 32},
                       {"gone", s32, 64},
                       {"", anon, 96},
                       {"flags", u32, 128, 3},
                       {"mode", u32, 131, 5},
                       {"wide", s32, 160},
                       {"arr", arr, 192},
                       {"grown", u32, 256}});
    missing = b.structure("not_in_kernel", 4, {{"z", s32, 0}});
    color = b.enumeration("color___v2", 4, {{"BLUE", 1}, {"PURPLE", 2}});
  }
};

TEST(CoreEssentialName, StripsTheLastFlavor) {
  EXPECT_EQ(core_essential_length("task_struct___v1"), 11u);
  EXPECT_EQ(core_essential_length("task_struct"), 11u);
  EXPECT_EQ(core_essential_length("a___b___c"), 5u);   // only the last suffix
  EXPECT_EQ(core_essential_length("foo____x"), 8u);    // four underscores: no separator
  EXPECT_EQ(core_essential_length("foo___"), 6u);      // nothing after it
  EXPECT_EQ(core_essential_length("___x"), 4u);
  EXPECT_EQ(core_essential_length(""), 0u);
}

TEST(CoreRelocation, FieldByteOffsetFollowsTheKernelLayoutThroughAFlavor) {
  Kernel kernel;
  Local local;
  // r0 = *(u32 *)(r1 + 4)   // foo___local.b
  Relocated r(local.b, {{0, local.foo, "0:1", kCoreFieldByteOffset}},
              concat({insn(kLdxW, 0, 1, 4, 0), insn(kExit, 0, 0, 0, 0)}), &kernel.bytes);
  ASSERT_TRUE(r.result.ok());
  ASSERT_TRUE(r.status.ok()) << elf_error_name(r.status.error);
  EXPECT_EQ(r.off(0), 8);  // kernel foo.b is at byte 8
  EXPECT_EQ(r.program.core_relocations, 1u);
  EXPECT_EQ(r.program.core_failure_count, 0u);
}

TEST(CoreRelocation, AnonymousMembersAndArraysAreWalked) {
  Kernel kernel;
  Local local;
  Relocated r(local.b,
              {{0, local.foo, "0:3:0", kCoreFieldByteOffset},  // anon_u, through the anonymous union
               {1, local.foo, "0:7:1", kCoreFieldByteOffset}},  // arr[1]
              concat({insn(kLdxW, 0, 1, 12, 0), insn(kLdxW, 0, 1, 28, 0), insn(kExit, 0, 0, 0, 0)}),
              &kernel.bytes);
  ASSERT_TRUE(r.status.ok()) << elf_error_name(r.status.error);
  EXPECT_EQ(r.off(0), 16);
  EXPECT_EQ(r.off(1), 32 + 4);
}

TEST(CoreRelocation, ArrayIndexPastTheKernelBoundDoesNotMatch) {
  Kernel kernel;
  BtfBuilder b;
  const uint32_t s32 = b.integer("int", 4, true);
  const uint32_t arr = b.array(s32, 8);
  const uint32_t foo = b.structure("foo", 64, {{"x", s32, 0}, {"arr", arr, 32}});
  // arr[5] exists locally (8 elements) but not in the kernel (4): poisoned.
  Relocated r(b, {{0, foo, "0:1:5", kCoreFieldByteOffset}},
              concat({insn(kLdxW, 0, 1, 24, 0), insn(kExit, 0, 0, 0, 0)}), &kernel.bytes);
  ASSERT_TRUE(r.status.ok()) << elf_error_name(r.status.error);
  EXPECT_TRUE(r.poisoned(0));
}

TEST(CoreRelocation, SizeSignednessExistence) {
  Kernel kernel;
  Local local;
  Relocated r(local.b,
              {{0, local.foo, "0:6", kCoreFieldByteSize},    // wide: 4 -> 8
               {1, local.foo, "0:0", kCoreFieldSigned},      // a: unsigned both
               {2, local.foo, "0:1", kCoreFieldSigned},      // b: signed both
               {3, local.foo, "0:2", kCoreFieldExists},      // gone: no
               {4, local.foo, "0:1", kCoreFieldExists}},     // b: yes
              concat({insn(kMov64Imm, 0, 0, 0, 4), insn(kMov64Imm, 0, 0, 0, 0), insn(kMov64Imm, 0, 0, 0, 1),
                      insn(kMov64Imm, 0, 0, 0, 1), insn(kMov64Imm, 0, 0, 0, 1), insn(kExit, 0, 0, 0, 0)}),
              &kernel.bytes);
  ASSERT_TRUE(r.status.ok()) << elf_error_name(r.status.error);
  EXPECT_EQ(r.imm(0), 8);
  EXPECT_EQ(r.imm(1), 0);
  EXPECT_EQ(r.imm(2), 1);
  EXPECT_EQ(r.imm(3), 0);
  EXPECT_EQ(r.imm(4), 1);
  EXPECT_EQ(r.program.core_failure_count, 0u);
}

TEST(CoreRelocation, BitfieldShiftsAndOffset) {
  Kernel kernel;
  Local local;
  // Local mode: bits 131..135 of a 4-byte unit at byte 16: offset 16, lshift
  // 64 - (131 + 5 - 128) = 56, rshift 59. Kernel mode: bits 163..167, unit
  // at byte 20: offset 20, lshift 64 - (163 + 5 - 160) = 56, rshift 59.
  // flags is 3 bits at 160: lshift 64 - 3 = 61.
  Relocated r(local.b,
              {{0, local.foo, "0:5", kCoreFieldByteOffset},
               {1, local.foo, "0:5", kCoreFieldLshiftU64},
               {2, local.foo, "0:5", kCoreFieldRshiftU64},
               {3, local.foo, "0:4", kCoreFieldLshiftU64},
               {4, local.foo, "0:5", kCoreFieldByteSize}},
              concat({insn(kLdxW, 0, 1, 16, 0), insn(kMov64Imm, 0, 0, 0, 56), insn(kMov64Imm, 0, 0, 0, 59),
                      insn(kMov64Imm, 0, 0, 0, 61), insn(kMov64Imm, 0, 0, 0, 4), insn(kExit, 0, 0, 0, 0)}),
              &kernel.bytes);
  ASSERT_TRUE(r.status.ok()) << elf_error_name(r.status.error);
  EXPECT_EQ(r.off(0), 20);
  EXPECT_EQ(r.imm(1), 56);
  EXPECT_EQ(r.imm(2), 59);
  EXPECT_EQ(r.imm(3), 61);
  EXPECT_EQ(r.imm(4), 4);
}

TEST(CoreRelocation, LoadsAreResizedForUnsignedIntegersOnly) {
  Kernel kernel;
  Local local;
  // grown: local unsigned int (4), kernel unsigned long (8): W becomes DW.
  // wide: local int (4), kernel long (8): signed, cannot be resized: poisoned.
  Relocated r(local.b,
              {{0, local.foo, "0:8", kCoreFieldByteOffset}, {1, local.foo, "0:6", kCoreFieldByteOffset}},
              concat({insn(kLdxW, 0, 1, 32, 0), insn(kLdxW, 0, 1, 20, 0), insn(kExit, 0, 0, 0, 0)}),
              &kernel.bytes);
  ASSERT_TRUE(r.status.ok()) << elf_error_name(r.status.error);
  EXPECT_EQ(r.code[0], kLdxDw);
  EXPECT_EQ(r.off(0), 48);
  EXPECT_TRUE(r.poisoned(1));
  ASSERT_EQ(r.program.core_failure_count, 1u);
  EXPECT_EQ(r.program.core_failures[0].cause, CoreFailureCause::size_mismatch);
}

TEST(CoreRelocation, TypeKinds) {
  Kernel kernel;
  Local local;
  Relocated r(local.b,
              {{0, local.foo, "0", kCoreTypeIdLocal},
               {1, local.foo, "0", kCoreTypeIdTarget},
               {2, local.foo, "0", kCoreTypeExists},
               {3, local.missing, "0", kCoreTypeExists},
               {4, local.foo, "0", kCoreTypeSize},
               {5, local.missing, "0", kCoreTypeSize},
               {6, local.missing, "0", kCoreTypeIdTarget}},
              concat({insn(kMov64Imm, 0, 0, 0, 99), insn(kMov64Imm, 0, 0, 0, 99), insn(kMov64Imm, 0, 0, 0, 1),
                      insn(kMov64Imm, 0, 0, 0, 1), insn(kMov64Imm, 0, 0, 0, 40), insn(kMov64Imm, 0, 0, 0, 4),
                      insn(kMov64Imm, 0, 0, 0, 5), insn(kExit, 0, 0, 0, 0)}),
              &kernel.bytes);
  ASSERT_TRUE(r.status.ok()) << elf_error_name(r.status.error);
  EXPECT_EQ(r.imm(0), static_cast<int32_t>(local.foo));
  EXPECT_EQ(r.imm(1), static_cast<int32_t>(kernel.foo));
  EXPECT_EQ(r.imm(2), 1);
  EXPECT_EQ(r.imm(3), 0);
  EXPECT_EQ(r.imm(4), 64);
  EXPECT_EQ(r.imm(5), 0);
  EXPECT_EQ(r.imm(6), 0);
  EXPECT_EQ(r.program.core_failure_count, 0u);
}

TEST(CoreRelocation, TypeMatchesIsStricterThanCompatibility) {
  Kernel kernel;
  Local local;
  BtfBuilder& b = local.b;
  const uint32_t same = b.structure("foo___m", 8, {{"a", local.u32, 0}, {"b", local.s32, 32}});
  const uint32_t sign = b.structure("foo___n", 4, {{"a", local.s32, 0}});  // a is unsigned in the kernel
  const uint32_t ptr = b.pointer(local.foo);
  const uint32_t behind = b.typedef_("foo_ptr", ptr);  // no kernel type of that name
  Relocated r(b,
              {{0, same, "0", kCoreTypeMatches},
               {1, sign, "0", kCoreTypeMatches},
               {2, local.foo, "0", kCoreTypeMatches},   // 'gone' is not in the kernel's foo
               {3, local.foo, "0", kCoreTypeExists},    // ... but the types are compatible
               {4, local.color, "0", kCoreTypeMatches},  // PURPLE is not in the kernel's enum
               {5, behind, "0", kCoreTypeMatches}},
              concat({insn(kMov64Imm, 0, 0, 0, 1), insn(kMov64Imm, 0, 0, 0, 1), insn(kMov64Imm, 0, 0, 0, 1),
                      insn(kMov64Imm, 0, 0, 0, 1), insn(kMov64Imm, 0, 0, 0, 1), insn(kMov64Imm, 0, 0, 0, 1),
                      insn(kExit, 0, 0, 0, 0)}),
              &kernel.bytes);
  ASSERT_TRUE(r.status.ok()) << elf_error_name(r.status.error);
  EXPECT_EQ(r.imm(0), 1);
  EXPECT_EQ(r.imm(1), 0);
  EXPECT_EQ(r.imm(2), 0);
  EXPECT_EQ(r.imm(3), 1);
  EXPECT_EQ(r.imm(4), 0);
  EXPECT_EQ(r.imm(5), 0);
}

TEST(CoreRelocation, EnumValues) {
  Kernel kernel;
  Local local;
  BtfBuilder& b = local.b;
  const uint32_t big = b.enumeration("big", 8, {{"HUGE", 5}}, true);
  // r0 = 1 (BLUE locally) -> 7; PURPLE exists? no; r1 = lddw HUGE -> 2^40.
  Relocated r(b,
              {{0, local.color, "0", kCoreEnumvalValue},
               {1, local.color, "1", kCoreEnumvalExists},
               {2, local.color, "0", kCoreEnumvalExists},
               {3, big, "0", kCoreEnumvalValue}},
              concat({insn(kMov64Imm, 0, 0, 0, 1), insn(kMov64Imm, 0, 0, 0, 1), insn(kMov64Imm, 0, 0, 0, 1),
                      insn(kLddw, 1, 0, 0, 5), insn(0, 0, 0, 0, 0), insn(kExit, 0, 0, 0, 0)}),
              &kernel.bytes);
  ASSERT_TRUE(r.status.ok()) << elf_error_name(r.status.error);
  EXPECT_EQ(r.imm(0), 7);
  EXPECT_EQ(r.imm(1), 0);
  EXPECT_EQ(r.imm(2), 1);
  EXPECT_EQ(r.imm(3), 0);
  EXPECT_EQ(r.imm(4), 1 << 8);
}

TEST(CoreRelocation, UnsatisfiableRelocationsArePoisonedAndNamed) {
  Kernel kernel;
  Local local;
  const uint32_t purple_enum = local.color;
  Relocated r(local.b,
              {{0, local.foo, "0:2", kCoreFieldByteOffset},   // gone: no such field
               {1, local.missing, "0:0", kCoreFieldByteOffset},  // no such type
               {2, purple_enum, "1", kCoreEnumvalValue}},      // PURPLE: no such enumerator, on a lddw
              concat({insn(kLdxW, 0, 1, 8, 0), insn(kLdxW, 0, 1, 0, 0), insn(kLddw, 1, 0, 0, 2), insn(0, 0, 0, 0, 0),
                      insn(kExit, 0, 0, 0, 0)}),
              &kernel.bytes);
  ASSERT_TRUE(r.status.ok()) << elf_error_name(r.status.error);
  EXPECT_TRUE(r.poisoned(0));
  EXPECT_TRUE(r.poisoned(1));
  EXPECT_TRUE(r.poisoned(2));
  EXPECT_TRUE(r.poisoned(3));  // both slots of the lddw, as libbpf does
  ASSERT_EQ(r.program.core_failure_count, 3u);
  EXPECT_EQ(r.program.core_failures[0].cause, CoreFailureCause::no_field);
  EXPECT_EQ(r.program.core_failures[1].cause, CoreFailureCause::no_type);
  EXPECT_EQ(r.program.core_failures[2].cause, CoreFailureCause::no_enumerator);
  const CoreFailure* gone = find_core_failure(r.program, 0);
  ASSERT_NE(gone, nullptr);
  char text[512];
  describe(*gone, text, sizeof text);
  EXPECT_NE(std::string(text).find("bpf_core_poison"), std::string::npos) << text;
  EXPECT_NE(std::string(text).find("'foo___local' field 'gone'"), std::string::npos) << text;
  EXPECT_NE(std::string(text).find("no such field"), std::string::npos) << text;
  EXPECT_EQ(find_core_failure(r.program, 4), nullptr);
}

// The poison is rejected only where it is reachable, as Linux does.
Verdict verify_code(const std::vector<uint8_t>& code) {
  const ProgramType* type = find_program_type(linux_platform(), "kprobe");
  EXPECT_NE(type, nullptr);
  std::vector<uint8_t> memory(size_t{4} << 20);
  Arena arena(memory.data(), memory.size());
  Program program;
  EXPECT_TRUE(decode(code.data(), code.size(), DecodeOptions{}, arena, program).ok());
  VerifyOptions options;
  options.linux_rules = true;
  return verify(program, *type, options, arena);
}

TEST(CoreRelocation, PoisonRejectsOnlyWhenReachable) {
  Kernel kernel;
  Local local;
  // if (bpf_core_field_exists(foo->gone)) r0 = foo->gone; -- the guard is
  // relocated to 0, so the poisoned load is dead code.
  const std::vector<uint8_t> guarded = concat({insn(kMov64Imm, 2, 0, 0, 1), insn(kMov64Imm, 0, 0, 0, 0),
                                               insn(kJeqImm, 2, 0, 1, 0), insn(kLdxW, 0, 1, 8, 0),
                                               insn(kExit, 0, 0, 0, 0)});
  Relocated dead(local.b, {{0, local.foo, "0:2", kCoreFieldExists}, {3, local.foo, "0:2", kCoreFieldByteOffset}},
                 guarded, &kernel.bytes);
  ASSERT_TRUE(dead.status.ok());
  EXPECT_EQ(dead.imm(0), 0);
  EXPECT_TRUE(dead.poisoned(3));
  EXPECT_EQ(verify_code(dead.code).reason, Reason::ok);

  // Unguarded: the poison is reached.
  Local again;
  Relocated live(again.b, {{1, again.foo, "0:2", kCoreFieldByteOffset}},
                 concat({insn(kMov64Imm, 0, 0, 0, 0), insn(kLdxW, 0, 1, 8, 0), insn(kExit, 0, 0, 0, 0)}),
                 &kernel.bytes);
  ASSERT_TRUE(live.poisoned(1));
  const Verdict v = verify_code(live.code);
  EXPECT_EQ(v.reason, Reason::unknown_helper);
  EXPECT_EQ(v.pc, 1u);
}

TEST(CoreRelocation, LibbpfRefusalsAreLoadErrors) {
  Kernel kernel;
  {
    Local local;  // the instruction does not hold the local offset (4)
    Relocated r(local.b, {{0, local.foo, "0:1", kCoreFieldByteOffset}},
                concat({insn(kLdxW, 0, 1, 6, 0), insn(kExit, 0, 0, 0, 0)}), &kernel.bytes);
    EXPECT_EQ(r.status.error, ElfError::bad_btf_ext);
    EXPECT_STREQ(r.status.symbol, "foo___local");
  }
  for (const char* access : {"0::1", ":0", "0:", "0:99", "x", "0:1:1"}) {
    Local local;
    Relocated r(local.b, {{0, local.foo, access, kCoreFieldByteOffset}},
                concat({insn(kLdxW, 0, 1, 4, 0), insn(kExit, 0, 0, 0, 0)}), &kernel.bytes);
    EXPECT_EQ(r.status.error, ElfError::bad_btf_ext) << access;
  }
  {
    Local local;  // a register-source ALU instruction has no immediate to patch
    Relocated r(local.b, {{0, local.foo, "0:1", kCoreFieldByteSize}},
                concat({insn(0xbf, 0, 1, 0, 0), insn(kExit, 0, 0, 0, 0)}), &kernel.bytes);
    EXPECT_EQ(r.status.error, ElfError::bad_btf_ext);
  }
  {
    Local local;  // an unknown kind
    Relocated r(local.b, {{0, local.foo, "0:1", 77}},
                concat({insn(kMov64Imm, 0, 0, 0, 4), insn(kExit, 0, 0, 0, 0)}), &kernel.bytes);
    EXPECT_EQ(r.status.error, ElfError::bad_btf_ext);
  }
}

TEST(CoreRelocation, AmbiguousCandidatesRefuseTheLoad) {
  BtfBuilder k;
  const uint32_t s32 = k.integer("int", 4, true);
  k.structure("foo", 8, {{"x", s32, 0}, {"b", s32, 32}});
  k.structure("foo___other", 8, {{"b", s32, 0}, {"x", s32, 32}});
  const std::vector<uint8_t> kernel = k.bytes();
  Local local;
  Relocated r(local.b, {{0, local.foo, "0:1", kCoreFieldByteOffset}},
              concat({insn(kLdxW, 0, 1, 4, 0), insn(kExit, 0, 0, 0, 0)}), &kernel);
  EXPECT_EQ(r.status.error, ElfError::bad_btf_ext);

  // The same layout twice is no ambiguity.
  BtfBuilder same;
  const uint32_t i = same.integer("int", 4, true);
  same.structure("foo", 8, {{"x", i, 0}, {"b", i, 32}});
  same.structure("foo___again", 8, {{"x", i, 0}, {"b", i, 32}});
  const std::vector<uint8_t> twice = same.bytes();
  Local local2;
  Relocated ok(local2.b, {{0, local2.foo, "0:1", kCoreFieldByteOffset}},
               concat({insn(kLdxW, 0, 1, 4, 0), insn(kExit, 0, 0, 0, 0)}), &twice);
  EXPECT_TRUE(ok.status.ok()) << elf_error_name(ok.status.error);
  EXPECT_EQ(ok.off(0), 4);
}

TEST(CoreRelocation, IncompatibleFieldKindsDoNotMatch) {
  BtfBuilder k;
  const uint32_t s32 = k.integer("int", 4, true);
  const uint32_t inner = k.structure("inner", 4, {{"v", s32, 0}});
  k.structure("foo", 8, {{"a", inner, 0}, {"b", s32, 32}});  // a is a struct in the kernel
  const std::vector<uint8_t> kernel = k.bytes();
  Local local;  // a is an unsigned int locally
  Relocated r(local.b, {{0, local.foo, "0:0", kCoreFieldExists}},
              concat({insn(kMov64Imm, 0, 0, 0, 1), insn(kExit, 0, 0, 0, 0)}), &kernel);
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.imm(0), 0);
}

TEST(CoreRelocation, WithoutKernelBtfTheProgramIsUnsupported) {
  Local local;
  Relocated r(local.b, {{0, local.foo, "0:1", kCoreFieldByteOffset}},
              concat({insn(kLdxW, 0, 1, 4, 0), insn(kExit, 0, 0, 0, 0)}), nullptr);
  EXPECT_EQ(r.status.error, ElfError::unsupported_core_relocation);
  EXPECT_EQ(r.status.value, uint64_t{kCoreFieldByteOffset});
  EXPECT_EQ(r.off(0), 4);  // untouched
}

TEST(CoreRelocation, HostileKernelBtfIsAnErrorNotACrash) {
  Local local;
  for (size_t cut : {size_t{10}, size_t{30}, size_t{100}}) {
    Kernel kernel;
    std::vector<uint8_t> broken(kernel.bytes.begin(), kernel.bytes.begin() + static_cast<long>(std::min(cut, kernel.bytes.size())));
    if (broken.size() >= 24) {
      const uint32_t huge = 0xffffff00u;
      std::memcpy(&broken[12], &huge, 4);  // type_len past the end
    }
    Local l;
    Relocated r(l.b, {{0, l.foo, "0:1", kCoreFieldByteOffset}},
                concat({insn(kLdxW, 0, 1, 4, 0), insn(kExit, 0, 0, 0, 0)}), &broken);
    EXPECT_EQ(r.status.error, ElfError::bad_btf) << cut;
    EXPECT_STREQ(r.status.section_name, "kernel BTF");
  }
  // A self-referencing typedef and a struct that contains itself anonymously
  // end within the bounds.
  BtfBuilder k;
  const uint32_t s32 = k.integer("int", 4, true);
  const uint32_t loop = k.typedef_("loop", 3);  // id 2 -> id 3 -> id 2
  k.typedef_("loop2", loop);
  k.structure("foo", 8, {{"", 4, 0}, {"", 4, 0}, {"x", s32, 0}});  // id 4 holds itself twice
  const std::vector<uint8_t> cyclic = k.bytes();
  Relocated r(local.b, {{0, local.foo, "0:1", kCoreFieldByteOffset}},
              concat({insn(kLdxW, 0, 1, 4, 0), insn(kExit, 0, 0, 0, 0)}), &cyclic);
  EXPECT_EQ(r.status.error, ElfError::bad_btf_ext);  // 64 levels of anonymous members at most
}

// The host's vmlinux BTF, where there is one.
TEST(CoreRelocationHost, TaskStructAgainstTheRunningKernel) {
  std::ifstream in("/sys/kernel/btf/vmlinux", std::ios::binary);
  if (!in) GTEST_SKIP() << "no /sys/kernel/btf/vmlinux on this host (a kernel without CONFIG_DEBUG_INFO_BTF)";
  const std::vector<uint8_t> vmlinux((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(vmlinux.size(), 1000u);

  // An index of the kernel's own struct task_struct, to compare with.
  std::vector<uint8_t> memory(vmlinux.size() * 2 + (size_t{1} << 20));
  Arena arena(memory.data(), memory.size());
  Btf btf;
  BtfFault fault;
  ASSERT_EQ(parse_btf_bytes(vmlinux.data(), vmlinux.size(), arena, btf, fault), ElfError::ok);
  uint32_t task = 0;
  for (uint32_t id = 1; id <= btf.type_count && task == 0; ++id) {
    BtfType t;
    btf_type(btf, id, t);
    const char* name = btf_string(btf, t.name_off);
    if (t.kind == kBtfStruct && name != nullptr && std::strcmp(name, "task_struct") == 0) task = id;
  }
  ASSERT_NE(task, 0u);
  BtfType t;
  btf_type(btf, task, t);
  uint32_t pid_bits = UINT32_MAX;
  for (uint32_t i = 0; i < t.vlen; ++i) {
    uint32_t name_off, offset;
    std::memcpy(&name_off, t.extra + i * 12, 4);
    std::memcpy(&offset, t.extra + i * 12 + 8, 4);
    const char* name = btf_string(btf, name_off);
    if (name != nullptr && std::strcmp(name, "pid") == 0) pid_bits = t.kind_flag ? offset & 0xffffff : offset;
  }
  ASSERT_NE(pid_bits, UINT32_MAX) << "task_struct.pid is a direct member in every kernel since 2.6";

  BtfBuilder b;
  const uint32_t s32 = b.integer("int", 4, true);
  const uint32_t task_local = b.structure("task_struct___keel", 8, {{"pid", s32, 0}, {"no_such_field_keel", s32, 32}});
  const uint32_t missing = b.structure("no_such_struct_keel", 4, {{"x", s32, 0}});
  Relocated r(b,
              {{0, task_local, "0:0", kCoreFieldByteOffset},
               {1, task_local, "0:1", kCoreFieldExists},
               {2, task_local, "0", kCoreTypeSize},
               {3, missing, "0", kCoreTypeExists}},
              concat({insn(kLdxW, 0, 1, 0, 0), insn(kMov64Imm, 0, 0, 0, 1), insn(kMov64Imm, 0, 0, 0, 8),
                      insn(kMov64Imm, 0, 0, 0, 1), insn(kExit, 0, 0, 0, 0)}),
              &vmlinux);
  ASSERT_TRUE(r.result.ok());
  ASSERT_TRUE(r.status.ok()) << elf_error_name(r.status.error);
  EXPECT_EQ(static_cast<uint32_t>(r.off(0)), pid_bits / 8);
  EXPECT_EQ(r.imm(1), 0);
  EXPECT_EQ(static_cast<uint32_t>(r.imm(2)), t.size_or_type);
  EXPECT_EQ(r.imm(3), 0);
}

}  // namespace
}  // namespace keel::elf
