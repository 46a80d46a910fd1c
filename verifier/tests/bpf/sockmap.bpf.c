// Socket maps as libbpf programs use them: a stream parser and verdict
// pair on a sockmap, a message verdict on a sockhash, and the sock_ops
// program that adds established sockets to the sockhash.
// Expected verdict: accept (every program).
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
  __uint(type, BPF_MAP_TYPE_SOCKMAP);
  __uint(max_entries, 8);
  __type(key, __u32);
  __type(value, __u32);
} sock_map SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_SOCKHASH);
  __uint(max_entries, 64);
  __type(key, __u32);
  __type(value, __u32);
} sock_hash SEC(".maps");

SEC("sk_skb/stream_parser")
int parse(struct __sk_buff *skb) {
  return skb->len;
}

// The first byte of the record names the socket it goes to.
SEC("sk_skb/stream_verdict")
int verdict(struct __sk_buff *skb) {
  void *data = (void *)(long)skb->data;
  void *data_end = (void *)(long)skb->data_end;
  __u8 *first = data;
  if ((void *)(first + 1) > data_end) return SK_DROP;
  return bpf_sk_redirect_map(skb, &sock_map, *first & 7, 0);
}

SEC("sk_msg")
int msg_verdict(struct sk_msg_md *msg) {
  __u32 key = msg->remote_port;
  void *data = msg->data;
  void *data_end = msg->data_end;
  if (data + 4 <= data_end && *(__u32 *)data == 0) return SK_DROP;
  return bpf_msg_redirect_hash(msg, &sock_hash, &key, BPF_F_INGRESS);
}

SEC("sockops")
int add_established(struct bpf_sock_ops *ops) {
  __u32 key = ops->local_port;
  if (ops->op == BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB || ops->op == BPF_SOCK_OPS_ACTIVE_ESTABLISHED_CB)
    bpf_sock_hash_update(ops, &sock_hash, &key, BPF_NOEXIST);
  return 1;
}

char LICENSE[] SEC("license") = "GPL";
