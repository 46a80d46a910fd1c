// The listings of `keel disasm` (not --plain): one "pc: instruction" line
// per instruction, a label line where a function starts or a jump lands,
// and for objects the names of helpers, maps and global variables and
// (with -S) the source lines from BTF line info. keel/text.h writes each
// instruction; this lays out the lines.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "elf_symbols.h"
#include "keel/elf.h"
#include "keel/text.h"

namespace keel::cli {

struct ListingStyle {
  Syntax syntax = Syntax::conformance;
  bool source = false;  // -S: source lines above their first instruction
};

// A raw program: labels for jump targets, no names (its helpers and maps
// belong to no known platform).
void print_listing(const uint8_t* bytes, size_t slots, const ListingStyle& style);

// Slots [first, end) of a program of `object`, with its names.
void print_listing(const Object& object, const ElfProgram& program, const std::vector<DataSymbol>& symbols,
                   const ListingStyle& style, uint32_t first, uint32_t end);

// "tc/spin", or "tc/spin" plus the subprogram: where `--function NAME`
// names a subprogram rather than a program, the program holding it and the
// function's slots; nullptr when no program holds a function of that name.
struct FoundFunction {
  const ElfProgram* program = nullptr;
  const ElfFunction* function = nullptr;
};
FoundFunction find_subprogram(const Object& object, const std::string& section, const std::string& name);

}  // namespace keel::cli
