// Every interrupt lands here (isr.S). CPU exceptions end the run with one
// line, `keel fault vector=N name=#XX error=0x.. rip=0x.. cr2=0x..`, then
// `keel done status=fail` and the board's fault exit; the timer interrupt
// goes to the portable tick.
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/lapic.h"
#include "board.h"
#include "boot.h"
#include "console.h"
#include "tick.h"

namespace keel::x86 {
namespace {

// SDM Vol. 3A Table 6-1 (and §6.15 for the ones added since: #VE 20,
// #CP 21, #HV 28, #VC 29, #SX 30). Unnamed vectors are reserved.
const char* exception_name(uint64_t vector) {
  constexpr const char* names[32] = {
      "#DE", "#DB", "NMI", "#BP", "#OF", "#BR", "#UD", "#NM",
      "#DF", "CSO", "#TS", "#NP", "#SS", "#GP", "#PF", "reserved",
      "#MF", "#AC", "#MC", "#XM", "#VE", "#CP", "reserved", "reserved",
      "reserved", "reserved", "reserved", "reserved", "#HV", "#VC", "#SX", "reserved"};
  return vector < 32 ? names[vector] : "irq";
}

uint64_t read_cr2() {
  uint64_t value;
  asm volatile("mov %%cr2, %0" : "=r"(value));
  return value;
}

bool in_fault = false;

[[noreturn]] void report_fault(const TrapFrame& frame) {
  // A fault while reporting one (a broken UART, a bad frame) must not loop:
  // leave with the fault status and no further output.
  if (in_fault) board::exit(board::ExitCode::fault);
  in_fault = true;
  const uint64_t cr2 = read_cr2();
  Line line("fault");
  line.dec("vector", frame.vector).str("name", exception_name(frame.vector))
      .hex("error", frame.error_code).hex("rip", frame.rip).hex("cr2", cr2);
  // A #PF in the page below the boot stack is an overflow (docs/adr/0009).
  if (frame.vector == 14 && cr2 >= stack_guard_begin() && cr2 < stack_guard_end()) {
    line.str("guard", "stack");
  }
  emit(line);
  finish(board::ExitCode::fault);
}

}  // namespace
}  // namespace keel::x86

extern "C" void keel_arch_trap(keel::x86::TrapFrame* frame) {
  using namespace keel::x86;
  const uint64_t vector = frame->vector;
  if (vector == kTimerVector) {
    keel::on_tick();
    lapic::eoi();
    return;
  }
  // Spurious interrupts need no EOI (SDM Vol. 3A §11.9; the 8259A sets no
  // in-service bit for a spurious IRQ 7/15).
  if (vector == kApicSpuriousVector) return;
  if (vector == kLegacyPicBase + 7 || vector == kLegacyPicBase + 15) return;
  // Exceptions and anything unexpected end the run.
  report_fault(*frame);
}
