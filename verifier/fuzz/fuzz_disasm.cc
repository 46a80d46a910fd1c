// fuzz_disasm: any bytes -> keel::disassemble_one (verifier/src/text/
// disassemble.cc) at every slot index, with buffers from none to ample.
// Properties: no crash or UB, no write past the buffer (ASan sees each at
// its exact size); a line fits kDisassemblyLineMax; a buffer one byte too
// small gives 0 and an empty string, a big enough one the same line; each
// line assembles to exactly the slots it consumed; the whole listing
// assembles back to the input's slots.
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "fuzz_check.h"
#include "keel/text.h"

namespace {

// Disassembles slot `index` into a heap buffer of exactly `buffer_size` bytes.
size_t disassemble_into(const uint8_t* bytes, size_t slots, size_t index, size_t buffer_size,
                        std::string& line) {
  std::unique_ptr<char[]> buffer(new char[buffer_size == 0 ? 1 : buffer_size]);
  if (buffer_size == 0) buffer[0] = 'x';  // must stay untouched
  const size_t consumed = keel::disassemble_one(bytes, slots, index, buffer.get(), buffer_size);
  if (buffer_size == 0) {
    KEEL_FUZZ_CHECK(buffer[0] == 'x' && consumed == 0);
    line.clear();
    return consumed;
  }
  KEEL_FUZZ_CHECK(std::memchr(buffer.get(), '\0', buffer_size) != nullptr);
  line = buffer.get();
  return consumed;
}

// Assembles one text and checks it is exactly `expected` (`slots` slots).
void check_assembles_to(const std::string& text, const uint8_t* expected, size_t slots) {
  std::unique_ptr<uint8_t[]> out(new uint8_t[slots * 8]);
  const keel::AsmResult result = keel::assemble(text.data(), text.size(), out.get(), slots);
  if (!result.ok() || result.slots != slots || std::memcmp(out.get(), expected, slots * 8) != 0) {
    std::fprintf(stderr, "does not assemble back (%s at %u:%u, %zu of %zu slots):\n%s\n",
                 keel::asm_error_name(result.error), result.line, result.column, result.slots, slots,
                 text.c_str());
  }
  KEEL_FUZZ_CHECK(result.ok() && result.slots == slots);
  KEEL_FUZZ_CHECK(std::memcmp(out.get(), expected, slots * 8) == 0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const size_t slots = size / 8;
  // Exactly the slots, so that ASan sees a read past the last one.
  std::unique_ptr<uint8_t[]> bytes(new uint8_t[slots == 0 ? 1 : slots * 8]);
  if (slots != 0) std::memcpy(bytes.get(), data, slots * 8);

  // Out of range: nothing, an empty string.
  std::string line;
  KEEL_FUZZ_CHECK(disassemble_into(bytes.get(), slots, slots, keel::kDisassemblyLineMax, line) == 0 &&
                  line.empty());
  if (slots == 0) return 0;

  std::string listing;
  size_t next = 0;  // the slot the sequential listing reaches next
  for (size_t index = 0; index < slots; ++index) {
    const size_t consumed = disassemble_into(bytes.get(), slots, index, keel::kDisassemblyLineMax, line);
    KEEL_FUZZ_CHECK(consumed == 1 || (consumed == 2 && index + 1 < slots));
    KEEL_FUZZ_CHECK(!line.empty() && line.size() < keel::kDisassemblyLineMax);
    KEEL_FUZZ_CHECK(line.find('\n') == std::string::npos);

    // Small buffers: too small by one gives 0 and ""; exactly enough, the line.
    std::string small;
    const size_t needed = line.size() + 1;
    const size_t sizes[] = {0, 1, 2, needed / 2, needed - 1};
    for (const size_t buffer_size : sizes) {
      if (buffer_size >= needed) continue;
      KEEL_FUZZ_CHECK(disassemble_into(bytes.get(), slots, index, buffer_size, small) == 0 && small.empty());
    }
    KEEL_FUZZ_CHECK(disassemble_into(bytes.get(), slots, index, needed, small) == consumed && small == line);

    // Each line on its own (relative targets need no context).
    check_assembles_to(line, bytes.get() + index * 8, consumed);

    if (index == next) {
      listing += line;
      listing += '\n';
      next += consumed;
    }
  }
  check_assembles_to(listing, bytes.get(), slots);
  return 0;
}
