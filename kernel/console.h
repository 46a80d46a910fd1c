// Writes to the board's UART: whole protocol lines (the one way the kernel
// reports anything) and, for the rare free-text message, raw strings.
#pragma once

#include "protocol.h"

namespace keel {

void emit(const Line& line);     ///< the line and a '\n'
void console_write(const char* text);

}  // namespace keel
