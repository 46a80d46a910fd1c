// fuzz_asm: any text -> keel::assemble (verifier/src/text/assemble.cc) into
// outputs of several capacities, then disassemble_one over the result and
// assemble again. Properties: no crash or UB, no write past the output
// (ASan sees each buffer at its exact size); the error is a defined AsmError
// with a 1-based line and column; a smaller output gives the same bytes when
// they fit and output_full when they do not; the disassembly of every
// success assembles back to the very same bytes.
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "fuzz_check.h"
#include "keel/text.h"

namespace {

using keel::AsmError;
using keel::AsmResult;

constexpr size_t kLargeSlots = 1u << 16;  // more than any text of the fuzzer's lengths can fill

struct Assembled {
  AsmResult result;
  std::unique_ptr<uint8_t[]> bytes;
};

Assembled assemble_checked(const char* text, size_t length, size_t capacity) {
  Assembled a;
  a.bytes.reset(new uint8_t[capacity == 0 ? 1 : capacity * 8]);  // 1: any write at capacity 0 is seen
  a.result = keel::assemble(text, length, a.bytes.get(), capacity);
  KEEL_FUZZ_CHECK(a.result.error <= AsmError::output_full);
  KEEL_FUZZ_CHECK(std::strcmp(keel::asm_error_name(a.result.error), "invalid") != 0);
  KEEL_FUZZ_CHECK(a.result.slots <= capacity);
  if (!a.result.ok()) KEEL_FUZZ_CHECK(a.result.line >= 1 && a.result.column >= 1);
  return a;
}

// Disassembles `slots` slots into one text, one line each.
std::string disassemble_all(const uint8_t* bytes, size_t slots) {
  std::string text;
  for (size_t index = 0; index < slots;) {
    char line[keel::kDisassemblyLineMax];
    const size_t consumed = keel::disassemble_one(bytes, slots, index, line, sizeof line);
    KEEL_FUZZ_CHECK(consumed == 1 || consumed == 2);
    KEEL_FUZZ_CHECK(std::strlen(line) < sizeof line);
    text += line;
    text += '\n';
    index += consumed;
  }
  return text;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // A copy of exactly `size` bytes, not NUL-terminated: the assembler must
  // stop at `length`.
  std::unique_ptr<char[]> text(new char[size == 0 ? 1 : size]);
  if (size != 0) std::memcpy(text.get(), data, size);

  const Assembled reference = assemble_checked(text.get(), size, kLargeSlots);
  if (reference.result.ok()) KEEL_FUZZ_CHECK(reference.result.slots < kLargeSlots);

  const size_t capacities[] = {0, 1, 2, 7, reference.result.slots, reference.result.slots + 1};
  for (const size_t capacity : capacities) {
    const Assembled a = assemble_checked(text.get(), size, capacity);
    if (!reference.result.ok()) {
      // The same error, or (pass 2 reports label and capacity errors in
      // line order) output_full no later than it.
      const bool same = a.result.error == reference.result.error && a.result.line == reference.result.line &&
                        a.result.column == reference.result.column;
      KEEL_FUZZ_CHECK(same || (a.result.error == AsmError::output_full && a.result.line <= reference.result.line));
      continue;
    }
    if (capacity >= reference.result.slots) {
      KEEL_FUZZ_CHECK(a.result.ok() && a.result.slots == reference.result.slots);
      KEEL_FUZZ_CHECK(std::memcmp(a.bytes.get(), reference.bytes.get(), a.result.slots * 8) == 0);
    } else {
      KEEL_FUZZ_CHECK(a.result.error == AsmError::output_full);
    }
  }
  if (!reference.result.ok() || reference.result.slots == 0) return 0;

  // Round trip: the disassembly assembles back to the same bytes.
  const std::string listing = disassemble_all(reference.bytes.get(), reference.result.slots);
  const Assembled again = assemble_checked(listing.data(), listing.size(), reference.result.slots);
  if (!again.result.ok()) {
    std::fprintf(stderr, "listing that does not assemble (%s at %u:%u):\n%s", keel::asm_error_name(again.result.error),
                 again.result.line, again.result.column, listing.c_str());
  }
  KEEL_FUZZ_CHECK(again.result.ok() && again.result.slots == reference.result.slots);
  KEEL_FUZZ_CHECK(std::memcmp(again.bytes.get(), reference.bytes.get(), again.result.slots * 8) == 0);
  return 0;
}
