// The Arm PL011 UART (PrimeCell UART TRM, Arm DDI 0183G), transmit only,
// used as the loader left it: QEMU virt's needs no set-up, and on the
// Raspberry Pi 5 the firmware has programmed the baud rate (115200 8N1),
// which is never touched (the UART's input clock is not known for sure).
// The board supplies the base address.
#pragma once

#include <cstdint>

namespace keel::aarch64::pl011 {

/// Waits for room in the transmit FIFO (UARTFR.TXFF clear, §3.3.3) and
/// writes `c`. The wait is bounded: a UART that never drains (left
/// disabled by the loader: UARTCR.UARTEN or TXE clear, §3.3.8) must not
/// hang the run, whose end is still reached and powered off. False when
/// the byte was dropped.
bool put(uintptr_t base, char c);

/// Waits (bounded) until every byte has left the shift register
/// (UARTFR.BUSY clear), so that powering off does not cut the last line.
void drain(uintptr_t base);

}  // namespace keel::aarch64::pl011
