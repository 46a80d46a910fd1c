// Rendering of a Verdict as one line of English (support/text_writer.h).
#include "analysis/reg_state.h"
#include "keel/verify.h"
#include "support/text_writer.h"

namespace keel {
namespace {

using Writer = TextWriter;

const char* kind_words(uint8_t kind) {
  switch (static_cast<RegKind>(kind)) {
    case RegKind::uninit: return "uninitialized";
    case RegKind::scalar: return "a scalar";
    case RegKind::ctx: return "the context pointer";
    case RegKind::stack: return "a stack pointer";
    case RegKind::map_ptr: return "a map reference";
    case RegKind::map_value: return "a pointer to map value";
    case RegKind::map_value_or_null: return "a pointer to map value or NULL";
    case RegKind::packet: return "a packet pointer";
    case RegKind::packet_end: return "the packet end pointer";
    case RegKind::packet_meta: return "a packet metadata pointer";
    case RegKind::mem: return "a pointer to helper memory";
    case RegKind::mem_or_null: return "a pointer to helper memory or NULL";
    case RegKind::func: return "a function address";
    case RegKind::mixed: return "a pointer on some paths and not on others";
    case RegKind::map_ptr_or_null: return "a map reference or NULL";
    case RegKind::sock_common: return "a socket pointer (sock_common)";
    case RegKind::sock_common_or_null: return "a socket pointer (sock_common) or NULL";
    case RegKind::sock: return "a socket pointer";
    case RegKind::sock_or_null: return "a socket pointer or NULL";
    case RegKind::tcp_sock: return "a TCP socket pointer";
    case RegKind::tcp_sock_or_null: return "a TCP socket pointer or NULL";
    case RegKind::btf_ptr: return "a BTF-typed kernel pointer";
    case RegKind::btf_ptr_or_null: return "a BTF-typed kernel pointer or NULL";
  }
  return "?";
}

// "bpf_spin_lock (93)", or "93" when no name is known.
void helper(Writer& w, const DescribeContext& c, int64_t id) {
  const char* name = c.helper_name != nullptr && id >= INT32_MIN && id <= INT32_MAX
                         ? c.helper_name(static_cast<int32_t>(id))
                         : nullptr;
  if (name == nullptr) {
    w.signed_decimal(id);
    return;
  }
  w.put(name).put(" (").signed_decimal(id).put(")");
}

// "map 2 (events)", or "map 2" when no name is known.
void map(Writer& w, const DescribeContext& c, uint32_t index) {
  w.put("map ").decimal(index);
  if (index < c.map_count && c.map_names != nullptr && c.map_names[index] != nullptr)
    w.put(" (").put(c.map_names[index]).put(")");
}

// The helper that the call at `pc` names, when the context has the program.
const Insn* helper_call_at(const DescribeContext& c, uint32_t pc) {
  if (c.program == nullptr || pc >= c.program->count) return nullptr;
  const Insn* insn = &c.program->insns[pc];
  return insn->op == Op::call_helper ? insn : nullptr;
}

// The helper a call rejection is about: that of the call at `pc` when the
// context has the program, else the id the verdict carries.
int64_t called_helper(const DescribeContext& c, uint32_t pc, const Detail& d) {
  const Insn* call = helper_call_at(c, pc);
  return call != nullptr ? call->imm : static_cast<int32_t>(d.limit);
}

// "[0, 1]" and the like: the range r0 must lie in at the rejected exit.
void range(Writer& w, int64_t min, int64_t max) {
  w.put("[").signed_decimal(min).put(", ").signed_decimal(max).put("]");
}

void access(Writer& w, const Detail& d) {
  w.put("access at offset ").signed_decimal(d.offset).put(" size ").signed_decimal(d.size);
  if (d.min != d.max) w.put(" (plus a variable offset in [").signed_decimal(d.min).put(", ").signed_decimal(d.max).put("])");
}

}  // namespace

const char* reason_name(Reason reason) {
  switch (reason) {
#define KEEL_REASON(name) case Reason::name: return #name;
    KEEL_REASON(ok) KEEL_REASON(unreachable_code) KEEL_REASON(irreducible_loop)
    KEEL_REASON(recursion) KEEL_REASON(call_depth) KEEL_REASON(uninit_register)
    KEEL_REASON(uninit_stack) KEEL_REASON(bad_return_value) KEEL_REASON(pointer_leak)
    KEEL_REASON(pointer_arithmetic) KEEL_REASON(pointer_comparison)
    KEEL_REASON(scalar_dereference) KEEL_REASON(null_dereference)
    KEEL_REASON(invalid_dereference) KEEL_REASON(stack_out_of_bounds)
    KEEL_REASON(ctx_bad_access) KEEL_REASON(ctx_mixed_access) KEEL_REASON(sock_bad_access)
    KEEL_REASON(map_value_out_of_bounds)
    KEEL_REASON(packet_out_of_bounds) KEEL_REASON(memory_out_of_bounds)
    KEEL_REASON(read_only_write) KEEL_REASON(write_only_read) KEEL_REASON(misaligned_access)
    KEEL_REASON(variable_stack_access) KEEL_REASON(unknown_helper)
    KEEL_REASON(helper_argument) KEEL_REASON(unsupported_helper) KEEL_REASON(unresolved_map)
    KEEL_REASON(legacy_packet_load) KEEL_REASON(unprivileged_call)
    KEEL_REASON(unreleased_reference) KEEL_REASON(reference_held) KEEL_REASON(release_unreferenced)
    KEEL_REASON(double_release) KEEL_REASON(use_after_release) KEEL_REASON(reference_store)
    KEEL_REASON(too_many_references) KEEL_REASON(reference_reacquired) KEEL_REASON(unbounded_loop)
    KEEL_REASON(division_by_zero) KEEL_REASON(unsupported_instruction) KEEL_REASON(too_complex) KEEL_REASON(out_of_memory)
#undef KEEL_REASON
  }
  return "unknown";
}

size_t describe(const Verdict& v, char* buffer, size_t size) { return describe(v, DescribeContext{}, buffer, size); }

size_t describe(const Verdict& v, const DescribeContext& context, char* buffer, size_t size) {
  Writer w(buffer, size);
  const Detail& d = v.detail;
  if (v.ok()) {
    w.put("accepted: at most ").decimal(v.max_insns_executed).put(" instructions, stack ")
        .decimal(v.stack_depth).put(" bytes");
    return w.finish();
  }
  w.put("pc ").decimal(v.pc).put(": ");
  auto who = [&]() -> Writer& {
    if (d.reg >= 0) w.put("r").signed_decimal(d.reg).put(" is ").put(kind_words(d.kind)).put(", ");
    return w;
  };
  switch (v.reason) {
    case Reason::uninit_register: w.put("r").signed_decimal(d.reg).put(" is read before it is written"); break;
    case Reason::uninit_stack:
      w.put("read of uninitialized stack through ").put("r").signed_decimal(d.reg).put(" at offset ").signed_decimal(d.offset);
      break;
    case Reason::bad_return_value:
      w.put("r0 at exit is ").put(kind_words(d.kind));
      if (d.kind == static_cast<uint8_t>(RegKind::scalar)) w.put(" in [").signed_decimal(d.min).put(", ").signed_decimal(d.max).put("]");
      w.put(", outside what the program type allows: a scalar in ");
      range(w, d.allowed_min, d.allowed_max);
      break;
    case Reason::pointer_leak:
      who().put("a pointer would leak (stored, returned, compared or converted) without privileges");
      break;
    case Reason::pointer_arithmetic: who().put("arithmetic not allowed on this kind"); break;
    case Reason::scalar_dereference: w.put("r").signed_decimal(d.reg).put(" is a scalar, not a pointer: "); access(w, d); break;
    case Reason::null_dereference: w.put("r").signed_decimal(d.reg).put(" may be NULL here (check it against 0 first)"); break;
    case Reason::invalid_dereference:
      who().put("no memory may be accessed this way: "); access(w, d); break;
    case Reason::stack_out_of_bounds:
      if (d.reg < 0) {
        w.put("combined stack of the call chain is ").signed_decimal(d.max).put(" bytes, more than ").decimal(d.limit);
        break;
      }
      w.put("r").signed_decimal(d.reg).put(" is a stack pointer, "); access(w, d);
      w.put(" is outside the ").decimal(d.limit).put("-byte frame");
      break;
    case Reason::ctx_bad_access:
      w.put("r").signed_decimal(d.reg).put(" is the context pointer, "); access(w, d);
      w.put(" is not a field access the program type allows");
      break;
    case Reason::ctx_mixed_access:
      who().put("and this instruction reaches the context on another path; Linux rewrites context accesses per instruction");
      break;
    case Reason::sock_bad_access:
      who();
      access(w, d);
      w.put(" is not a socket field Linux lets a program read this way");
      break;
    case Reason::map_value_out_of_bounds:
      w.put("r").signed_decimal(d.reg).put(" is a pointer to map value of size ").decimal(d.limit).put(", "); access(w, d);
      w.put(" is out of bounds");
      break;
    case Reason::packet_out_of_bounds:
      w.put("r").signed_decimal(d.reg).put(" is a packet pointer with ").decimal(d.limit).put(" bytes proven, "); access(w, d);
      w.put(" is out of bounds");
      break;
    case Reason::memory_out_of_bounds:
      w.put("r").signed_decimal(d.reg)
          .put(static_cast<RegKind>(d.kind) == RegKind::btf_ptr ? " points to a kernel object (BTF) of size "
                                                                 : " points to helper memory of size ")
          .decimal(d.limit).put(", ");
      access(w, d);
      w.put(" is out of bounds");
      break;
    case Reason::read_only_write: who().put("the memory is read-only"); break;
    case Reason::write_only_read: who().put("the memory is write-only"); break;
    case Reason::misaligned_access: who().put("misaligned "); access(w, d); break;
    case Reason::variable_stack_access: who().put("variable-offset stack access needs privileges"); break;
    case Reason::unknown_helper:
      w.put("helper ");
      helper(w, context, called_helper(context, v.pc, d));
      w.put(" is not available to ");
      if (context.type != nullptr && context.type->name != nullptr) {
        w.put(context.type->name).put(" programs");
      } else {
        w.put("this program");
      }
      break;
    case Reason::helper_argument:
      who().put("wrong kind of argument for the helper");
      if (const Insn* call = helper_call_at(context, v.pc)) helper(w.put(" "), context, call->imm);
      break;
    case Reason::unsupported_helper:
      w.put("helper ");
      helper(w, context, called_helper(context, v.pc, d));
      w.put(" uses argument kinds keel does not model");
      break;
    case Reason::unresolved_map:
      w.put("lddw names ");
      map(w, context, d.limit);
      w.put(", which is not provided");
      break;
    case Reason::legacy_packet_load: w.put("ld_abs/ld_ind needs a packet program type with r6 = context"); break;
    case Reason::unprivileged_call: w.put("BPF-to-BPF calls need privileges"); break;
    case Reason::unreleased_reference:
      w.put("the reference acquired at pc ").decimal(d.limit)
          .put(" is not released on some path to this exit (Linux: Unreleased reference)");
      break;
    case Reason::reference_held:
      w.put("the reference acquired at pc ").decimal(d.limit)
          .put(" may still be held, and a tail call or ld_abs/ld_ind may end the program here without releasing it");
      break;
    case Reason::release_unreferenced:
      who().put("which holds no acquired reference to release");
      break;
    case Reason::double_release:
      w.put("r").signed_decimal(d.reg).put(" was released already (reference acquired at pc ").decimal(d.limit).put(")");
      break;
    case Reason::use_after_release:
      w.put("r").signed_decimal(d.reg).put(" refers to an object whose reference (acquired at pc ")
          .decimal(d.limit).put(") was released");
      break;
    case Reason::reference_store:
      who().put("holding the reference acquired at pc ").decimal(d.limit)
          .put("; such a pointer may be kept only in registers and on the stack");
      break;
    case Reason::too_many_references: w.put("more than ").decimal(d.limit).put(" references would be held at once"); break;
    case Reason::reference_reacquired:
      w.put("this call acquires a reference while the one it acquired before may still be held "
            "(keel tracks one reference per acquiring instruction)");
      break;
    case Reason::unbounded_loop: w.put("no bound proven for the loop with header at pc ").decimal(d.limit); break;
    case Reason::division_by_zero: w.put("the divisor may be zero"); break;
    case Reason::unsupported_instruction: w.put("the instruction is not part of Linux 6.1's instruction set"); break;
    case Reason::too_complex:
      if (d.kind == kTooComplexAnalysis) {
        w.put("the analysis exceeded its iteration limit");
        break;
      }
      w.put(d.kind == kTooComplexLoopInsns ? "the loop headed here may execute " : "the program may execute ");
      if (d.max == INT64_MAX) {
        w.put("more instructions than 64 bits can count");
      } else {
        w.decimal(static_cast<uint64_t>(d.max)).put(" instructions");
      }
      w.put(d.kind == kTooComplexLoopInsns ? " per entry, more than the loop limit of "
                                           : " up to here, more than the limit of ")
          .decimal(static_cast<uint64_t>(d.min));
      break;
    case Reason::out_of_memory: w.put("the arena is too small for the analysis"); break;
    default: w.put(reason_name(v.reason)); break;
  }
  return w.finish();
}

}  // namespace keel
