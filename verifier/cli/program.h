// Getting a program from a file into the interpreter: assemble text,
// check raw bytes, decode with the conformance helper table, run with an
// input buffer. Shared by `run`, `disasm` and `test-data`.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "cli.h"
#include "keel/decode.h"
#include "keel/interp.h"
#include "keel/text.h"

namespace keel::cli {

// Assembles `text` into `out` (growing the buffer as the assembler needs).
AsmResult assemble_text(const std::string& text, Bytes& out, const AsmOptions& options = {});

// "NAME:LINE:COL: error: <asm_error_name>: expected <what>".
std::string asm_error_message(const std::string& name, const AsmResult& result);

// Why `bytes` cannot be an instruction stream ("" when it can): ELF,
// empty, or a length that is not a multiple of 8.
std::string raw_program_problem(const Bytes& bytes);

// Reads a program: `.s` files are assembled, anything else is raw bytes.
// Throws CliError with a one-line message on any problem.
Bytes load_program_file(const std::string& path);
// The same for the contents `bytes` of the file at `path`, already read.
Bytes program_from_bytes(const std::string& path, Bytes bytes);

// A decoded program and the arena memory it lives in.
class DecodedProgram {
 public:
  // Decodes with the default DecodeOptions plus the conformance helper table.
  [[nodiscard]] DecodeResult decode(const Bytes& bytes);
  const Program& program() const { return program_; }

 private:
  std::unique_ptr<uint8_t[]> memory_;
  Program program_;
};

// Runs `program` with r1 = a private copy of `memory` and r2 = its length
// (both 0 when `memory` is empty). Guarded mode grants the copy as one
// writable region.
RunResult execute(const Program& program, const Bytes& memory, RunMode mode, uint64_t budget);

// "trap: <status> at pc N (address 0x...)".
std::string trap_message(const RunResult& result);

// Why the disassembly of `bytes` does not assemble back to the same bytes
// ("" when it does): text.h's promise, which `keel disasm --plain` relies on.
std::string roundtrip_problem(const Bytes& bytes);

// "0x1f".
std::string hex(uint64_t value);
// Slot `slot` of an instruction stream as the little-endian 64-bit word
// that `-- raw` sections write.
uint64_t slot_at(const Bytes& bytes, size_t slot);

}  // namespace keel::cli
