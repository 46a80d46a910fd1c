// Reference tracking (analysis/calls.cc, state.cc, branch.cc, memory.cc):
// socket lookups and ring buffer reservations hold a reference that every
// path must give back exactly once before the program ends; a NULL check
// of the helper's result says whether it was taken; a released object is
// gone for every copy. Each rule has a program Linux 6.1 accepts and one
// it rejects (kernel/bpf/verifier.c: acquire_reference_state,
// release_reference, check_reference_leak).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "analysis/state.h"
#include "verify_checker.h"

namespace keel {
namespace {

using testing::Checker;
using testing::map_of;

const std::string kExit0 = "mov %r0, 0\nexit\n";

// r6 = ctx; r0 = bpf_sk_lookup_tcp(ctx, fp-16 (12 zero bytes), 12, 0, 0):
// a socket holding a reference, or NULL.
const std::string kLookup =
    "mov %r6, %r1\nstdw [%r10-16], 0\nstdw [%r10-8], 0\nmov %r2, %r10\nadd %r2, -16\n"
    "mov %r3, 12\nmov %r4, 0\nmov %r5, 0\ncall 84\n";
// The same with bpf_skc_lookup_tcp: a sock_common.
const std::string kLookupCommon =
    "mov %r6, %r1\nstdw [%r10-16], 0\nstdw [%r10-8], 0\nmov %r2, %r10\nadd %r2, -16\n"
    "mov %r3, 12\nmov %r4, 0\nmov %r5, 0\ncall 99\n";
// r0 = bpf_ringbuf_reserve(map 0, 16, 0): 16 bytes of a record, or NULL.
const std::string kReserve = "lddw %r1, map_fd 0\nmov %r2, 16\nmov %r3, 0\ncall 131\n";

Checker ringbuf_checker() {
  Checker c;
  c.maps = {map_of(MapType::ringbuf, 0, 0, 4096)};
  return c;
}

TEST(References, LookupCheckRelease) {
  Checker c;
  EXPECT_ACCEPT(c, kLookup + "jeq %r0, 0, out\nmov %r1, %r0\ncall 86\nout:\n" + kExit0, "sched_cls");
  EXPECT_ACCEPT(c, kLookupCommon + "jeq %r0, 0, out\nmov %r1, %r0\ncall 86\nout:\n" + kExit0, "sched_cls");
  // Linux: "Unreleased reference id=2 alloc_insn=8".
  EXPECT_REJECT(c, kLookup + kExit0, unreleased_reference, "sched_cls");
  EXPECT_NE(c.text.find("acquired at pc 8"), std::string::npos) << c.text;
  // Released on one path only (family == 2).
  EXPECT_REJECT(c,
                kLookup + "jeq %r0, 0, out\nldxw %r2, [%r0+4]\njne %r2, 2, out\nmov %r1, %r0\ncall 86\nout:\n" +
                    kExit0,
                unreleased_reference, "sched_cls");
  EXPECT_ACCEPT(c,
                kLookup + "jeq %r0, 0, out\nldxw %r2, [%r0+4]\nmov %r1, %r0\njne %r2, 2, other\ncall 86\nja out\n"
                          "other:\ncall 86\nout:\n" + kExit0,
                "sched_cls");
}

TEST(References, ReleaseNeedsTheNullCheck) {
  Checker c;
  // Linux: "R1 type=sock_or_null expected=sock_common, sock, tcp_sock, ...".
  EXPECT_REJECT(c, kLookup + "mov %r1, %r0\ncall 86\n" + kExit0, null_dereference, "sched_cls");
  Checker r = ringbuf_checker();
  EXPECT_REJECT(r, kReserve + "mov %r1, %r0\nmov %r2, 0\ncall 132\n" + kExit0, null_dereference, "kprobe");
}

TEST(References, DoubleReleaseAndUseAfterRelease) {
  Checker c;
  const std::string checked = kLookup + "jeq %r0, 0, out\nmov %r7, %r0\nmov %r1, %r0\ncall 86\n";
  EXPECT_ACCEPT(c, checked + "out:\n" + kExit0, "sched_cls");
  EXPECT_REJECT(c, checked + "mov %r1, %r7\ncall 86\nout:\n" + kExit0, double_release, "sched_cls");
  EXPECT_REJECT(c, checked + "ldxw %r0, [%r7+4]\nout:\n" + kExit0, use_after_release, "sched_cls");
  // A copy in a stack slot dies as well.
  EXPECT_REJECT(c,
                kLookup + "jeq %r0, 0, out\nstxdw [%r10-24], %r0\nmov %r1, %r0\ncall 86\nldxdw %r1, [%r10-24]\n"
                          "ldxw %r0, [%r1+4]\nout:\n" + kExit0,
                use_after_release, "sched_cls");
  // Unprivileged, the copies become uninitialized (release_reference).
  Checker u = ringbuf_checker();
  u.options.privileged = false;
  const std::string reserved = kReserve +
                               "jeq %r0, 0, out\nmov %r7, %r0\nstxdw [%r10-8], %r0\nmov %r1, %r0\nmov %r2, 0\ncall 132\n";
  EXPECT_ACCEPT(u, reserved + "out:\n" + kExit0);
  EXPECT_REJECT(u, reserved + "ldxdw %r1, [%r10-8]\nmov %r2, 0\ncall 133\nout:\n" + kExit0, double_release);
  EXPECT_REJECT(u, reserved + "stw [%r7+0], 1\nout:\n" + kExit0, use_after_release);
  EXPECT_REJECT(u, reserved + "mov %r1, %r7\nout:\n" + kExit0, use_after_release);  // even a copy
}

TEST(References, TheNullCheckRefinesEveryCopy) {
  Checker c;
  // cilium's shape: the result spilled before the check, filled after it.
  EXPECT_ACCEPT(c,
                kLookup + "stxdw [%r10-24], %r0\nmov %r7, %r0\njeq %r0, 0, out\nldxw %r2, [%r7+72]\n"
                          "ldxdw %r1, [%r10-24]\ncall 86\nout:\n" + kExit0,
                "sched_cls");
  // A check of a copy counts too; NULL leaves nothing to release.
  EXPECT_ACCEPT(c, kLookup + "mov %r7, %r0\njne %r7, 0, release\n" + kExit0 + "release:\nmov %r1, %r0\ncall 86\n" +
                       kExit0,
                "sched_cls");
  // A pointer that is NULL on one path and the reference on the other, checked after the join.
  Checker r = ringbuf_checker();
  const std::string join = "ldxdw %r8, [%r1+0]\nmov %r7, 0\njeq %r8, 0, join\n" + kReserve +
                           "mov %r7, %r0\njoin:\njeq %r7, 0, out\nmov %r1, %r7\nmov %r2, 0\ncall 133\nout:\n";
  EXPECT_ACCEPT(r, join + kExit0, "kprobe");
  // Not when the NULL path holds another reference: it leaks.
  const std::string other = "ldxdw %r8, [%r1+0]\nmov %r7, 0\njeq %r8, 0, second\n" + kReserve +
                            "mov %r7, %r0\nja join\nsecond:\n" + kReserve + "jne %r0, 0, join\n" + kExit0 +
                            "join:\njeq %r7, 0, out\nmov %r1, %r7\nmov %r2, 0\ncall 133\nout:\n";
  EXPECT_REJECT(r, other + kExit0, unreleased_reference, "kprobe");
}

TEST(References, NullMeansUnacquiredOnlyWhereItWas) {
  // r7 is the record on one path and NULL on the other, where r9 holds the
  // record instead: after the join, r7 == NULL does not mean "not acquired".
  Checker r = ringbuf_checker();
  const std::string split = "ldxdw %r8, [%r1+0]\n" + kReserve +
                            "jeq %r0, 0, out\njeq %r8, 0, other\nmov %r7, %r0\nmov %r9, 0\nja join\n"
                            "other:\nmov %r7, 0\nmov %r9, %r0\njoin:\n";
  EXPECT_REJECT(r, split + "jeq %r7, 0, out\nmov %r1, %r7\nmov %r2, 0\ncall 133\nout:\n" + kExit0,
                unreleased_reference, "kprobe");
}

TEST(References, TwoAcquisitionsStayApart) {
  // Two lookups (two references) meeting in one register before the one
  // release (cilium's cil_to_host): joined, the register would be of
  // neither; the path partitions keep the states apart instead.
  Checker c;
  const std::string args = "stdw [%r10-16], 0\nstdw [%r10-8], 0\nmov %r2, %r10\nadd %r2, -16\nmov %r3, 12\n"
                           "mov %r4, 0\nmov %r5, 0\n";
  // The first lookup's socket leaks where the second replaces it.
  EXPECT_REJECT(c, "ldxw %r8, [%r1+0]\nmov %r6, %r1\n" + args + "call 84\njeq %r8, 0, join\nmov %r1, %r6\n" + args +
                       "call 99\njoin:\njeq %r0, 0, out\nmov %r1, %r0\ncall 86\nout:\n" + kExit0,
                unreleased_reference, "sched_cls");
  const std::string apart = "ldxw %r8, [%r1+0]\nmov %r6, %r1\nstdw [%r10-16], 0\nstdw [%r10-8], 0\n"
                            "mov %r2, %r10\nadd %r2, -16\nmov %r3, 12\nmov %r4, 0\nmov %r5, 0\n"
                            "jeq %r8, 0, udp\ncall 84\nja join\nudp:\ncall 85\njoin:\n"
                            "jeq %r0, 0, out\nmov %r1, %r0\ncall 86\nout:\n" + kExit0;
  EXPECT_ACCEPT(c, apart, "sched_cls");
  // Unprivileged there are no partitions: joined, r0 is neither socket
  // (mixed), and comparing it with 0 would leak it. A false reject, not a leak.
  c.options.privileged = false;
  EXPECT_REJECT(c, apart, pointer_leak, "sched_cls");
}

TEST(References, ReleaseNeedsAnAcquiredPointer) {
  Checker c;
  // skb->sk is not acquired (Linux: "R1 must be referenced when passed to release function").
  const std::string sk = "ldxdw %r1, [%r1+168]\njeq %r1, 0, out\n";
  EXPECT_ACCEPT(c, sk + "ldxw %r0, [%r1+4]\nout:\n" + kExit0, "sched_cls");
  EXPECT_REJECT(c, sk + "call 86\nout:\n" + kExit0, release_unreferenced, "sched_cls");
  EXPECT_REJECT(c, "ldxdw %r1, [%r1+168]\nldxw %r0, [%r1+4]\n" + kExit0, null_dereference, "sched_cls");
  // bpf_get_listener_sock() is not acquired either.
  EXPECT_REJECT(c, sk + "call 98\njeq %r0, 0, out\nmov %r1, %r0\ncall 86\nout:\n" + kExit0, release_unreferenced,
                "sched_cls");
  // Only ring buffer records go back to bpf_ringbuf_submit, unmodified.
  Checker r = ringbuf_checker();
  r.maps.push_back(map_of(MapType::array, 4, 16, 1));
  const std::string value =
      "stw [%r10-4], 0\nmov %r2, %r10\nadd %r2, -4\nlddw %r1, map_fd 1\ncall 1\njeq %r0, 0, out\n";
  EXPECT_REJECT(r, value + "mov %r1, %r0\nmov %r2, 0\ncall 132\nout:\n" + kExit0, helper_argument, "kprobe");
  const std::string reserved = kReserve + "jeq %r0, 0, out\nmov %r1, %r0\n";
  EXPECT_ACCEPT(r, reserved + "mov %r2, 0\ncall 132\nout:\n" + kExit0, "kprobe");
  EXPECT_REJECT(r, reserved + "add %r1, 8\nmov %r2, 0\ncall 132\nout:\n" + kExit0, helper_argument, "kprobe");
  // A socket is not a record, a record is not a socket.
  EXPECT_REJECT(r, reserved + "call 86\nout:\n" + kExit0, helper_argument, "sched_cls");
  Checker s;
  EXPECT_REJECT(s, kLookup + "jeq %r0, 0, out\nmov %r1, %r0\nmov %r2, 0\ncall 132\nout:\n" + kExit0, helper_argument,
                "sched_cls");
}

TEST(References, RingbufReserveSubmit) {
  Checker r = ringbuf_checker();
  const std::string body = "jeq %r0, 0, out\nmov %r6, %r0\n";
  const std::string submit = "mov %r1, %r6\nmov %r2, 0\ncall 132\nout:\n" + kExit0;
  EXPECT_ACCEPT(r, kReserve + body + "stdw [%r6+8], 7\n" + submit, "kprobe");
  EXPECT_ACCEPT(r, kReserve + body + "mov %r1, %r6\nmov %r2, 0\ncall 133\nout:\n" + kExit0, "kprobe");  // discard
  // The record is the constant size asked for (mem_size).
  EXPECT_REJECT(r, kReserve + body + "stdw [%r6+12], 7\n" + submit, memory_out_of_bounds, "kprobe");
  // bpf_get_current_comm into the record, as the cilium example does.
  EXPECT_ACCEPT(r, kReserve + body + "mov %r1, %r6\nmov %r2, 16\ncall 16\n" + submit, "kprobe");
  // ARG_CONST_ALLOC_SIZE_OR_ZERO: "R2 is not a known constant".
  EXPECT_REJECT(r,
                "ldxdw %r2, [%r1+0]\nand %r2, 15\nlddw %r1, map_fd 0\nmov %r3, 0\ncall 131\n" + body + submit,
                helper_argument, "kprobe");
  EXPECT_REJECT(r, kReserve + kExit0, unreleased_reference, "kprobe");
  // Socket filters have the ring buffer helpers too, unprivileged.
  Checker u = ringbuf_checker();
  u.options.privileged = false;
  EXPECT_ACCEPT(u, kReserve + body + "stdw [%r6+8], 7\n" + submit);
}

TEST(References, TailCallAndLegacyLoadsWithAReference) {
  Checker c;
  c.maps = {map_of(MapType::prog_array, 4, 4, 4)};
  const std::string tail = "mov %r1, %r6\nlddw %r2, map_fd 0\nmov %r3, 0\ncall 12\n";
  const std::string release = "mov %r1, %r7\ncall 86\n";
  const std::string held = kLookup + "jeq %r0, 0, out\nmov %r7, %r0\n";
  // Linux: "tail_call would lead to reference leak".
  EXPECT_REJECT(c, held + tail + release + "out:\n" + kExit0, reference_held, "sched_cls");
  EXPECT_ACCEPT(c, held + release + tail + "out:\n" + kExit0, "sched_cls");
  // Linux: "BPF_LD_[ABS|IND] cannot be mixed with socket references".
  EXPECT_REJECT(c, held + "ldabsb 0\n" + release + "out:\n" + kExit0, reference_held, "sched_cls");
  EXPECT_ACCEPT(c, held + release + "ldabsb 0\nout:\n" + kExit0, "sched_cls");
}

TEST(References, NoCopyOutsideRegistersAndStack) {
  Checker c;
  const std::string held = kLookup + "jeq %r0, 0, out\n";
  const std::string release = "mov %r1, %r0\ncall 86\nout:\n" + kExit0;
  EXPECT_ACCEPT(c, held + "stxdw [%r10-24], %r0\n" + release, "sched_cls");
  EXPECT_REJECT(c, held + "stxdw [%r6+48], %r0\n" + release, reference_store, "sched_cls");  // cb[0]
  Checker r = ringbuf_checker();
  EXPECT_REJECT(r, kReserve + "jeq %r0, 0, out\nstxdw [%r0+0], %r0\nmov %r1, %r0\nmov %r2, 0\ncall 132\nout:\n" + kExit0,
                reference_store, "kprobe");
}

TEST(References, SocketFields) {
  Checker c;
  const std::string held = kLookup + "jeq %r0, 0, out\nmov %r7, %r0\n";
  const std::string release = "mov %r1, %r7\ncall 86\nout:\n" + kExit0;
  EXPECT_ACCEPT(c, held + "ldxw %r2, [%r7+72]\nldxb %r2, [%r7+4]\nldxb %r2, [%r7+49]\n" + release, "sched_cls");
  // bpf_sock_is_valid_access: family narrows only at its start; no 8-byte loads.
  EXPECT_REJECT(c, held + "ldxb %r2, [%r7+5]\n" + release, sock_bad_access, "sched_cls");
  EXPECT_REJECT(c, held + "ldxdw %r2, [%r7+0]\n" + release, sock_bad_access, "sched_cls");
  EXPECT_REJECT(c, held + "ldxh %r2, [%r7+50]\n" + release, sock_bad_access, "sched_cls");  // dst_port padding
  EXPECT_REJECT(c, held + "ldxw %r2, [%r7+80]\n" + release, sock_bad_access, "sched_cls");  // past the end
  // "cannot write into sock"; "pointer arithmetic on sock prohibited".
  EXPECT_REJECT(c, held + "stw [%r7+0], 1\n" + release, read_only_write, "sched_cls");
  EXPECT_REJECT(c, held + "add %r7, 4\n" + release, pointer_arithmetic, "sched_cls");
  // A sock_common has no type/protocol/mark/priority (bytes 8-23).
  const std::string common = kLookupCommon + "jeq %r0, 0, out\nmov %r7, %r0\n";
  EXPECT_ACCEPT(c, common + "ldxw %r2, [%r7+72]\n" + release, "sched_cls");
  EXPECT_REJECT(c, common + "ldxw %r2, [%r7+8]\n" + release, sock_bad_access, "sched_cls");
  EXPECT_ACCEPT(c, held + "ldxw %r2, [%r7+8]\n" + release, "sched_cls");
}

TEST(References, CastsShareTheReference) {
  Checker c;
  // bpf_tcp_sock(sk) is sk seen as a tcp_sock: it dies with sk's release.
  const std::string tcp = kLookup + "jeq %r0, 0, out\nmov %r7, %r0\nmov %r1, %r0\ncall 96\n";
  EXPECT_ACCEPT(c, tcp + "jeq %r0, 0, release\nldxw %r2, [%r0+0]\nldxdw %r2, [%r0+80]\nrelease:\nmov %r1, %r7\ncall 86\n"
                         "out:\n" + kExit0,
                "sched_cls");
  EXPECT_REJECT(c, tcp + "mov %r8, %r0\nmov %r1, %r7\ncall 86\njeq %r8, 0, out\nldxw %r2, [%r8+0]\nout:\n" + kExit0,
                use_after_release, "sched_cls");
  // Its NULL says nothing about sk's reference, which stays to release.
  EXPECT_REJECT(c, tcp + "jne %r0, 0, release\n" + kExit0 + "release:\nmov %r1, %r7\ncall 86\nout:\n" + kExit0,
                unreleased_reference, "sched_cls");
  // sk_fullsock(skb->sk) needs skb->sk checked first.
  EXPECT_ACCEPT(c, "ldxdw %r1, [%r1+168]\njeq %r1, 0, out\ncall 95\njeq %r0, 0, out\nldxw %r0, [%r0+8]\nout:\n" + kExit0,
                "cgroup_skb");
  EXPECT_REJECT(c, "ldxdw %r1, [%r1+168]\ncall 95\n" + kExit0, null_dereference, "cgroup_skb");
}

TEST(References, Limits) {
  // One reference per acquiring instruction: a second reservation there
  // while the first may be held is refused.
  Checker r = ringbuf_checker();
  EXPECT_REJECT(r, "mov %r7, 0\nloop:\n" + kReserve + "add %r7, 1\njlt %r7, 2, loop\n" + kExit0, reference_reacquired,
                "kprobe");
  EXPECT_ACCEPT(r,
                "mov %r7, 0\nloop:\n" + kReserve + "jeq %r0, 0, next\nmov %r1, %r0\nmov %r2, 0\ncall 133\nnext:\n"
                "add %r7, 1\njlt %r7, 2, loop\n" + kExit0,
                "kprobe");
  // At most kMaxReferences at once.
  std::string many;
  for (uint32_t i = 0; i < kMaxReferences; ++i) many += kReserve;
  EXPECT_REJECT(r, many + kExit0, unreleased_reference, "kprobe");
  EXPECT_REJECT(r, many + kReserve + kExit0, too_many_references, "kprobe");
}

TEST(References, LiveAcrossBpfToBpfCalls) {
  Checker c;
  const std::string lookup_fn = "get:\n" + kLookup + "exit\n";
  // The callee acquires and returns the socket; the caller releases it.
  EXPECT_ACCEPT(c, "call local get\njeq %r0, 0, out\nmov %r1, %r0\ncall 86\nout:\n" + kExit0 + lookup_fn, "sched_cls");
  EXPECT_REJECT(c, "call local get\n" + kExit0 + lookup_fn, unreleased_reference, "sched_cls");
  // The callee releases the caller's socket.
  const std::string put_fn = "put:\ncall 86\nmov %r0, 0\nexit\n";
  EXPECT_ACCEPT(c, kLookup + "jeq %r0, 0, out\nmov %r1, %r0\ncall local put\nout:\n" + kExit0 + put_fn, "sched_cls");
  EXPECT_REJECT(c, kLookup + "jeq %r0, 0, out\nmov %r7, %r0\nmov %r1, %r0\ncall local put\nldxw %r0, [%r7+4]\nout:\n" +
                       kExit0 + put_fn,
                use_after_release, "sched_cls");
}

TEST(References, StateCostsNoMore) {
  // The reference list sits in the state header; one frame and five
  // spills still fit the 2 KiB chunk, two frames and ten the 4 KiB one
  // (design.md, "Cost bound"; eleven before the spill mask, ADR 0054).
  EXPECT_EQ(sizeof(State), 48u);
  EXPECT_LE(state_bytes(1, 5), 2048u);
  EXPECT_LE(state_bytes(2, 10), 4096u);
}

}  // namespace
}  // namespace keel
