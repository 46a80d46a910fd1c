// Rendering of a Verdict as one line of English, with a tiny formatter of
// its own (the core has no snprintf).
#include "analysis/reg_state.h"
#include "keel/verify.h"

namespace keel {
namespace {

class Writer {
 public:
  Writer(char* buffer, size_t size) : buffer_(buffer), size_(size) {}
  Writer& str(const char* s) {
    while (*s != '\0') put(*s++);
    return *this;
  }
  Writer& num(int64_t v) {
    uint64_t u = static_cast<uint64_t>(v);
    if (v < 0) {
      put('-');
      u = ~u + 1;
    }
    return unum(u);
  }
  Writer& unum(uint64_t u) {
    char digits[20];
    int n = 0;
    do {
      digits[n++] = static_cast<char>('0' + u % 10);
      u /= 10;
    } while (u != 0);
    while (n > 0) put(digits[--n]);
    return *this;
  }
  Writer& reg(int32_t r) { return str("r").num(r); }
  size_t finish() {
    if (size_ > 0) buffer_[length_ < size_ ? length_ : size_ - 1] = '\0';
    return length_;
  }

 private:
  void put(char c) {
    if (length_ + 1 < size_) buffer_[length_] = c;
    ++length_;
  }
  char* buffer_;
  size_t size_;
  size_t length_ = 0;
};

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
  }
  return "?";
}

void access(Writer& w, const Detail& d) {
  w.str("access at offset ").num(d.offset).str(" size ").num(d.size);
  if (d.min != d.max) w.str(" (plus a variable offset in [").num(d.min).str(", ").num(d.max).str("])");
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
    KEEL_REASON(ctx_bad_access) KEEL_REASON(map_value_out_of_bounds)
    KEEL_REASON(packet_out_of_bounds) KEEL_REASON(memory_out_of_bounds)
    KEEL_REASON(read_only_write) KEEL_REASON(write_only_read) KEEL_REASON(misaligned_access)
    KEEL_REASON(variable_stack_access) KEEL_REASON(unknown_helper)
    KEEL_REASON(helper_argument) KEEL_REASON(unsupported_helper) KEEL_REASON(unresolved_map)
    KEEL_REASON(legacy_packet_load) KEEL_REASON(unprivileged_call) KEEL_REASON(unbounded_loop)
    KEEL_REASON(division_by_zero) KEEL_REASON(unsupported_instruction) KEEL_REASON(too_complex) KEEL_REASON(out_of_memory)
#undef KEEL_REASON
  }
  return "unknown";
}

size_t describe(const Verdict& v, char* buffer, size_t size) {
  Writer w(buffer, size);
  const Detail& d = v.detail;
  if (v.ok()) {
    w.str("accepted: at most ").unum(v.max_insns_executed).str(" instructions, stack ")
        .unum(v.stack_depth).str(" bytes");
    return w.finish();
  }
  w.str("pc ").unum(v.pc).str(": ");
  auto who = [&]() -> Writer& {
    if (d.reg >= 0) w.reg(d.reg).str(" is ").str(kind_words(d.kind)).str(", ");
    return w;
  };
  switch (v.reason) {
    case Reason::uninit_register: w.reg(d.reg).str(" is read before it is written"); break;
    case Reason::uninit_stack:
      w.str("read of uninitialized stack through ").reg(d.reg).str(" at offset ").num(d.offset);
      break;
    case Reason::bad_return_value:
      w.str("r0 at exit is ").str(kind_words(d.kind));
      if (d.kind == static_cast<uint8_t>(RegKind::scalar)) w.str(" in [").num(d.min).str(", ").num(d.max).str("]");
      w.str(", outside what the program type allows");
      break;
    case Reason::pointer_leak:
      who().str("a pointer would leak (stored, returned, compared or converted) without privileges");
      break;
    case Reason::pointer_arithmetic: who().str("arithmetic not allowed on this kind"); break;
    case Reason::scalar_dereference: w.reg(d.reg).str(" is a scalar, not a pointer: "); access(w, d); break;
    case Reason::null_dereference: w.reg(d.reg).str(" may be NULL here (check it against 0 first)"); break;
    case Reason::invalid_dereference:
      who().str("no memory may be accessed this way: "); access(w, d); break;
    case Reason::stack_out_of_bounds:
      if (d.reg < 0) {
        w.str("combined stack of the call chain is ").num(d.max).str(" bytes, more than ").unum(d.limit);
        break;
      }
      w.reg(d.reg).str(" is a stack pointer, "); access(w, d);
      w.str(" is outside the ").unum(d.limit).str("-byte frame");
      break;
    case Reason::ctx_bad_access:
      w.reg(d.reg).str(" is the context pointer, "); access(w, d);
      w.str(" is not a field access the program type allows");
      break;
    case Reason::map_value_out_of_bounds:
      w.reg(d.reg).str(" is a pointer to map value of size ").unum(d.limit).str(", "); access(w, d);
      w.str(" is out of bounds");
      break;
    case Reason::packet_out_of_bounds:
      w.reg(d.reg).str(" is a packet pointer with ").unum(d.limit).str(" bytes proven, "); access(w, d);
      w.str(" is out of bounds");
      break;
    case Reason::memory_out_of_bounds:
      w.reg(d.reg).str(" points to helper memory of size ").unum(d.limit).str(", "); access(w, d);
      w.str(" is out of bounds");
      break;
    case Reason::read_only_write: who().str("the memory is read-only"); break;
    case Reason::write_only_read: who().str("the memory is write-only"); break;
    case Reason::misaligned_access: who().str("misaligned "); access(w, d); break;
    case Reason::variable_stack_access: who().str("variable-offset stack access needs privileges"); break;
    case Reason::unknown_helper: w.str("helper ").unum(d.limit).str(" is not available to this program"); break;
    case Reason::helper_argument: who().str("wrong kind of argument for the helper"); break;
    case Reason::unsupported_helper: w.str("helper ").unum(d.limit).str(" uses argument kinds keel does not model"); break;
    case Reason::unresolved_map: w.str("lddw names map ").unum(d.limit).str(", which is not provided"); break;
    case Reason::legacy_packet_load: w.str("ld_abs/ld_ind needs a packet program type with r6 = context"); break;
    case Reason::unprivileged_call: w.str("BPF-to-BPF calls need privileges"); break;
    case Reason::unbounded_loop: w.str("no bound proven for the loop with header at pc ").unum(d.limit); break;
    case Reason::division_by_zero: w.str("the divisor may be zero"); break;
    case Reason::unsupported_instruction: w.str("the instruction is not part of Linux 6.1's instruction set"); break;
    case Reason::too_complex: w.str("the analysis exceeded its iteration limit"); break;
    case Reason::out_of_memory: w.str("the arena is too small for the analysis"); break;
    default: w.str(reason_name(v.reason)); break;
  }
  return w.finish();
}

}  // namespace keel
