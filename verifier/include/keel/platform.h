// What a program may touch and call, as data supplied by the embedder:
// program types (context layout and access rules) and helper prototypes.
// keel ships a Linux-compatible set (platform_linux.h) and the kernel its own.
#pragma once

#include <cstdint>

namespace keel {

// What a helper argument must be. The kinds follow the Linux verifier's
// ARG_* classes (include/linux/bpf.h, 6.1) so that Linux prototypes map
// one to one; keel checks each as described.
enum class ArgKind : uint8_t {
  none,                // unused; the register is not read
  anything,            // any initialized value (a pointer only when pointer leaks are allowed)
  map_ptr,             // a map reference loaded by lddw (map fd / map index)
  map_key,             // pointer to initialized memory of the map's key size
  map_value,           // pointer to initialized memory of the map's value size
  map_value_or_null,   // map_value, or the scalar 0
  mem,                 // pointer to initialized readable memory; size is the next argument
  mem_or_null,         // mem, or the scalar 0 with size 0
  mem_writable,        // pointer to memory the helper writes (need not be initialized); size next
  fixed_size_mem,      // pointer to initialized memory of HelperProto::arg_size bytes
  fixed_size_mem_writable,  // writable, HelperProto::arg_size bytes (need not be initialized)
  mem_read_write,      // pointer to initialized memory the helper reads and then writes; size next
  fixed_size_mem_read_write,  // initialized and writable, HelperProto::arg_size bytes
  size,                // scalar size of the previous mem argument, proven > 0
  size_or_zero,        // the same, may be 0
  alloc_size_or_zero,  // constant size of memory the helper returns (ringbuf reserve)
  ctx,                 // the context pointer, unmodified
  ctx_or_null,
  stack,               // pointer to the stack
  stack_or_null,
  const_str,           // pointer to a NUL-terminated string in read-only map memory
  func,                // a BPF-to-BPF function address (lddw code address)
  alloc_mem,           // memory returned by a helper with RetKind::alloc_mem_or_null, unmodified
  sock_common,         // a socket pointer of any kind (sock_common, sock, tcp_sock), checked non-NULL
  btf_sock_common,     // sock_common, or a kernel object (PTR_TO_BTF_ID) that is or begins with a
                       // struct sock_common (ARG_PTR_TO_BTF_ID_SOCK_COMMON)
  unsupported,         // a kind keel does not model (BTF ids, timers, dynptrs, kptrs)
};

enum class RetKind : uint8_t {
  integer,             // r0 becomes an unknown scalar
  none,                // r0 is unspecified: reading it is an error (void)
  map_value_or_null,   // pointer to a value of the map passed as map_ptr, or NULL
  map_value,
  alloc_mem_or_null,   // memory of the size passed as alloc_size_or_zero, or NULL
  sock_or_null,        // struct bpf_sock (a full socket), or NULL
  sock_common_or_null, // the struct sock_common part of a socket, or NULL
  tcp_sock_or_null,    // struct bpf_tcp_sock, or NULL
  btf_ptr,             // a kernel object of struct HelperProto::ret_btf_struct (PTR_TO_BTF_ID)
  btf_ptr_or_null,     // the same, or NULL (bpf_skc_to_*)
  unsupported,
};

struct HelperProto {
  const char* name = nullptr;
  RetKind ret = RetKind::integer;
  ArgKind args[5] = {};
  uint16_t arg_size[5] = {};  // for fixed_size_mem arguments
  bool packet_access = false; // may take packet pointers for mem/map_key/map_value arguments
  bool tail_call = false;     // bpf_tail_call: on success control does not return
  bool read_only_mem[5] = {}; // mem argument is only read (MEM_RDONLY): read-only maps are fine
  /// r0 lies in [-4095 (-MAX_ERRNO), the size argument's maximum]: the helper
  /// returns how much it wrote or an error (Linux's do_refine_retval_range).
  bool ret_bounded_by_size = false;
  /// size / size_or_zero argument read as 32 bits: only the register's low
  /// half is checked (and bounds r0 for ret_bounded_by_size). Contract: the
  /// implementation must take that argument as (uint32_t)args[i], as Linux's
  /// BPF_CALL_N does for a u32 parameter (ADR 0014).
  bool size_u32[5] = {};
  /// The returned pointer (when not NULL) holds a reference the program must
  /// give back through a releasing helper on every path (Linux's is_acquire_function).
  bool acquires = false;
  /// The returned pointer shares the reference of the pointer argument: it
  /// dies when that is released (Linux's is_ptr_cast_function).
  bool ret_shares_ref = false;
  /// 1-5: the argument whose reference the helper gives back (OBJ_RELEASE); 0 = none.
  uint8_t release_arg = 0;
  /// RetKind::btf_ptr*: the kernel struct the result points to ("tcp_sock"),
  /// resolved through ProgramType::kernel_types (the helper is unsupported without).
  const char* ret_btf_struct = nullptr;
};

// Who may call a helper (Linux gates some helpers behind capabilities).
enum class HelperGate : uint8_t { anyone, privileged };

struct HelperSlot {
  int32_t id = 0;
  const HelperProto* proto = nullptr;
  HelperGate gate = HelperGate::anyone;
};

// What a load from a context field yields.
enum class CtxYield : uint8_t {
  scalar, packet, packet_end, packet_meta, sock_common_or_null,
  sock,  // a full socket, never NULL (sk_msg_md.sk: PTR_TO_SOCKET)
  btf_ptr,          // a kernel object of BTF type CtxField::btf_type (PTR_TO_BTF_ID), 8-byte loads only
  btf_ptr_or_null,  // the same, or NULL (an iterator's object arguments)
};

// One field (or array of fields) of the context structure.
struct CtxField {
  uint16_t offset = 0;
  uint16_t size = 0;          // bytes of the field (the access must lie inside it)
  uint8_t read_sizes = 0;     // bit mask of allowed load sizes: 1, 2, 4, 8 bytes (0 = not readable)
  uint8_t write_sizes = 0;    // the same for stores (0 = read-only)
  CtxYield yields = CtxYield::scalar;  // loads of the full field give this kind
  bool privileged = false;        // only privileged programs may access the field at all
  bool write_privileged = false;  // only privileged programs may store to it
  bool narrow_at_start = false;   // loads narrower than `size` only at `offset` (the kernel
                                  // matches `case offsetof(...)` there, not a field range)
  uint32_t btf_type = 0;          // btf_ptr*: the pointed-to type, an id in ProgramType::kernel_types
};

// The kernel's types, for the pointers a BTF-typed program type hands out
// (fentry/fexit/fmod_ret, tp_btf, lsm, iter: Linux PTR_TO_BTF_ID). The
// embedder answers what a read through such a pointer touches, as Linux
// 6.1's btf_struct_walk does from the kernel's BTF (keel/btf_program.h
// builds one from raw BTF).
enum class BtfRead : uint8_t {
  scalar,         // bytes inside a non-pointer member (or a pointer to no struct): an unknown scalar
  pointer,        // exactly a pointer member to a struct or union: BtfReadResult::type
  out_of_bounds,  // not inside the object (BtfReadResult::size bytes)
  bad_access,     // part of a pointer member, a hole, a member without size, not a struct
};

struct BtfReadResult {
  BtfRead what = BtfRead::bad_access;
  uint32_t type = 0;  // pointer: the pointed-to type's id
  uint32_t size = 0;  // the object's size in bytes (for the verdict's detail)
};

struct KernelTypes {
  const void* context = nullptr;
  /// A load of `size` bytes at byte `offset` of an object of type `type`.
  BtfReadResult (*read)(const void* context, uint32_t type, uint32_t offset, uint32_t size) = nullptr;
  /// The id of the struct called `name`, or 0 when there is none.
  uint32_t (*find_struct)(const void* context, const char* name) = nullptr;
  /// An object of type `type` is a struct called `name` or begins with one,
  /// reached through first members at offset 0 (Linux 6.1's
  /// btf_struct_ids_match at offset 0: a tcp_sock is a sock_common).
  bool (*begins_with)(const void* context, uint32_t type, const char* name) = nullptr;
};
// Every access must also be aligned to its size (offset % size == 0), as
// Linux's *_is_valid_access functions require for context fields.

// Which generic map writes a program type may make to a sockmap/sockhash.
enum class SockmapWrites : uint8_t { none, delete_only, update_and_delete };

struct ProgramType {
  const char* name = nullptr;
  uint32_t ctx_size = 0;
  const CtxField* fields = nullptr;  // sorted by offset, non-overlapping
  uint32_t field_count = 0;
  const HelperSlot* helpers = nullptr;  // sorted by id
  uint32_t helper_count = 0;
  bool legacy_packet_loads = false;  // ld_abs/ld_ind allowed (r6 must be the context)
  bool direct_packet_access = false; // packet pointers may be dereferenced after bounds checks
  bool packet_writable = false;
  bool packet_helper_args = false;   // helpers with packet_access may take packet pointers
  int64_t return_min = INT64_MIN;    // r0 at exit must lie in [return_min, return_max]
  int64_t return_max = INT64_MAX;
  bool r2_is_ctx_size = false;       // r2 holds ctx_size at entry (the conformance type)
  bool ctx_is_plain_memory = false;  // the context is a plain buffer: pointer arithmetic and any in-bounds access
  /// bpf_map_update_elem / bpf_map_delete_elem on a sockmap or sockhash
  /// (Linux 6.1 may_update_sockmap: only where no locked socket is reachable).
  SockmapWrites sockmap_writes = SockmapWrites::none;
  /// The types behind btf_ptr context fields (BTF-typed program types), or nullptr.
  const KernelTypes* kernel_types = nullptr;
};

enum class MapType : uint8_t {
  array, hash, percpu_array, percpu_hash, lru_hash, lru_percpu_hash, prog_array,
  perf_event_array, ringbuf, stack_trace, other,
  lpm_trie,       // lookups like a hash map (key: struct bpf_lpm_trie_key)
  cgroup_array,   // only for skb_under_cgroup / current_task_under_cgroup
  array_of_maps,  // lookup gives the inner map (MapDescriptor::inner_map) or NULL
  hash_of_maps,
  devmap,         // redirect_map, and lookups of read-only values
  devmap_hash,
  cpumap,         // redirect_map only
  xskmap,         // redirect_map only (a lookup yields an AF_XDP socket keel does not model)
  sockmap,        // sockets by index: sk/msg redirect, sock_map_update; a lookup acquires a socket
  sockhash,       // sockets by key: the *_hash variants of the same helpers
};

struct MapDescriptor {
  MapType type = MapType::array;
  uint32_t key_size = 0;
  uint32_t value_size = 0;
  uint32_t max_entries = 0;
  bool read_only = false;   // BPF_F_RDONLY_PROG (and .rodata): program stores rejected
  bool write_only = false;  // BPF_F_WRONLY_PROG: program loads rejected
  // The value of a read-only array of one entry that the loader froze after
  // filling it (libbpf's .rodata), or nullptr: loads at a known offset read
  // their constant from it (Linux bpf_map_direct_read).
  const uint8_t* frozen_value = nullptr;
  /// array_of_maps / hash_of_maps: whether the inner map template is known
  /// (else lookups are rejected), and its index in the same map table.
  bool has_inner_map = false;
  uint32_t inner_map = 0;
  /// An inner map template only: no lddw may name it (it is no map of its own).
  bool template_only = false;
};

struct Platform {
  const ProgramType* types = nullptr;
  uint32_t type_count = 0;
};

// The program type called `name`, or nullptr.
const ProgramType* find_program_type(const Platform& platform, const char* name);
// The helper slot for `id` in `type`, or nullptr when the type has no such
// helper. Every type offers the compiler builtins (kBuiltinMemset... in isa.h).
const HelperSlot* find_helper(const ProgramType& type, int32_t id);

// The "conformance" program type of the bpf_conformance suite: the context
// is the test's memory buffer of `mem_size` bytes (r1 points to it, r2 holds
// its length), readable and writable at any size, with pointer arithmetic on
// it; `helpers` (sorted by id, e.g. with ArgKind::anything arguments) are
// callable. `field_storage` holds the one context field and must outlive the type.
ProgramType make_conformance_type(uint32_t mem_size, const HelperSlot* helpers, uint32_t count,
                                  CtxField& field_storage);

}  // namespace keel
