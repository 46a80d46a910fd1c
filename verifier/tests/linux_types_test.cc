// Verification with the Linux program types and map kinds that real-world
// objects need beyond the basic set (platform/linux/linux_platform.cc,
// analysis/calls.cc): sock_ops, the lightweight-tunnel types, cgroup_sock and cgroup_sock_addr (one keel
// type per attach type), LPM tries, device/CPU/AF_XDP socket maps, cgroup
// arrays and maps of maps. For each rule a program Linux 6.1 accepts and
// one it rejects.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "keel/decode.h"
#include "keel/platform_linux.h"
#include "keel/text.h"
#include "keel/verify.h"
#include "verify_checker.h"

namespace keel {
namespace {

using testing::Checker;

const std::string kExit0 = "mov %r0, 0\nexit\n";

MapDescriptor map_of(MapType type, uint32_t key, uint32_t value) {
  MapDescriptor m;
  m.type = type;
  m.key_size = key;
  m.value_size = value;
  m.max_entries = 4;
  return m;
}

// r2 = fp-8 holding 0 (a 4- or 8-byte key), r1 = map `index`.
std::string key_and_map(int index) {
  return "stdw [%r10-8], 0\nmov %r2, %r10\nadd %r2, -8\nlddw %r1, map_fd " + std::to_string(index) + "\n";
}

// ---- sock_ops (struct bpf_sock_ops, sock_ops_is_valid_access) ---------------

TEST(SockOps, ContextFields) {
  Checker c;
  EXPECT_ACCEPT(c, "ldxw %r0, [%r1+0]\nmov %r0, 1\nexit\n", "sock_ops");          // op
  EXPECT_REJECT(c, "ldxb %r0, [%r1+1]\n" + kExit0, ctx_bad_access, "sock_ops");   // 4 bytes only
  EXPECT_ACCEPT(c, "mov %r2, 5\nstxw [%r1+4], %r2\n" + kExit0, "sock_ops");     // reply
  EXPECT_REJECT(c, "mov %r2, 5\nstxw [%r1+8], %r2\n" + kExit0, read_only_write, "sock_ops");  // args[1]
  EXPECT_ACCEPT(c, "mov %r2, 5\nstxw [%r1+164], %r2\n" + kExit0, "sock_ops");    // sk_txhash
  EXPECT_ACCEPT(c, "ldxdw %r0, [%r1+168]\n" + kExit0, "sock_ops");               // bytes_received
  EXPECT_REJECT(c, "ldxw %r0, [%r1+168]\n" + kExit0, ctx_bad_access, "sock_ops");
  EXPECT_ACCEPT(c, "ldxb %r0, [%r1+212]\n" + kExit0, "sock_ops");                // skb_tcp_flags
  EXPECT_REJECT(c, "ldxb %r0, [%r1+213]\n" + kExit0, ctx_bad_access, "sock_ops"); // narrow only at its start
  EXPECT_REJECT(c, "ldxdw %r0, [%r1+184]\n" + kExit0, ctx_bad_access, "sock_ops"); // sk: not modelled
  EXPECT_REJECT(c, "ldxw %r0, [%r1+216]\n" + kExit0, ctx_bad_access, "sock_ops");  // past the end
}

TEST(SockOps, HeaderBytesAreReadOnlyPacket) {
  Checker c;
  const std::string head =
      "ldxdw %r2, [%r1+192]\nldxdw %r3, [%r1+200]\nmov %r4, %r2\nadd %r4, 20\njgt %r4, %r3, +2\n";
  EXPECT_ACCEPT(c, head + "ldxb %r0, [%r2+13]\nmov %r0, 0\n" + kExit0, "sock_ops");
  EXPECT_REJECT(c, head + "stb [%r2+13], 0\nmov %r0, 0\n" + kExit0, read_only_write, "sock_ops");
  EXPECT_REJECT(c, "ldxdw %r2, [%r1+192]\nldxb %r0, [%r2+0]\n" + kExit0, packet_out_of_bounds, "sock_ops");
  EXPECT_REJECT(c, "ldxw %r2, [%r1+192]\n" + kExit0, ctx_bad_access, "sock_ops");  // the whole pointer
  // may_access_direct_pkt_data: no packet pointer for helpers in sock_ops,
  // though bpf_map_lookup_elem takes one elsewhere (pkt_access).
  Checker m;
  m.maps = {map_of(MapType::hash, 4, 8)};
  const std::string key_in_packet =
      "mov %r4, %r2\nadd %r4, 20\njgt %r4, %r3, +3\nlddw %r1, map_fd 0\ncall 1\n" + kExit0;
  EXPECT_REJECT(m, "ldxdw %r2, [%r1+192]\nldxdw %r3, [%r1+200]\n" + key_in_packet, packet_out_of_bounds,
                "sock_ops");
  EXPECT_ACCEPT(m, "ldxw %r2, [%r1+76]\nldxw %r3, [%r1+80]\n" + key_in_packet, "sched_cls");
}

TEST(SockOps, HelpersAndReturnCode) {
  Checker c;
  // bpf_sock_ops_cb_flags_set(ctx, flags) and bpf_setsockopt are sock_ops helpers.
  EXPECT_ACCEPT(c, "mov %r2, 1\ncall 59\n" + kExit0, "sock_ops");
  EXPECT_REJECT(c, "mov %r2, 1\ncall 59\n" + kExit0, unknown_helper, "cgroup_sock");
  EXPECT_REJECT(c, "mov %r2, 0\nmov %r3, 0\nmov %r4, 4\ncall 26\n" + kExit0, unknown_helper, "sock_ops");
  // check_return_code(): 0 or 1.
  EXPECT_ACCEPT(c, "mov %r0, 1\nexit\n", "sock_ops");
  EXPECT_REJECT(c, "mov %r0, 2\nexit\n", bad_return_value, "sock_ops");
}

// ---- lwt_in / lwt_out / lwt_xmit / lwt_seg6local (lwt_is_valid_access) -------

TEST(Lwt, ContextFields) {
  Checker c;
  for (const char* type : {"lwt_in", "lwt_out", "lwt_xmit", "lwt_seg6local"}) {
    EXPECT_ACCEPT(c, "ldxw %r0, [%r1+0]\nldxb %r0, [%r1+8]\nldxdw %r0, [%r1+168]\n" + kExit0, type);  // len, mark, sk
    EXPECT_ACCEPT(c, "mov %r2, 7\nstxw [%r1+8], %r2\nstxw [%r1+32], %r2\nstxb [%r1+48], %r2\n" + kExit0,
                  type);  // mark, priority, cb[0]
  }
  // tc_classid, family..local_port, data_meta, tstamp, wire_len, hwtstamp: not at all.
  EXPECT_REJECT(c, "ldxw %r0, [%r1+72]\n" + kExit0, ctx_bad_access, "lwt_in");
  EXPECT_ACCEPT(c, "ldxw %r0, [%r1+72]\n" + kExit0, "sched_cls");
  EXPECT_REJECT(c, "ldxw %r0, [%r1+88]\n" + kExit0, ctx_bad_access, "lwt_out");
  EXPECT_REJECT(c, "ldxw %r0, [%r1+140]\n" + kExit0, ctx_bad_access, "lwt_xmit");
  EXPECT_REJECT(c, "ldxdw %r0, [%r1+152]\n" + kExit0, ctx_bad_access, "lwt_in");
  EXPECT_REJECT(c, "ldxw %r0, [%r1+160]\n" + kExit0, ctx_bad_access, "lwt_in");
  EXPECT_REJECT(c, "ldxdw %r0, [%r1+184]\n" + kExit0, ctx_bad_access, "lwt_in");
  // Stores only to mark, priority and cb[], and only whole __u32 fields.
  EXPECT_REJECT(c, "mov %r2, 7\nstxw [%r1+12], %r2\n" + kExit0, read_only_write, "lwt_xmit");  // queue_mapping
  EXPECT_REJECT(c, "mov %r2, 7\nstxw [%r1+44], %r2\n" + kExit0, read_only_write, "lwt_xmit");  // tc_index
  EXPECT_REJECT(c, "mov %r2, 7\nstxh [%r1+8], %r2\n" + kExit0, ctx_bad_access, "lwt_in");
  // data/data_end: exactly 4 bytes.
  EXPECT_REJECT(c, "ldxh %r0, [%r1+76]\n" + kExit0, ctx_bad_access, "lwt_in");
}

TEST(Lwt, PacketWritableOnlyAtXmit) {
  Checker c;
  const std::string head = "ldxw %r2, [%r1+76]\nldxw %r3, [%r1+80]\nmov %r4, %r2\nadd %r4, 14\njgt %r4, %r3, +2\n";
  const std::string read = head + "ldxb %r0, [%r2+13]\nmov %r0, 0\n" + kExit0;
  const std::string write = head + "stb [%r2+13], 0\nmov %r0, 0\n" + kExit0;
  for (const char* type : {"lwt_in", "lwt_out", "lwt_xmit", "lwt_seg6local"}) EXPECT_ACCEPT(c, read, type);
  // may_access_direct_pkt_data: lwt_in, lwt_out and lwt_seg6local read only.
  EXPECT_REJECT(c, write, read_only_write, "lwt_in");
  EXPECT_REJECT(c, write, read_only_write, "lwt_out");
  EXPECT_REJECT(c, write, read_only_write, "lwt_seg6local");
  EXPECT_ACCEPT(c, write, "lwt_xmit");
  EXPECT_REJECT(c, "ldxw %r2, [%r1+76]\nldxb %r0, [%r2+0]\n" + kExit0, packet_out_of_bounds, "lwt_xmit");
  // No legacy packet loads (may_access_skb: socket filter and tc only).
  EXPECT_REJECT(c, "mov %r6, %r1\nldabsb 0\n" + kExit0, legacy_packet_load, "lwt_in");
}

TEST(Lwt, HelpersAndReturnCode) {
  Checker c;
  const std::string buffer = "stdw [%r10-8], 0\nmov %r3, %r10\nadd %r3, -8\nmov %r4, 8\nmov %r2, 0\n";
  // bpf_lwt_push_encap: lwt_in and lwt_xmit (each its own proto), not lwt_out.
  EXPECT_ACCEPT(c, buffer + "call 73\n" + kExit0, "lwt_in");
  EXPECT_ACCEPT(c, buffer + "call 73\n" + kExit0, "lwt_xmit");
  EXPECT_REJECT(c, buffer + "call 73\n" + kExit0, unknown_helper, "lwt_out");
  // bpf_skb_store_bytes: lwt_xmit only.
  EXPECT_ACCEPT(c, buffer + "mov %r5, 0\ncall 9\n" + kExit0, "lwt_xmit");
  EXPECT_REJECT(c, buffer + "mov %r5, 0\ncall 9\n" + kExit0, unknown_helper, "lwt_in");
  // bpf_skb_pull_data: everywhere but lwt_seg6local (lwt_seg6local_func_proto
  // returns NULL for it); bpf_lwt_seg6_action only there.
  EXPECT_ACCEPT(c, "mov %r2, 0\ncall 39\n" + kExit0, "lwt_out");
  EXPECT_REJECT(c, "mov %r2, 0\ncall 39\n" + kExit0, unknown_helper, "lwt_seg6local");
  EXPECT_ACCEPT(c, buffer + "call 76\n" + kExit0, "lwt_seg6local");
  EXPECT_REJECT(c, buffer + "call 76\n" + kExit0, unknown_helper, "lwt_xmit");
  // check_return_code() has no lwt case: any number, but a number.
  EXPECT_ACCEPT(c, "mov %r0, 12345\nexit\n", "lwt_xmit");
  EXPECT_REJECT(c, "exit\n", uninit_register, "lwt_in");
}

// ---- cgroup_sock (struct bpf_sock, sock_filter_is_valid_access) -------------

TEST(CgroupSock, FieldsDependOnTheAttachType) {
  Checker c;
  // mark, priority, bound_dev_if: read and written at sock_create/release only.
  const std::string set_mark = "mov %r2, 7\nstxw [%r1+16], %r2\n" + kExit0;
  EXPECT_ACCEPT(c, set_mark, "cgroup_sock");
  EXPECT_ACCEPT(c, set_mark, "cgroup_inet_sock_release");
  EXPECT_REJECT(c, set_mark, ctx_bad_access, "cgroup_inet4_post_bind");
  EXPECT_REJECT(c, "mov %r2, 7\nstxh [%r1+16], %r2\n" + kExit0, ctx_bad_access, "cgroup_sock");
  // src_ip4 at post_bind4 only, src_ip6 at post_bind6 only, src_port at both.
  EXPECT_ACCEPT(c, "ldxw %r0, [%r1+24]\nldxh %r0, [%r1+26]\n" + kExit0, "cgroup_inet4_post_bind");
  EXPECT_REJECT(c, "ldxw %r0, [%r1+24]\n" + kExit0, ctx_bad_access, "cgroup_sock");
  EXPECT_ACCEPT(c, "ldxb %r0, [%r1+43]\nldxw %r0, [%r1+44]\n" + kExit0, "cgroup_inet6_post_bind");
  EXPECT_REJECT(c, "ldxw %r0, [%r1+28]\n" + kExit0, ctx_bad_access, "cgroup_inet4_post_bind");
  // Everything else is read-only.
  EXPECT_REJECT(c, "mov %r2, 2\nstxw [%r1+4], %r2\n" + kExit0, read_only_write, "cgroup_sock");
}

TEST(CgroupSock, NarrowLoads) {
  Checker c;
  // family/type/protocol/state (`case offsetof`): narrow at the field's start only.
  EXPECT_ACCEPT(c, "ldxb %r0, [%r1+4]\nldxh %r0, [%r1+12]\nldxw %r0, [%r1+8]\n" + kExit0, "cgroup_sock");
  EXPECT_REJECT(c, "ldxb %r0, [%r1+5]\n" + kExit0, ctx_bad_access, "cgroup_sock");
  EXPECT_REJECT(c, "ldxh %r0, [%r1+14]\n" + kExit0, ctx_bad_access, "cgroup_sock");
  // dst_ip4/dst_ip6 (ranges): narrow anywhere inside.
  EXPECT_ACCEPT(c, "ldxb %r0, [%r1+55]\nldxh %r0, [%r1+70]\n" + kExit0, "cgroup_sock");
  // dst_port: 2 bytes, or 4 for old programs; its padding is not a field.
  EXPECT_ACCEPT(c, "ldxh %r0, [%r1+48]\nldxw %r0, [%r1+48]\n" + kExit0, "cgroup_sock");
  EXPECT_REJECT(c, "ldxh %r0, [%r1+50]\n" + kExit0, ctx_bad_access, "cgroup_sock");
}

TEST(CgroupSock, HelpersAndReturnCode) {
  Checker c;
  EXPECT_ACCEPT(c, "call 14\n" + kExit0, "cgroup_sock");    // get_current_pid_tgid
  EXPECT_ACCEPT(c, "call 186\n" + kExit0, "cgroup_sock");   // get_retval at sock_create
  EXPECT_REJECT(c, "call 14\n" + kExit0, unknown_helper, "sock_ops");  // no process context
  EXPECT_ACCEPT(c, "mov %r0, 1\nexit\n", "cgroup_sock");
  EXPECT_REJECT(c, "mov %r0, 2\nexit\n", bad_return_value, "cgroup_inet4_post_bind");
}

// ---- cgroup_sock_addr (struct bpf_sock_addr, sock_addr_is_valid_access) -----

TEST(CgroupSockAddr, AddressFieldsFollowTheFamily) {
  Checker c;
  const std::string rewrite4 = "mov %r2, 0x0100007f\nstxw [%r1+4], %r2\nmov %r0, 1\nexit\n";
  EXPECT_ACCEPT(c, rewrite4, "cgroup_inet4_connect");
  EXPECT_REJECT(c, rewrite4, ctx_bad_access, "cgroup_inet6_connect");
  EXPECT_ACCEPT(c, "ldxb %r0, [%r1+5]\nmov %r0, 1\nexit\n", "cgroup_udp4_sendmsg");
  // user_ip6: 8 bytes at 8-aligned offsets too (bpf_ctx_wide_access_ok).
  EXPECT_ACCEPT(c,
                "ldxdw %r0, [%r1+16]\nstdw [%r10-8], 0\nldxdw %r2, [%r10-8]\nstxdw [%r1+8], %r2\n"
                "mov %r0, 1\nexit\n",
                "cgroup_inet6_connect");
  EXPECT_REJECT(c, "ldxdw %r0, [%r1+12]\nmov %r0, 1\nexit\n", ctx_bad_access, "cgroup_inet6_connect");
  // msg_src_ip4/6: sendmsg only.
  EXPECT_ACCEPT(c, "ldxw %r0, [%r1+40]\nmov %r0, 1\nexit\n", "cgroup_udp4_sendmsg");
  EXPECT_REJECT(c, "ldxw %r0, [%r1+40]\nmov %r0, 1\nexit\n", ctx_bad_access, "cgroup_inet4_connect");
  EXPECT_ACCEPT(c, "ldxdw %r0, [%r1+48]\nmov %r0, 1\nexit\n", "cgroup_udp6_sendmsg");
  EXPECT_REJECT(c, "ldxdw %r0, [%r1+56]\nmov %r0, 1\nexit\n", ctx_bad_access, "cgroup_udp6_sendmsg");
  // user_port: narrow loads, full-width stores; family/type/protocol read-only, 4 bytes.
  EXPECT_ACCEPT(c, "mov %r2, 80\nstxw [%r1+24], %r2\nmov %r0, 1\nexit\n", "cgroup_inet4_bind");
  EXPECT_REJECT(c, "mov %r2, 80\nstxh [%r1+24], %r2\nmov %r0, 1\nexit\n", ctx_bad_access, "cgroup_inet4_bind");
  EXPECT_ACCEPT(c, "ldxw %r0, [%r1+32]\nmov %r0, 1\nexit\n", "cgroup_inet4_bind");
  EXPECT_REJECT(c, "ldxb %r0, [%r1+32]\nmov %r0, 1\nexit\n", ctx_bad_access, "cgroup_inet4_bind");
  EXPECT_REJECT(c, "mov %r2, 2\nstxw [%r1+28], %r2\nmov %r0, 1\nexit\n", read_only_write, "cgroup_inet4_bind");
}

TEST(CgroupSockAddr, HelpersDependOnTheAttachType) {
  Checker c;
  // bpf_bind(ctx, addr, len): connect only.
  const std::string bind =
      "stdw [%r10-16], 0\nstdw [%r10-8], 0\nmov %r2, %r10\nadd %r2, -16\nmov %r3, 16\ncall 64\n"
      "mov %r0, 1\nexit\n";
  EXPECT_ACCEPT(c, bind, "cgroup_inet4_connect");
  EXPECT_REJECT(c, bind, unknown_helper, "cgroup_udp4_sendmsg");
  // get_retval: not where the hook's return value is fixed (recvmsg, getpeername, getsockname).
  EXPECT_ACCEPT(c, "call 186\nmov %r0, 1\nexit\n", "cgroup_inet6_connect");
  EXPECT_REJECT(c, "call 186\nmov %r0, 1\nexit\n", unknown_helper, "cgroup_udp6_recvmsg");
}

TEST(CgroupSockAddr, ReturnCodes) {
  Checker c;
  // check_return_code(): bind 0..3, recvmsg/getpeername/getsockname 1, others 0..1.
  EXPECT_ACCEPT(c, "mov %r0, 3\nexit\n", "cgroup_inet6_bind");
  EXPECT_REJECT(c, "mov %r0, 4\nexit\n", bad_return_value, "cgroup_inet6_bind");
  EXPECT_ACCEPT(c, "mov %r0, 1\nexit\n", "cgroup_inet4_getpeername");
  EXPECT_REJECT(c, "mov %r0, 0\nexit\n", bad_return_value, "cgroup_udp4_recvmsg");
  EXPECT_REJECT(c, "mov %r0, 0\nexit\n", bad_return_value, "cgroup_inet6_getsockname");
  EXPECT_ACCEPT(c, "mov %r0, 0\nexit\n", "cgroup_udp6_sendmsg");
  EXPECT_REJECT(c, "mov %r0, 2\nexit\n", bad_return_value, "cgroup_inet4_connect");
}

// ---- Map kinds (check_map_func_compatibility) ---------------------------------

TEST(MapKinds, LpmTrieIsALookupMap) {
  Checker c;
  c.maps = {map_of(MapType::lpm_trie, 8, 16)};
  EXPECT_ACCEPT(c, key_and_map(0) + "call 1\njeq %r0, 0, +1\nldxdw %r0, [%r0+8]\n" + kExit0, "xdp");
  EXPECT_REJECT(c, key_and_map(0) + "call 1\njeq %r0, 0, +1\nldxdw %r0, [%r0+16]\n" + kExit0,
                map_value_out_of_bounds, "xdp");
  EXPECT_ACCEPT(c, key_and_map(0) + "call 3\n" + kExit0, "xdp");  // delete
  EXPECT_REJECT(c, "mov %r6, %r1\nlddw %r2, map_fd 0\nmov %r1, %r6\nmov %r3, 0\ncall 12\n" + kExit0,
                helper_argument, "xdp");  // tail call wants a prog array
}

TEST(MapKinds, RedirectMaps) {
  Checker c;
  c.maps = {map_of(MapType::devmap, 4, 4), map_of(MapType::cpumap, 4, 4),
            map_of(MapType::xskmap, 4, 4), map_of(MapType::hash, 4, 4),
            map_of(MapType::devmap_hash, 4, 8)};
  auto redirect = [](int map) {
    return "lddw %r1, map_fd " + std::to_string(map) + "\nmov %r2, 1\nmov %r3, 0\ncall 51\nexit\n";
  };
  for (int map : {0, 1, 2, 4}) EXPECT_ACCEPT(c, redirect(map), "xdp");
  EXPECT_REJECT(c, redirect(3), helper_argument, "xdp");  // a hash map is no redirect target
  // A devmap value can be read, never written (dev_map_init_map sets BPF_F_RDONLY_PROG).
  EXPECT_ACCEPT(c, key_and_map(0) + "call 1\njeq %r0, 0, +1\nldxw %r0, [%r0+0]\n" + kExit0, "xdp");
  EXPECT_REJECT(c, key_and_map(4) + "call 1\njeq %r0, 0, +1\nstw [%r0+0], 1\n" + kExit0,
                read_only_write, "xdp");
  EXPECT_REJECT(c, key_and_map(0) + "mov %r3, %r2\nmov %r4, 0\ncall 2\n" + kExit0, helper_argument, "xdp");
  // cpumap: redirect only; an xskmap lookup yields an AF_XDP socket keel does not model.
  EXPECT_REJECT(c, key_and_map(1) + "call 1\n" + kExit0, helper_argument, "xdp");
  EXPECT_REJECT(c, key_and_map(2) + "call 1\n" + kExit0, unsupported_helper, "xdp");
}

TEST(MapKinds, CgroupArray) {
  Checker c;
  c.maps = {map_of(MapType::cgroup_array, 4, 4), map_of(MapType::array, 4, 4)};
  // bpf_current_task_under_cgroup(map, index).
  EXPECT_ACCEPT(c, "lddw %r1, map_fd 0\nmov %r2, 0\ncall 37\n" + kExit0, "kprobe");
  EXPECT_REJECT(c, "lddw %r1, map_fd 1\nmov %r2, 0\ncall 37\n" + kExit0, helper_argument, "kprobe");
  EXPECT_REJECT(c, key_and_map(0) + "call 1\n" + kExit0, helper_argument, "kprobe");
}

TEST(MapKinds, HelpersThatWantOtherMaps) {
  Checker c;
  c.maps = {map_of(MapType::hash, 4, 8), map_of(MapType::percpu_hash, 4, 8), map_of(MapType::array, 4, 8),
            map_of(MapType::percpu_array, 4, 8)};
  // map_lookup_percpu_elem(map, key, cpu): per-CPU maps only.
  EXPECT_ACCEPT(c, key_and_map(1) + "mov %r3, 0\ncall 195\n" + kExit0, "cgroup_skb");
  EXPECT_REJECT(c, key_and_map(0) + "mov %r3, 0\ncall 195\n" + kExit0, helper_argument, "cgroup_skb");
  // ... also when the map is one of two, joined: both must be per-CPU.
  auto one_of = [](int a, int b) {
    return "ldxw %r6, [%r1+0]\nstdw [%r10-8], 0\nmov %r2, %r10\nadd %r2, -8\njeq %r6, 0, +3\n"
           "lddw %r1, map_fd " + std::to_string(a) + "\nja +2\nlddw %r1, map_fd " + std::to_string(b) +
           "\nmov %r3, 0\ncall 195\n" + kExit0;
  };
  EXPECT_ACCEPT(c, one_of(1, 3), "cgroup_skb");
  EXPECT_REJECT(c, one_of(1, 0), helper_argument, "cgroup_skb");
  // get_local_storage and map_push_elem want kinds keel does not model: no
  // modelled map may stand in (a cgroup storage value is not an array's).
  EXPECT_REJECT(c, "lddw %r1, map_fd 2\nmov %r2, 0\ncall 81\nldxdw %r0, [%r0+0]\n" + kExit0,
                helper_argument, "cgroup_skb");
  EXPECT_REJECT(c, key_and_map(0) + "mov %r3, 0\ncall 87\n" + kExit0, helper_argument, "cgroup_skb");
}

// ---- Maps of maps (mark_ptr_not_null_reg: the inner map template) -------------

struct MapsOfMaps : ::testing::Test {
  Checker c;
  void SetUp() override {
    MapDescriptor outer = map_of(MapType::array_of_maps, 4, 4);
    outer.has_inner_map = true;
    outer.inner_map = 1;
    MapDescriptor inner = map_of(MapType::hash, 8, 16);
    inner.template_only = true;
    c.maps = {outer, inner};
  }
};

const std::string kOuterLookup = key_and_map(0) + "call 1\n";

TEST_F(MapsOfMaps, LookupGivesTheInnerMap) {
  const std::string inner_lookup =
      kOuterLookup + "jeq %r0, 0, +6\nmov %r1, %r0\nmov %r2, %r10\nadd %r2, -8\ncall 1\n"
                     "jeq %r0, 0, +1\nldxdw %r0, [%r0+8]\n" + kExit0;
  EXPECT_ACCEPT(c, inner_lookup, "socket_filter");
  // The value read is the inner template's (16 bytes), not the outer's (4).
  std::string past = inner_lookup;
  past.replace(past.find("[%r0+8]"), 7, "[%r0+16]");
  EXPECT_REJECT(c, past, map_value_out_of_bounds, "socket_filter");
}

TEST_F(MapsOfMaps, ResultNeedsANullCheckAndIsNoValue) {
  // Passed on unchecked, or read as memory: rejected.
  EXPECT_REJECT(c, kOuterLookup + "mov %r1, %r0\nmov %r2, %r10\nadd %r2, -8\ncall 1\n" + kExit0,
                helper_argument, "socket_filter");
  EXPECT_REJECT(c, kOuterLookup + "ldxw %r0, [%r0+0]\n" + kExit0, null_dereference, "socket_filter");
  EXPECT_REJECT(c, kOuterLookup + "jeq %r0, 0, +1\nldxw %r0, [%r0+0]\n" + kExit0, invalid_dereference,
                "socket_filter");
  EXPECT_REJECT(c, kOuterLookup + "add %r0, 4\n" + kExit0, null_dereference, "socket_filter");
}

TEST_F(MapsOfMaps, OnlyLookupsAndNoTemplateByItself) {
  // Updates of the outer map belong to user space (map side: lookup only).
  EXPECT_REJECT(c, key_and_map(0) + "mov %r3, %r2\nmov %r4, 0\ncall 2\n" + kExit0, helper_argument,
                "socket_filter");
  // A template is no map of its own: no lddw may name it.
  EXPECT_REJECT(c, key_and_map(1) + "call 1\n" + kExit0, unresolved_map, "socket_filter");
  // Without a known template the lookup is refused rather than guessed.
  c.maps[0].has_inner_map = false;
  EXPECT_REJECT(c, kOuterLookup + kExit0, unsupported_helper, "socket_filter");
  // A template holding maps would be a second level, which Linux refuses.
  c.maps[0].has_inner_map = true;
  c.maps[1].type = MapType::hash_of_maps;
  EXPECT_REJECT(c, kOuterLookup + kExit0, unsupported_helper, "socket_filter");
}

TEST_F(MapsOfMaps, NullJoinsKeepTheInnerMap) {
  // The inner map or NULL from two paths, checked after the join.
  const std::string joined =
      "mov %r6, 0\n" + kOuterLookup + "jeq %r0, 0, +1\nmov %r6, %r0\n"
      "jeq %r6, 0, +4\nmov %r1, %r6\nmov %r2, %r10\nadd %r2, -8\ncall 1\n" + kExit0;
  EXPECT_ACCEPT(c, joined, "socket_filter");
  std::string unchecked = joined;
  unchecked.replace(unchecked.find("jeq %r6, 0, +4\n"), 15, "");
  EXPECT_REJECT(c, unchecked, helper_argument, "socket_filter");
}

}  // namespace
}  // namespace keel
