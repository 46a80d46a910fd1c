// Socket maps (sockmap, sockhash) and the program types built around them,
// sk_skb and sk_msg: the map/helper pairings of Linux 6.1's
// check_map_func_compatibility and may_update_sockmap, a socket map lookup
// as an acquired socket (is_acquire_function), and the two contexts
// (sk_skb_is_valid_access, sk_msg_is_valid_access). For each rule a
// program Linux 6.1 accepts and one it rejects.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "keel/elf.h"
#include "verify_checker.h"

namespace keel {
namespace {

using testing::Checker;
using testing::map_of;

const std::string kExit0 = "mov %r0, 0\nexit\n";
const std::string kPass = "mov %r0, 1\nexit\n";  // SK_PASS

// bpf_sk_redirect_map(ctx, map 0, key 0, flags 0) / bpf_msg_redirect_map.
std::string redirect(int helper) {
  return "lddw %r2, map_fd 0\nmov %r3, 0\nmov %r4, 0\ncall " + std::to_string(helper) + "\nexit\n";
}
// The *_hash variants take the key by pointer: fp-8 holding 0.
std::string redirect_hash(int helper) {
  return "stdw [%r10-8], 0\nmov %r3, %r10\nadd %r3, -8\nlddw %r2, map_fd 0\nmov %r4, 0\ncall " +
         std::to_string(helper) + "\nexit\n";
}

constexpr int kSkRedirectMap = 52, kSockMapUpdate = 53, kMsgRedirectMap = 60, kSockHashUpdate = 70,
              kMsgRedirectHash = 71, kSkRedirectHash = 72;

TEST(Sockmap, RedirectHelpersTakeTheirOwnMapKind) {
  Checker sockmap;
  sockmap.maps = {map_of(MapType::sockmap, 4, 4)};
  Checker sockhash;
  sockhash.maps = {map_of(MapType::sockhash, 4, 4)};
  Checker devmap;
  devmap.maps = {map_of(MapType::devmap, 4, 4)};
  EXPECT_ACCEPT(sockmap, redirect(kSkRedirectMap), "sk_skb");
  EXPECT_ACCEPT(sockmap, redirect(kMsgRedirectMap), "sk_msg");
  EXPECT_ACCEPT(sockhash, redirect_hash(kSkRedirectHash), "sk_skb");
  EXPECT_ACCEPT(sockhash, redirect_hash(kMsgRedirectHash), "sk_msg");
  // The map variant wants a sockmap, the hash variant a sockhash.
  EXPECT_REJECT(sockhash, redirect(kSkRedirectMap), helper_argument, "sk_skb");
  EXPECT_REJECT(sockmap, redirect_hash(kSkRedirectHash), helper_argument, "sk_skb");
  EXPECT_REJECT(sockhash, redirect(kMsgRedirectMap), helper_argument, "sk_msg");
  EXPECT_REJECT(devmap, redirect(kSkRedirectMap), helper_argument, "sk_skb");
  // A socket map goes to no other map helper (bpf_redirect_map wants a devmap).
  EXPECT_REJECT(sockmap, "lddw %r1, map_fd 0\nmov %r2, 0\nmov %r3, 0\ncall 51\nexit\n", helper_argument,
                "xdp");
  // Each program type has its own redirect: msg_redirect_map is no sk_skb helper.
  EXPECT_REJECT(sockmap, redirect(kMsgRedirectMap), unknown_helper, "sk_skb");
  EXPECT_REJECT(sockmap, redirect(kSkRedirectMap), unknown_helper, "sk_msg");
}

TEST(Sockmap, SockOpsUpdatesThroughItsHelpers) {
  // bpf_sock_map_update(skops, map, &key, flags) / bpf_sock_hash_update.
  const std::string update =
      "stdw [%r10-8], 0\nmov %r3, %r10\nadd %r3, -8\nlddw %r2, map_fd 0\nmov %r4, 0\ncall ";
  Checker sockmap;
  sockmap.maps = {map_of(MapType::sockmap, 4, 4)};
  Checker sockhash;
  sockhash.maps = {map_of(MapType::sockhash, 4, 4)};
  EXPECT_ACCEPT(sockmap, update + std::to_string(kSockMapUpdate) + "\n" + kPass, "sock_ops");
  EXPECT_ACCEPT(sockhash, update + std::to_string(kSockHashUpdate) + "\n" + kPass, "sock_ops");
  EXPECT_REJECT(sockhash, update + std::to_string(kSockMapUpdate) + "\n" + kPass, helper_argument, "sock_ops");
  EXPECT_REJECT(sockmap, update + std::to_string(kSockHashUpdate) + "\n" + kPass, helper_argument, "sock_ops");
  // may_update_sockmap: sock_ops may delete, but not bpf_map_update_elem.
  const std::string key = "stdw [%r10-8], 0\nmov %r2, %r10\nadd %r2, -8\nlddw %r1, map_fd 0\n";
  EXPECT_ACCEPT(sockmap, key + "call 3\n" + kPass, "sock_ops");
  EXPECT_REJECT(sockmap, key + "mov %r3, %r10\nadd %r3, -16\nmov %r4, 0\ncall 2\n" + kPass,
                helper_argument, "sock_ops");
  // sk_skb may do neither.
  EXPECT_REJECT(sockmap, key + "call 3\n" + kExit0, helper_argument, "sk_skb");
}

// r6 = ctx; r0 = bpf_sk_lookup_tcp(ctx, fp-16, 12, 0, 0), NULL-checked.
const std::string kLookupSocket =
    "mov %r6, %r1\nstdw [%r10-16], 0\nstdw [%r10-8], 0\nmov %r2, %r10\nadd %r2, -16\n"
    "mov %r3, 12\nmov %r4, 0\nmov %r5, 0\ncall 84\njne %r0, 0, +2\n" + kExit0;

TEST(Sockmap, UpdateElemTakesASocket) {
  Checker c;
  c.maps = {map_of(MapType::sockmap, 4, 4)};
  // bpf_map_update_elem(map, &key, sk, 0) with a socket from a lookup, then released.
  const std::string update =
      "mov %r7, %r0\nstdw [%r10-24], 0\nlddw %r1, map_fd 0\nmov %r2, %r10\nadd %r2, -24\n"
      "mov %r3, %r7\nmov %r4, 0\ncall 2\nmov %r1, %r7\ncall 86\n" + kExit0;
  EXPECT_ACCEPT(c, kLookupSocket + update, "sched_cls");
  // The value must be a socket (resolve_map_arg_type), not bytes on the stack.
  const std::string stack_value =
      "stdw [%r10-8], 0\nstdw [%r10-16], 0\nlddw %r1, map_fd 0\nmov %r2, %r10\nadd %r2, -8\n"
      "mov %r3, %r10\nadd %r3, -16\nmov %r4, 0\ncall 2\n" + kExit0;
  EXPECT_REJECT(c, stack_value, helper_argument, "sched_cls");
  // Nor a socket that may be NULL.
  const std::string maybe_null =
      "mov %r6, %r1\nstdw [%r10-16], 0\nstdw [%r10-8], 0\nmov %r2, %r10\nadd %r2, -16\n"
      "mov %r3, 12\nmov %r4, 0\nmov %r5, 0\ncall 84\nmov %r7, %r0\n" + update;
  EXPECT_REJECT(c, maybe_null, null_dereference, "sched_cls");
}

TEST(Sockmap, LookupAcquiresASocket) {
  Checker c;
  c.maps = {map_of(MapType::sockhash, 4, 4)};
  const std::string lookup = "stdw [%r10-8], 0\nmov %r2, %r10\nadd %r2, -8\nlddw %r1, map_fd 0\ncall 1\n";
  // The result is a socket or NULL; reading it needs the NULL check, and a
  // socket taken must be given back.
  EXPECT_ACCEPT(c, lookup + "jeq %r0, 0, +3\nldxw %r2, [%r0+4]\nmov %r1, %r0\ncall 86\n" + kExit0, "sched_cls");
  EXPECT_REJECT(c, lookup + "ldxw %r2, [%r0+4]\n" + kExit0, null_dereference, "sched_cls");
  EXPECT_REJECT(c, lookup + "jeq %r0, 0, +1\nldxw %r2, [%r0+4]\n" + kExit0, unreleased_reference, "sched_cls");
  // It is a socket, not a map value: no stores.
  EXPECT_REJECT(c, lookup + "jeq %r0, 0, +3\nstw [%r0+4], 1\nmov %r1, %r0\ncall 86\n" + kExit0, read_only_write,
                "sched_cls");
}

TEST(SkSkb, ContextFields) {
  Checker c;
  EXPECT_ACCEPT(c, "ldxw %r0, [%r1+0]\n" + kExit0, "sk_skb");           // len
  EXPECT_ACCEPT(c, "ldxw %r0, [%r1+88]\n" + kExit0, "sk_skb");          // family
  EXPECT_ACCEPT(c, "ldxw %r0, [%r1+100]\n" + kExit0, "sk_skb");         // remote_ip6[0]
  EXPECT_ACCEPT(c, "ldxw %r0, [%r1+48]\n" + kExit0, "sk_skb");          // cb[0] (read)
  EXPECT_ACCEPT(c, "mov %r2, 1\nstxw [%r1+32], %r2\n" + kExit0, "sk_skb");  // priority
  EXPECT_ACCEPT(c, "mov %r2, 1\nstxw [%r1+44], %r2\n" + kExit0, "sk_skb");  // tc_index
  EXPECT_REJECT(c, "ldxw %r0, [%r1+8]\n" + kExit0, ctx_bad_access, "sk_skb");    // mark
  EXPECT_REJECT(c, "ldxw %r0, [%r1+72]\n" + kExit0, ctx_bad_access, "sk_skb");   // tc_classid
  EXPECT_REJECT(c, "ldxdw %r0, [%r1+152]\n" + kExit0, ctx_bad_access, "sk_skb"); // tstamp
  EXPECT_REJECT(c, "ldxw %r0, [%r1+140]\n" + kExit0, ctx_bad_access, "sk_skb");  // data_meta
  EXPECT_REJECT(c, "mov %r2, 1\nstxw [%r1+48], %r2\n" + kExit0, read_only_write, "sk_skb");  // cb[0]
  EXPECT_REJECT(c, "ldxw %r0, [%r1+192]\n" + kExit0, ctx_bad_access, "sk_skb");  // past the end
  EXPECT_REJECT(c, "ldabsb 0\n" + kExit0, legacy_packet_load, "sk_skb");  // may_access_skb
}

TEST(SkSkb, PacketNeedsTheDataEndCheck) {
  Checker c;
  const std::string head = "ldxw %r2, [%r1+76]\nldxw %r3, [%r1+80]\n";
  EXPECT_ACCEPT(c, head + "mov %r4, %r2\nadd %r4, 4\njgt %r4, %r3, +2\nldxw %r0, [%r2+0]\nstw [%r2+0], 0\n" + kExit0,
                "sk_skb");
  EXPECT_REJECT(c, head + "ldxw %r0, [%r2+0]\n" + kExit0, packet_out_of_bounds, "sk_skb");
  EXPECT_REJECT(c, head + "mov %r4, %r2\nadd %r4, 4\njgt %r4, %r3, +1\nldxw %r0, [%r2+2]\n" + kExit0,
                packet_out_of_bounds, "sk_skb");
  // bpf_skb_pull_data makes every packet pointer stale (bpf_helper_changes_pkt_data).
  EXPECT_REJECT(c, "mov %r6, %r1\n" + head +
                       "mov %r4, %r2\nadd %r4, 4\njgt %r4, %r3, +5\nmov %r1, %r6\nmov %r7, %r2\nmov %r2, 0\n"
                       "call 39\nldxw %r0, [%r7+0]\n" + kExit0,
                scalar_dereference, "sk_skb");
}

TEST(SkMsg, ContextFields) {
  Checker c;
  EXPECT_ACCEPT(c, "ldxw %r0, [%r1+16]\n" + kExit0, "sk_msg");    // family
  EXPECT_ACCEPT(c, "ldxw %r0, [%r1+68]\n" + kExit0, "sk_msg");    // size
  EXPECT_ACCEPT(c, "ldxw %r0, [%r1+40]\n" + kExit0, "sk_msg");    // remote_ip6[3]
  EXPECT_REJECT(c, "ldxh %r0, [%r1+60]\n" + kExit0, ctx_bad_access, "sk_msg");  // remote_port: 4 bytes
  EXPECT_REJECT(c, "ldxw %r0, [%r1+0]\n" + kExit0, ctx_bad_access, "sk_msg");   // data: 8 bytes
  EXPECT_REJECT(c, "ldxw %r0, [%r1+80]\n" + kExit0, ctx_bad_access, "sk_msg");  // past the end
  EXPECT_REJECT(c, "mov %r2, 1\nstxw [%r1+16], %r2\n" + kExit0, read_only_write, "sk_msg");
  // sk is the message's socket, never NULL, readable as a bpf_sock.
  EXPECT_ACCEPT(c, "ldxdw %r2, [%r1+72]\nldxw %r0, [%r2+4]\n" + kExit0, "sk_msg");
  EXPECT_REJECT(c, "ldxdw %r2, [%r1+72]\nstw [%r2+4], 0\n" + kExit0, read_only_write, "sk_msg");
}

TEST(SkMsg, DataNeedsTheDataEndCheck) {
  Checker c;
  const std::string head = "ldxdw %r2, [%r1+0]\nldxdw %r3, [%r1+8]\n";
  EXPECT_ACCEPT(c, head + "mov %r4, %r2\nadd %r4, 8\njgt %r4, %r3, +1\nldxdw %r0, [%r2+0]\n" + kExit0, "sk_msg");
  EXPECT_REJECT(c, head + "ldxb %r0, [%r2+0]\n" + kExit0, packet_out_of_bounds, "sk_msg");
  // bpf_msg_pull_data(msg, start, end, flags) re-points data and data_end.
  EXPECT_REJECT(c, "mov %r6, %r1\n" + head +
                       "mov %r4, %r2\nadd %r4, 8\njgt %r4, %r3, +7\nmov %r7, %r2\nmov %r1, %r6\nmov %r2, 0\n"
                       "mov %r3, 8\nmov %r4, 0\ncall 63\nldxdw %r0, [%r7+0]\n" + kExit0,
                scalar_dereference, "sk_msg");
}

// The same rules on what clang makes of libbpf-style C (tests/bpf/sockmap.bpf.c):
// the socket maps are BTF-defined, and every program is accepted.
TEST(Sockmap, ClangCompiledPrograms) {
#ifndef KEEL_BPF_OBJECT_DIR
  GTEST_SKIP() << "skipped: BPF test objects not built (no clang)";
#else
  const std::filesystem::path path = std::filesystem::path(KEEL_BPF_OBJECT_DIR) / "sockmap.bpf.o";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "skipped: " << path << " not built";
  std::ifstream in(path, std::ios::binary);
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<uint8_t> memory(bytes.size() * 64 + (1u << 20));
  Arena arena(memory.data(), memory.size());
  Object object;
  ASSERT_TRUE(load_object(bytes.data(), bytes.size(), LoadOptions{}, arena, object).ok());
  ASSERT_EQ(object.map_count, 2u);
  EXPECT_EQ(object.maps[0].type, MapType::sockmap);
  EXPECT_EQ(object.maps[1].type, MapType::sockhash);
  const std::string types[] = {"sk_skb", "sk_skb", "sk_msg", "sock_ops"};
  ASSERT_EQ(object.program_count, 4u);
  for (uint32_t i = 0; i < object.program_count; ++i) {
    const ElfProgram& p = object.programs[i];
    EXPECT_EQ(p.type_name, types[i]) << p.section;
    Program decoded;
    ASSERT_TRUE(decode(p.insns, size_t{p.slots} * 8, DecodeOptions{}, arena, decoded).ok()) << p.section;
    VerifyOptions options;
    options.maps = object.maps;
    options.map_count = object.map_count;
    options.linux_rules = true;
    const Verdict v = verify(decoded, testing::linux_type(p.type_name), options, arena);
    char text[256];
    describe(v, text, sizeof text);
    EXPECT_TRUE(v.ok()) << p.section << ": " << text;
  }
#endif
}

}  // namespace
}  // namespace keel
