#include "console.h"

#include "board.h"

namespace keel {

void console_write(const char* text) {
  for (const char* c = text; *c != '\0'; ++c) board::uart_put(*c);
}

void emit(const Line& line) {
  // '\n' alone: the tests and capture scripts read the UART from a file, and
  // scripts/qemu-x86's terminal adds the carriage return itself.
  console_write(line.text());
  board::uart_put('\n');
}

}  // namespace keel
