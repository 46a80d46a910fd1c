// Every exception lands here (vectors.S). An IRQ goes to its handler
// (irq.h) and returns; anything else ends the run with one line,
// `keel fault vector=sync ec=0x25 name=data-abort esr=0x.. far=0x.. elr=0x..`,
// then `keel done status=fail` and the board's fault exit.
#include "arch/aarch64/exception.h"
#include "arch/aarch64/irq.h"
#include "arch/aarch64/semihosting.h"
#include "board.h"
#include "boot.h"
#include "console.h"

extern "C" char __stack_guard[];  // kernel.ld

namespace keel::aarch64 {
namespace {

// ESR_ELx.EC, bits 31:26 (Arm ARM DDI 0487 D19.2, "ESR_EL1"): the classes
// this kernel can meet; the rest print as "other".
const char* exception_class_name(uint64_t ec) {
  switch (ec) {
    case 0x00: return "unknown";  // includes UNDEFINED instructions
    case 0x01: return "wfi-wfe";
    case 0x07: return "fp-access";
    case 0x0E: return "illegal-state";
    case 0x15: return "svc";
    case 0x16: return "hvc";
    case 0x17: return "smc";
    case 0x18: return "msr-mrs";
    case 0x20: return "instruction-abort-lower";
    case 0x21: return "instruction-abort";
    case 0x22: return "pc-alignment";
    case 0x24: return "data-abort-lower";
    case 0x25: return "data-abort";
    case 0x26: return "sp-alignment";
    case 0x2C: return "fp-exception";
    case 0x2F: return "serror";
    case 0x3C: return "brk";
    default: return "other";
  }
}

const char* vector_type_name(VectorType type) {
  switch (type) {
    case VectorType::synchronous: return "sync";
    case VectorType::irq: return "irq";
    case VectorType::fiq: return "fiq";
    case VectorType::serror: return "serror";
  }
  return "unknown";
}

bool in_fault = false;

[[noreturn]] void report_fault(const ExceptionFrame& frame, VectorType type, uint64_t kind,
                               uint32_t intid) {
  // A fault while reporting one must not loop: leave with the fault
  // status and no further output.
  if (in_fault) board::exit(board::ExitCode::fault);
  in_fault = true;
  const uint64_t ec = (frame.esr >> 26) & 0x3F;
  Line line("fault");
  line.str("vector", vector_type_name(type));
  if (type == VectorType::irq) {
    line.dec("intid", intid);  // an interrupt nobody handles
  } else {
    line.hex("ec", ec).str("name", exception_class_name(ec)).hex("esr", frame.esr)
        .hex("far", frame.far);
  }
  line.hex("elr", frame.elr);
  // Taken from a lower EL or from EL1 on SP_EL1 (inside a handler): say so.
  if (kind >= 4) line.dec("group", kind / 4);
  // A data abort in the page below the kernel stack is an overflow
  // (docs/adr/0022); the report runs on the exception stack.
  const uintptr_t guard = reinterpret_cast<uintptr_t>(__stack_guard);
  if (type == VectorType::synchronous && (ec == 0x25 || ec == 0x24) && frame.far >= guard &&
      frame.far < guard + 4096) {
    line.str("guard", "stack");
  }
  emit(line);
  finish(board::ExitCode::fault);
}

}  // namespace
}  // namespace keel::aarch64

extern "C" void keel_arch_exception(keel::aarch64::ExceptionFrame* frame, uint64_t kind) {
  using namespace keel::aarch64;
  const auto type = static_cast<VectorType>(kind % 4);
  // IRQs from the kernel (group 0, SP_EL0) or before it switched stacks.
  if (type == VectorType::irq && kind < 8) {
    uint32_t intid = 0;
    if (irq::dispatch(intid)) return;
    report_fault(*frame, type, kind, intid);
  }
  // The semihosting trap with no semihosting host: UNDEFINED (EC 0). Return
  // ~0 from it, so the caller can try another way out (board exit).
  if (type == VectorType::synchronous && ((frame->esr >> 26) & 0x3F) == 0 &&
      semihosting::is_trap(frame->elr)) {
    frame->x[0] = ~uint64_t{0};
    frame->elr += 4;
    return;
  }
  report_fault(*frame, type, kind, 0);
}
