// What the two syntaxes of a listing share (keel/text.h ListingOptions):
// how a jump target, a map and a helper are named, and the entry to the
// LLVM syntax writer.
#pragma once

#include <cstddef>
#include <cstdint>

#include "keel/text.h"
#include "support/text_writer.h"

namespace keel::text {

// The label of slot `target`: the function starting there, else `.L<slot>`.
void write_label(TextWriter& w, const ListingOptions& options, int64_t target);

// For a lddw of map kind `src` (RFC 9669 §5.4) whose map has a name: the
// name, and ` + next_imm` for a value address ("counters", ".bss + 8");
// false (nothing written) when there is no name to write.
bool write_map_name(TextWriter& w, const ListingOptions& options, uint8_t src, int32_t imm, int32_t next_imm);

// The name of helper `id`, or nullptr.
const char* helper_name(const ListingOptions& options, int64_t id);

// disassemble_line() for Syntax::llvm; `index` < `slots`, `bytes` not null.
size_t disassemble_llvm(const uint8_t* bytes, size_t slots, size_t index, const ListingOptions& options,
                        char* buffer, size_t buffer_size);

}  // namespace keel::text
