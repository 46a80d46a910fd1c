// BTF-typed program types (keel/btf_program.h) and loads through their
// PTR_TO_BTF_ID pointers (analysis/btf_ptr.cc), against a small kernel BTF
// built here (Documentation/bpf/btf.rst encoding), so that nothing depends
// on the host's kernel; and, where the host has one, the ebpf-samples
// fentry program against /sys/kernel/btf/vmlinux.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "keel/btf_program.h"
#include "keel/elf.h"
#include "verify_checker.h"

namespace keel {
namespace {

namespace fs = std::filesystem;
using testing::Checker;

// ---- A BTF blob writer ----------------------------------------------------------

class BtfBuilder {
 public:
  uint32_t int_type(const char* name, uint32_t size, bool is_signed, uint32_t bits = 0) {
    const uint32_t id = header(name, 1, 0, size);
    word(((is_signed ? 1u : 0u) << 24) | (bits != 0 ? bits : size * 8));
    return id;
  }
  uint32_t ptr(uint32_t to) { return header(nullptr, 2, 0, to); }
  uint32_t array(uint32_t elem, uint32_t count) {
    const uint32_t id = header(nullptr, 3, 0, 0);
    word(elem);
    word(index_type_);
    word(count);
    return id;
  }
  struct Member {
    const char* name;
    uint32_t type;
    uint32_t bit_offset;
    uint32_t bitfield = 0;
  };
  uint32_t struct_type(const char* name, uint32_t size, const std::vector<Member>& members, bool is_union = false) {
    bool flag = false;
    for (const Member& m : members) flag = flag || m.bitfield != 0;
    const uint32_t id = header(name, is_union ? 5 : 4, static_cast<uint32_t>(members.size()), size, flag);
    for (const Member& m : members) {
      word(str(m.name));
      word(m.type);
      word(flag ? (m.bitfield << 24) | m.bit_offset : m.bit_offset);
    }
    return id;
  }
  // A forward-declared id can be filled in later: struct types refer to
  // themselves through pointers, so pointers may be made first.
  uint32_t next_id() const { return count_ + 1; }
  uint32_t typedef_type(const char* name, uint32_t to) { return header(name, 8, 0, to); }
  uint32_t func_proto(uint32_t ret, const std::vector<uint32_t>& params) {
    const uint32_t id = header(nullptr, 13, static_cast<uint32_t>(params.size()), ret);
    for (uint32_t p : params) {
      word(0);
      word(p);
    }
    return id;
  }
  uint32_t func(const char* name, uint32_t proto) { return header(name, 12, 0, proto); }
  uint32_t type_tag(const char* name, uint32_t to) { return header(name, 18, 0, to); }
  void set_index_type(uint32_t id) { index_type_ = id; }

  std::vector<uint8_t> bytes() const {
    // Sized once and filled with memcpy: g++ 12 -O3 warns falsely
    // (-Warray-bounds) on inserting into a vector that starts at 24 bytes.
    const uint32_t hdr[6] = {0x0001eb9f, 24, 0, static_cast<uint32_t>(types_.size()),
                             static_cast<uint32_t>(types_.size()), static_cast<uint32_t>(strings_.size())};
    std::vector<uint8_t> out(sizeof hdr + types_.size() + strings_.size());
    std::memcpy(out.data(), hdr, sizeof hdr);
    if (!types_.empty()) std::memcpy(out.data() + sizeof hdr, types_.data(), types_.size());
    if (!strings_.empty()) std::memcpy(out.data() + sizeof hdr + types_.size(), strings_.data(), strings_.size());
    return out;
  }

 private:
  uint32_t header(const char* name, uint32_t kind, uint32_t vlen, uint32_t size_or_type, bool flag = false) {
    word(str(name));
    word((flag ? 1u << 31 : 0u) | (kind << 24) | vlen);
    word(size_or_type);
    return ++count_;
  }
  uint32_t str(const char* s) {
    if (s == nullptr || *s == '\0') return 0;
    const uint32_t at = static_cast<uint32_t>(strings_.size());
    strings_.insert(strings_.end(), s, s + std::strlen(s) + 1);
    return at;
  }
  void word(uint32_t w) {
    const auto* p = reinterpret_cast<const uint8_t*>(&w);
    types_.insert(types_.end(), p, p + 4);
  }
  std::vector<uint8_t> types_;
  std::vector<uint8_t> strings_{0};
  uint32_t count_ = 0;
  uint32_t index_type_ = 1;
};

// A kernel with:
//   struct obj { int a; int b; struct inner in; struct obj *next; char name[8];
//                unsigned int bits:3; void *opaque; }              (48 bytes)
//   struct inner { long x; long y; }                               (16 bytes)
//   int target(struct obj *p, long n, void *v, int *ip, struct obj **pp);
//   typedef void (*btf_trace_ev)(void *, struct obj *, int);
//   int bpf_lsm_hook(struct obj *p);   void bpf_iter_things(struct meta *, struct obj *, unsigned int);
//   void bpf_iter_elems(struct meta *, void *);
//   void by_value(struct inner s);   void tagged(struct obj __user *u);
struct Kernel {
  std::vector<uint8_t> bytes;
  std::vector<uint8_t> memory = std::vector<uint8_t>(1 << 16);
  std::unique_ptr<Arena> arena;
  KernelBtf btf;
};

std::unique_ptr<Kernel> small_kernel() {
  BtfBuilder b;
  const uint32_t int_t = b.int_type("int", 4, true);            // 1
  const uint32_t long_t = b.int_type("long", 8, true);          // 2
  const uint32_t char_t = b.int_type("char", 1, true);          // 3
  const uint32_t uint_t = b.int_type("unsigned int", 4, false); // 4
  b.set_index_type(int_t);
  const uint32_t inner = b.struct_type("inner", 16, {{"x", long_t, 0}, {"y", long_t, 64}});
  const uint32_t obj_id = b.next_id() + 3;  // after the three types below
  const uint32_t obj_ptr = b.ptr(obj_id);
  const uint32_t name_arr = b.array(char_t, 8);
  const uint32_t void_ptr = b.ptr(0);
  const uint32_t obj = b.struct_type("obj", 48,
                                     {{"a", int_t, 0},
                                      {"b", int_t, 32},
                                      {"in", inner, 64},
                                      {"next", obj_ptr, 192},
                                      {"name", name_arr, 256},
                                      {"bits", uint_t, 320, 3},
                                      {"opaque", void_ptr, 320 + 64}});
  EXPECT_EQ(obj, obj_id);
  const uint32_t int_ptr = b.ptr(int_t);
  const uint32_t obj_ptr_ptr = b.ptr(obj_ptr);
  b.func("target", b.func_proto(int_t, {obj_ptr, long_t, void_ptr, int_ptr, obj_ptr_ptr}));
  b.typedef_type("btf_trace_ev", b.ptr(b.func_proto(0, {void_ptr, obj_ptr, int_t})));
  b.func("bpf_lsm_hook", b.func_proto(int_t, {obj_ptr}));
  const uint32_t meta = b.struct_type("meta", 8, {{"seq", void_ptr, 0}});
  b.func("bpf_iter_things", b.func_proto(0, {b.ptr(meta), obj_ptr, uint_t}));
  b.func("bpf_iter_elems", b.func_proto(0, {b.ptr(meta), void_ptr}));
  b.func("by_value", b.func_proto(0, {inner}));
  b.func("returns_obj", b.func_proto(obj_ptr, {long_t}));
  b.func("tagged", b.func_proto(0, {b.ptr(b.type_tag("user", obj))}));
  auto k = std::make_unique<Kernel>();
  k->bytes = b.bytes();
  k->arena = std::make_unique<Arena>(k->memory.data(), k->memory.size());
  EXPECT_EQ(parse_kernel_btf(k->bytes.data(), k->bytes.size(), *k->arena, k->btf), BtfProgramError::ok);
  return k;
}

const std::string kExit0 = "mov %r0, 0\nexit\n";

struct Typed {
  std::unique_ptr<Kernel> kernel = small_kernel();
  BtfProgramType type;
  explicit Typed(const char* section) {
    EXPECT_EQ(make_btf_program_type(kernel->btf, section, type), BtfProgramError::ok) << section;
  }
};

TEST(BtfProgram, Sections) {
  EXPECT_TRUE(is_btf_typed_section("fentry/target"));
  EXPECT_TRUE(is_btf_typed_section("?fexit.s/target"));
  EXPECT_TRUE(is_btf_typed_section("iter/things"));
  EXPECT_FALSE(is_btf_typed_section("fentry"));  // no target
  EXPECT_FALSE(is_btf_typed_section("kprobe/target"));
  const auto k = small_kernel();
  BtfProgramType t;
  EXPECT_EQ(make_btf_program_type(k->btf, "fentry/absent", t), BtfProgramError::no_target);
  EXPECT_EQ(make_btf_program_type(k->btf, "kprobe/target", t), BtfProgramError::not_btf_typed);
  EXPECT_EQ(make_btf_program_type(k->btf, "fentry/by_value", t), BtfProgramError::unsupported_target);
  EXPECT_EQ(make_btf_program_type(k->btf, "lsm_cgroup/hook", t), BtfProgramError::unsupported_target);
  EXPECT_EQ(make_btf_program_type(k->btf, "tp_btf/absent", t), BtfProgramError::no_target);
  EXPECT_EQ(make_btf_program_type(k->btf, "iter/elems", t), BtfProgramError::unsupported_target);  // buffers
  std::vector<uint8_t> junk(64, 0xab);
  KernelBtf bad;
  std::vector<uint8_t> memory(4096);
  Arena arena(memory.data(), memory.size());
  EXPECT_EQ(parse_kernel_btf(junk.data(), junk.size(), arena, bad), BtfProgramError::bad_btf);
}

TEST(BtfProgram, ContextSlots) {
  Typed t("fentry/target");
  Checker c;
  EXPECT_EQ(t.type.type.ctx_size, 5u * 8);
  EXPECT_ACCEPT(c, "ldxdw %r2, [%r1+8]\n" + kExit0, t.type.type);   // long n
  EXPECT_ACCEPT(c, "ldxw %r2, [%r1+8]\n" + kExit0, t.type.type);    // narrow, at the slot's start
  EXPECT_REJECT(c, "ldxw %r2, [%r1+12]\n" + kExit0, ctx_bad_access, t.type.type);  // offset not a multiple of 8
  EXPECT_ACCEPT(c, "ldxdw %r2, [%r1+16]\nldxdw %r3, [%r1+24]\n" + kExit0, t.type.type);  // void *, int *
  EXPECT_REJECT(c, "ldxdw %r2, [%r1+16]\nldxw %r0, [%r2+0]\n" + kExit0, scalar_dereference, t.type.type);
  EXPECT_REJECT(c, "ldxdw %r2, [%r1+32]\n" + kExit0, ctx_bad_access, t.type.type);  // struct obj **: not a struct
  EXPECT_REJECT(c, "ldxdw %r2, [%r1+40]\n" + kExit0, ctx_bad_access, t.type.type);  // no such argument
  EXPECT_REJECT(c, "ldxw %r2, [%r1+0]\n" + kExit0, ctx_bad_access, t.type.type);    // a pointer is read whole
  EXPECT_REJECT(c, "mov %r2, 1\nstxdw [%r1+8], %r2\n" + kExit0, read_only_write, t.type.type);
  // fentry and fexit return 0 (check_return_code).
  EXPECT_REJECT(c, "mov %r0, 1\nexit\n", bad_return_value, t.type.type);
}

TEST(BtfProgram, LoadsThroughTypedPointers) {
  Typed t("fentry/target");
  Checker c;
  const std::string p = "ldxdw %r2, [%r1+0]\n";
  EXPECT_ACCEPT(c, p + "ldxw %r0, [%r2+4]\n" + kExit0, t.type.type);     // p->b
  EXPECT_ACCEPT(c, p + "ldxdw %r0, [%r2+16]\n" + kExit0, t.type.type);   // p->in.y
  EXPECT_ACCEPT(c, p + "ldxb %r0, [%r2+35]\n" + kExit0, t.type.type);    // p->name[3]
  EXPECT_ACCEPT(c, p + "ldxdw %r0, [%r2+32]\n" + kExit0, t.type.type);   // all of name[]
  EXPECT_ACCEPT(c, p + "ldxb %r0, [%r2+40]\n" + kExit0, t.type.type);    // the bitfield's byte
  // p->next->next->a: a pointer member is again a typed pointer.
  EXPECT_ACCEPT(c, p + "ldxdw %r3, [%r2+24]\nldxdw %r3, [%r3+24]\nldxw %r0, [%r3+0]\n" + kExit0, t.type.type);
  // Constant pointer arithmetic is allowed; the access is checked at the sum.
  EXPECT_ACCEPT(c, p + "add %r2, 8\nldxdw %r0, [%r2+8]\n" + kExit0, t.type.type);
  // A pointer to void inside is only a number.
  EXPECT_REJECT(c, p + "ldxdw %r3, [%r2+48]\nldxb %r0, [%r3+0]\n" + kExit0, memory_out_of_bounds, t.type.type);
  EXPECT_REJECT(c, p + "ldxdw %r3, [%r2+40]\nldxb %r0, [%r3+0]\n" + kExit0, scalar_dereference, t.type.type);
  EXPECT_REJECT(c, p + "ldxw %r0, [%r2+56]\n" + kExit0, memory_out_of_bounds, t.type.type);  // past the struct
  EXPECT_NE(c.text.find("kernel object (BTF) of size 48"), std::string::npos) << c.text;
  EXPECT_REJECT(c, p + "ldxw %r0, [%r2-4]\n" + kExit0, memory_out_of_bounds, t.type.type);
  EXPECT_REJECT(c, p + "ldxw %r0, [%r2+28]\n" + kExit0, invalid_dereference, t.type.type);  // half of `next`
  EXPECT_REJECT(c, p + "ldxdw %r0, [%r2+4]\n" + kExit0, invalid_dereference, t.type.type);  // b and past it
  EXPECT_REJECT(c, p + "stw [%r2+0], 1\n" + kExit0, read_only_write, t.type.type);
  EXPECT_REJECT(c, p + "mov %r3, 1\nstxw [%r2+0], %r3\n" + kExit0, read_only_write, t.type.type);
  // A variable offset is refused ("invalid variable offset").
  EXPECT_REJECT(c, p + "ldxdw %r3, [%r1+8]\nand %r3, 4\nadd %r2, %r3\nldxw %r0, [%r2+0]\n" + kExit0,
                invalid_dereference, t.type.type);
  // Not memory for a helper: bpf_probe_read_kernel(fp-8, 8, p) takes it as
  // a number (ARG_ANYTHING), but bpf_get_current_comm(p, 8) wants memory.
  EXPECT_ACCEPT(c, p + "mov %r3, %r2\nmov %r1, %r10\nadd %r1, -8\nmov %r2, 8\ncall 113\n" + kExit0, t.type.type);
  EXPECT_REJECT(c, p + "mov %r1, %r2\nmov %r2, 8\ncall 16\n" + kExit0, helper_argument, t.type.type);
  // Linux does not take it as non-NULL: both branches of a NULL check stay.
  EXPECT_REJECT(c, p + "jeq %r2, 0, +2\n" + kExit0 + "mov %r0, 7\nexit\n", bad_return_value, t.type.type);
}

TEST(BtfProgram, UserPointersAreNumbers) {
  Typed t("fentry/tagged");
  Checker c;
  EXPECT_ACCEPT(c, "ldxdw %r2, [%r1+0]\n" + kExit0, t.type.type);
  EXPECT_REJECT(c, "ldxdw %r2, [%r1+0]\nldxw %r0, [%r2+0]\n" + kExit0, scalar_dereference, t.type.type);
}

TEST(BtfProgram, ReturnValues) {
  Typed fexit("fexit/target");
  Checker c;
  EXPECT_EQ(fexit.type.type.ctx_size, 6u * 8);
  EXPECT_ACCEPT(c, "ldxw %r2, [%r1+40]\n" + kExit0, fexit.type.type);  // the int returned
  Typed fexit_ptr("fexit/returns_obj");
  EXPECT_ACCEPT(c, "ldxdw %r2, [%r1+8]\nldxw %r0, [%r2+0]\n" + kExit0, fexit_ptr.type.type);
  Typed fmod("fmod_ret/target");
  EXPECT_ACCEPT(c, "ldxw %r2, [%r1+40]\nmov %r0, -1\nexit\n", fmod.type.type);  // any return value
  Typed fmod_ptr("fmod_ret/returns_obj");
  EXPECT_REJECT(c, "ldxdw %r2, [%r1+8]\n" + kExit0, ctx_bad_access, fmod_ptr.type.type);  // not an int
  Typed lsm("lsm/hook");
  EXPECT_ACCEPT(c, "ldxdw %r2, [%r1+0]\nldxw %r0, [%r2+0]\nldxw %r3, [%r1+8]\nexit\n", lsm.type.type);
}

TEST(BtfProgram, TracepointsSkipTheirDataArgument) {
  Typed tp("tp_btf/ev");
  Checker c;
  EXPECT_EQ(tp.type.type.ctx_size, 2u * 8);
  EXPECT_ACCEPT(c, "ldxdw %r2, [%r1+0]\nldxw %r0, [%r2+4]\nldxw %r3, [%r1+8]\nexit\n", tp.type.type);
  EXPECT_REJECT(c, "ldxdw %r2, [%r1+16]\n" + kExit0, ctx_bad_access, tp.type.type);
}

TEST(BtfProgram, IteratorObjectsMayBeNull) {
  Typed it("iter/things");
  Checker c;
  const std::string obj = "ldxdw %r2, [%r1+8]\n";
  EXPECT_REJECT(c, obj + "ldxw %r0, [%r2+0]\n" + kExit0, null_dereference, it.type.type);
  EXPECT_ACCEPT(c, obj + "jeq %r2, 0, +1\nldxw %r0, [%r2+0]\n" + kExit0, it.type.type);
  EXPECT_ACCEPT(c, "ldxdw %r2, [%r1+0]\nldxdw %r0, [%r2+0]\n" + kExit0, it.type.type);  // meta: not NULL
  EXPECT_REJECT(c, obj + "mov %r0, 2\nexit\n", bad_return_value, it.type.type);             // 0 or 1
  EXPECT_ACCEPT(c, "ldxw %r2, [%r1+16]\n" + kExit0, it.type.type);                        // an integer argument
}

// ---- Helpers taking and returning BTF pointers (bpf_skc_to_*) -------------------

// A kernel with sockets nested as Linux nests them (each begins with the
// one before) and a struct that holds a sock_common elsewhere than at 0:
//   struct sock_common { int family; int state; }                  (8 bytes)
//   struct sock { struct sock_common __sk_common; int protocol; }  (16)
//   struct tcp_sock { struct sock sk; long srtt; }                 (24)
//   struct other { int x; struct sock_common skc; }                (12)
//   struct padded { struct empty {} e; struct sock_common skc; }    (8, both at 0)
//   struct socks { struct sock_common all[2]; }                    (16)
//   struct task_struct { int pid; int tgid; }                      (8)
//   void sk_close(struct sock *, struct other *, struct sock_common *, long,
//                 struct padded *, struct socks *);
// There is no tcp6_sock, so bpf_skc_to_tcp6_sock cannot be typed.
std::unique_ptr<Kernel> socket_kernel() {
  BtfBuilder b;
  const uint32_t int_t = b.int_type("int", 4, true);
  const uint32_t long_t = b.int_type("long", 8, true);
  b.set_index_type(int_t);
  const uint32_t common = b.struct_type("sock_common", 8, {{"family", int_t, 0}, {"state", int_t, 32}});
  const uint32_t sock = b.struct_type("sock", 16, {{"__sk_common", common, 0}, {"protocol", int_t, 64}});
  b.struct_type("tcp_sock", 24, {{"sk", sock, 0}, {"srtt", long_t, 128}});
  const uint32_t other = b.struct_type("other", 12, {{"x", int_t, 0}, {"skc", common, 32}});
  b.struct_type("task_struct", 8, {{"pid", int_t, 0}, {"tgid", int_t, 32}});
  const uint32_t empty = b.struct_type("empty", 0, {});
  const uint32_t padded = b.struct_type("padded", 8, {{"e", empty, 0}, {"skc", common, 0}});
  const uint32_t socks = b.struct_type("socks", 16, {{"all", b.array(common, 2), 0}});
  b.func("sk_close", b.func_proto(0, {b.ptr(sock), b.ptr(other), b.ptr(common), long_t, b.ptr(padded),
                                      b.ptr(socks)}));
  auto k = std::make_unique<Kernel>();
  k->bytes = b.bytes();
  k->arena = std::make_unique<Arena>(k->memory.data(), k->memory.size());
  EXPECT_EQ(parse_kernel_btf(k->bytes.data(), k->bytes.size(), *k->arena, k->btf), BtfProgramError::ok);
  return k;
}

struct SocketTyped {
  std::unique_ptr<Kernel> kernel = socket_kernel();
  BtfProgramType type;
  SocketTyped() { EXPECT_EQ(make_btf_program_type(kernel->btf, "fentry/sk_close", type), BtfProgramError::ok); }
};

constexpr const char* kSkcToTcpSock = "call 137\n";  // BPF_FUNC_skc_to_tcp_sock

TEST(BtfHelpers, SkcToTcpSockReturnsATypedPointerOrNull) {
  SocketTyped t;
  Checker c;
  const std::string sk = "ldxdw %r1, [%r1+0]\n";  // struct sock *
  // NULL-checked, the result reads as a tcp_sock (srtt at 16).
  EXPECT_ACCEPT(c, sk + kSkcToTcpSock + "jeq %r0, 0, +1\nldxdw %r0, [%r0+16]\n" + kExit0, t.type.type);
  // The check is required ("invalid mem access 'ptr_or_null_'").
  EXPECT_REJECT(c, sk + kSkcToTcpSock + "ldxdw %r0, [%r0+16]\n" + kExit0, null_dereference, t.type.type);
  // Past the end of a tcp_sock.
  EXPECT_REJECT(c, sk + kSkcToTcpSock + "jeq %r0, 0, +1\nldxdw %r0, [%r0+24]\n" + kExit0, memory_out_of_bounds,
                t.type.type);
  // Still read-only.
  EXPECT_REJECT(c, sk + kSkcToTcpSock + "jeq %r0, 0, +1\nstw [%r0+0], 1\n" + kExit0, read_only_write, t.type.type);
  // The (checked) result is a socket again: it may be cast once more.
  EXPECT_ACCEPT(c, sk + kSkcToTcpSock + "jeq %r0, 0, +2\nmov %r1, %r0\n" + kSkcToTcpSock + kExit0, t.type.type);
  EXPECT_REJECT(c, sk + kSkcToTcpSock + "mov %r1, %r0\n" + kSkcToTcpSock + kExit0, null_dereference, t.type.type);
}

TEST(BtfHelpers, SkcToTakesOnlySockets) {
  SocketTyped t;
  Checker c;
  // A struct sock_common itself.
  EXPECT_ACCEPT(c, std::string("ldxdw %r1, [%r1+16]\n") + kSkcToTcpSock + kExit0, t.type.type);
  // A scalar, a non-socket object, one holding a sock_common only past its start.
  EXPECT_REJECT(c, std::string("mov %r1, 0\n") + kSkcToTcpSock + kExit0, helper_argument, t.type.type);
  EXPECT_REJECT(c, std::string("ldxdw %r1, [%r1+24]\n") + kSkcToTcpSock + kExit0, helper_argument, t.type.type);
  EXPECT_REJECT(c, std::string("ldxdw %r1, [%r1+8]\n") + kSkcToTcpSock + kExit0, helper_argument, t.type.type);
  // btf_struct_ids_match stops at the first struct at offset 0, even an
  // empty one; an array's first element counts.
  EXPECT_REJECT(c, std::string("ldxdw %r1, [%r1+32]\n") + kSkcToTcpSock + kExit0, helper_argument, t.type.type);
  EXPECT_ACCEPT(c, std::string("ldxdw %r1, [%r1+40]\n") + kSkcToTcpSock + kExit0, t.type.type);
  // The context itself, and a socket pointer moved off its start.
  EXPECT_REJECT(c, std::string(kSkcToTcpSock) + kExit0, helper_argument, t.type.type);
  EXPECT_REJECT(c, std::string("ldxdw %r1, [%r1+0]\nadd %r1, 8\n") + kSkcToTcpSock + kExit0, helper_argument,
                t.type.type);
}

TEST(BtfHelpers, CurrentTaskIsATypedPointer) {
  SocketTyped t;
  Checker c;
  // bpf_get_current_task_btf (158): RET_PTR_TO_BTF_ID, no NULL check needed.
  EXPECT_ACCEPT(c, "call 158\nldxw %r0, [%r0+4]\n" + kExit0, t.type.type);
  EXPECT_REJECT(c, "call 158\nldxw %r0, [%r0+8]\n" + kExit0, memory_out_of_bounds, t.type.type);
  EXPECT_REJECT(c, std::string("call 158\nmov %r1, %r0\n") + kSkcToTcpSock + kExit0, helper_argument, t.type.type);
}

TEST(BtfHelpers, UntypedResultsAreUnsupported) {
  SocketTyped t;
  Checker c;
  // bpf_skc_to_tcp6_sock (136): this kernel has no struct tcp6_sock.
  EXPECT_REJECT(c, "ldxdw %r1, [%r1+0]\ncall 136\n" + kExit0, unsupported_helper, t.type.type);
  // Without the kernel's types the result cannot be typed at all.
  ProgramType untyped = t.type.type;
  KernelTypes reads_only = t.type.types;
  reads_only.find_struct = nullptr;
  untyped.kernel_types = &reads_only;
  EXPECT_REJECT(c, std::string("ldxdw %r1, [%r1+0]\n") + kSkcToTcpSock + kExit0, unsupported_helper, untyped);
}

// ---- The host's kernel ----------------------------------------------------------

// Verifies the one program of a corpus object against the host's kernel
// BTF (CO-RE relocations applied against it too); skips where the corpus
// or the BTF is absent.
void verify_with_host_btf(const char* name, const char* target) {
  const fs::path vmlinux = "/sys/kernel/btf/vmlinux";
  const fs::path object = fs::path(KEEL_CORPUS_DIR) / "ebpf-samples/cilium-examples" / name;
  if (!fs::exists(object)) {
    const char* ci = std::getenv("CI");
    if (ci != nullptr && std::string(ci) == "true") FAIL() << "corpus not found under CI";
    GTEST_SKIP() << "skipped: corpus not found";
  }
  if (!fs::exists(vmlinux)) GTEST_SKIP() << "skipped: the host has no kernel BTF (/sys/kernel/btf/vmlinux)";
  std::ifstream in(vmlinux, std::ios::binary);
  const std::vector<uint8_t> btf_bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<uint8_t> btf_memory(btf_bytes.size() / 3 + 4096);
  Arena btf_arena(btf_memory.data(), btf_memory.size());
  KernelBtf kernel;
  ASSERT_EQ(parse_kernel_btf(btf_bytes.data(), btf_bytes.size(), btf_arena, kernel), BtfProgramError::ok);

  std::ifstream obj_in(object, std::ios::binary);
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(obj_in)), std::istreambuf_iterator<char>());
  std::vector<uint8_t> memory(bytes.size() * 64 + btf_bytes.size() + (1u << 20));
  Arena arena(memory.data(), memory.size());
  Object loaded;
  LoadOptions options;
  options.partial = true;
  options.kernel_btf = btf_bytes.data();
  options.kernel_btf_size = btf_bytes.size();
  ASSERT_TRUE(load_object(bytes.data(), bytes.size(), options, arena, loaded).ok());
  ASSERT_EQ(loaded.program_count, 1u);
  const ElfProgram& program = loaded.programs[0];
  BtfProgramType type;
  ASSERT_EQ(make_btf_program_type(kernel, program.section, type), BtfProgramError::ok);
  EXPECT_STREQ(type.target, target);
  Program decoded;
  ASSERT_TRUE(decode(program.insns, size_t{program.slots} * 8, DecodeOptions{}, arena, decoded).ok());
  VerifyOptions verify_options;
  verify_options.maps = loaded.maps;
  verify_options.map_count = loaded.map_count;
  const Verdict v = verify(decoded, type.type, verify_options, arena);
  char text[256];
  describe(v, text, sizeof text);
  EXPECT_TRUE(v.ok()) << text;
}

TEST(BtfProgram, CorpusFentryAgainstHostBtf) { verify_with_host_btf("fentry_bpf_bpfel.o", "tcp_connect"); }

// bpf_skc_to_tcp_sock(sk) on fentry/tcp_close's struct sock, NULL-checked,
// then read as a tcp_sock (srtt_us, through a CO-RE relocation).
TEST(BtfProgram, CorpusTcprttAgainstHostBtf) { verify_with_host_btf("tcprtt_bpf_bpfel.o", "tcp_close"); }

}  // namespace
}  // namespace keel
