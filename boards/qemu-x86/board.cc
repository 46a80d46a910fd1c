// QEMU's PC (q35 or pc): the COM1 16550 UART and the isa-debug-exit device.
// The clock is in clock.cc, the periodic timer in timer.cc.
#include "board.h"

#include "arch/x86_64/io.h"

namespace keel::board {
namespace {

// COM1 (docs/platform.md; TI PC16550D register map: RBR/THR +0, IER +1, FCR +2,
// LCR +3, MCR +4, LSR +5; DLL/DLM at +0/+1 while LCR.DLAB is set).
constexpr uint16_t kCom1 = 0x3F8;
constexpr uint8_t kLsrTransmitEmpty = 1u << 5;  // THRE: the holding register is free

// isa-debug-exit (-device isa-debug-exit,iobase=0xf4,iosize=0x04): QEMU exits
// with status (value << 1) | 1. A triple fault under -no-reboot exits with
// 0, and 1 ((0 << 1) | 1) is what many tools return for any error, so the
// codes start at 0x10: ok 33, fail 35, fault 37 (scripts/qemu-x86 maps
// them back to 0, 1, 2).
constexpr uint16_t kDebugExitPort = 0xF4;
constexpr uint32_t kExitCodeBase = 0x10;

}  // namespace

const char* name() { return "qemu-x86"; }
bool emulated() { return true; }

void uart_init() {
  x86::out8(kCom1 + 1, 0x00);  // IER: no UART interrupts (polled)
  x86::out8(kCom1 + 3, 0x80);  // LCR: DLAB on to reach the divisor
  x86::out8(kCom1 + 0, 0x01);  // DLL: divisor 1 = 115200 baud
  x86::out8(kCom1 + 1, 0x00);  // DLM
  x86::out8(kCom1 + 3, 0x03);  // LCR: 8 data bits, no parity, 1 stop bit, DLAB off
  x86::out8(kCom1 + 2, 0xC7);  // FCR: FIFOs on and cleared, 14-byte threshold
  x86::out8(kCom1 + 4, 0x03);  // MCR: DTR, RTS
}

void uart_put(char c) {
  while ((x86::in8(kCom1 + 5) & kLsrTransmitEmpty) == 0) {
  }
  x86::out8(kCom1, static_cast<uint8_t>(c));
}

void exit(ExitCode code) {
  x86::out32(kDebugExitPort, kExitCodeBase + static_cast<uint32_t>(code));
  // Without the exit device (another machine, real hardware) stop here.
  for (;;) asm volatile("cli; hlt");
}

}  // namespace keel::board
