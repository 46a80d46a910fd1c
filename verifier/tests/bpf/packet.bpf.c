// Ethernet / IPv4 / TCP parsing with the bounds checks the verifier needs,
// once for XDP and once for tc. Expected verdict: accept.
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/pkt_cls.h>
#include <linux/tcp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

static __always_inline int is_ssh(void* data, void* data_end) {
  struct ethhdr* eth = data;
  if ((void*)(eth + 1) > data_end) return 0;
  if (eth->h_proto != bpf_htons(ETH_P_IP)) return 0;
  struct iphdr* ip = (void*)(eth + 1);
  if ((void*)(ip + 1) > data_end) return 0;
  if (ip->protocol != IPPROTO_TCP || ip->ihl != 5) return 0;
  struct tcphdr* tcp = (void*)(ip + 1);
  if ((void*)(tcp + 1) > data_end) return 0;
  return tcp->dest == bpf_htons(22);
}

SEC("xdp")
int xdp_parse(struct xdp_md* ctx) {
  void* data = (void*)(long)ctx->data;
  void* data_end = (void*)(long)ctx->data_end;
  return is_ssh(data, data_end) ? XDP_DROP : XDP_PASS;
}

SEC("tc")
int tc_parse(struct __sk_buff* skb) {
  void* data = (void*)(long)skb->data;
  void* data_end = (void*)(long)skb->data_end;
  return is_ssh(data, data_end) ? TC_ACT_SHOT : TC_ACT_OK;
}

char LICENSE[] SEC("license") = "GPL";
