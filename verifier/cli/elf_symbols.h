// The data symbols of an ELF object (STT_OBJECT entries of .symtab), so a
// listing can name the global variable a lddw addresses (`hits` rather than
// `.bss + 0`). keel::load_object keeps no symbol table; this reads it again
// from the object's bytes, with every offset checked.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli.h"

namespace keel::cli {

struct DataSymbol {
  uint32_t section = 0;  // st_shndx
  uint64_t value = 0;    // offset within the section
  uint64_t size = 0;
  std::string name;
};

// Every STT_OBJECT symbol of a little-endian ELF64 object; empty when the
// bytes hold no symbol table (or not one this reader can trust).
std::vector<DataSymbol> data_symbols(const Bytes& bytes);

}  // namespace keel::cli
