// After linking (elf/loader.h, pass 6): the .BTF.ext line info records of
// the linked program's functions, moved from section offsets to program pcs
// (ElfProgram::lines); and the lookups by pc over them.
#include "elf/loader.h"
#include "support/bytes.h"
#include "support/search.h"
#include "support/sort.h"

namespace keel {

namespace elf {

namespace {

uint32_t u32_at(const uint8_t* p) { return bytes::load<uint32_t>(p); }

// Calls visit(record, slot) for each record of `block` on a slot of `f`, in
// record order, until it returns false. A sorted block is searched for the
// first record at or after the function's start, and left at its end.
template <class Visit>
void for_each_record(const BtfExtBlock& block, const ElfFunction& f, Visit visit) {
  if (block.section != f.section) return;
  const uint64_t begin = f.section_slot, end = uint64_t{f.section_slot} + f.slots;
  const uint32_t first = block.sorted ? lower_bound_index(block.count, begin * 8, [&](uint32_t r) {
    return u32_at(block.records + uint64_t{r} * block.record_size);
  })
                                      : 0;
  for (uint32_t r = first; r < block.count; ++r) {
    const uint8_t* record = block.records + uint64_t{r} * block.record_size;
    const uint64_t slot = u32_at(record) / 8;
    if (block.sorted && slot >= end) break;
    if (slot < begin || slot >= end) continue;
    if (!visit(record, slot)) break;
  }
}

// The number of records for_each_record(block, f, ...) visits when visit
// always returns true. A sorted block's records on f are those with offset
// in [begin * 8, end * 8) (slot = offset / 8), one run found by two binary
// searches; an unsorted block is scanned.
uint32_t count_records(const BtfExtBlock& block, const ElfFunction& f) {
  if (block.section != f.section) return 0;
  if (!block.sorted) {
    uint32_t n = 0;
    for_each_record(block, f, [&](const uint8_t*, uint64_t) {
      ++n;
      return true;
    });
    return n;
  }
  const auto offset = [&](uint32_t r) { return u32_at(block.records + uint64_t{r} * block.record_size); };
  const uint64_t begin = uint64_t{f.section_slot} * 8, end = (uint64_t{f.section_slot} + f.slots) * 8;
  return lower_bound_index(block.count, end, offset) - lower_bound_index(block.count, begin, offset);
}

}  // namespace

ElfResult attach_line_info(const File& file, const DebugInfo& debug, Arena& arena, ElfProgram& program) {
  if (!debug.has_ext) return {};
  // Pass 0 counts, pass 1 fills.
  for (int pass = 0; pass < 2; ++pass) {
    SourceLine* lines = nullptr;
    if (pass == 1) {
      // Pass 1 writes every field of lines[0 .. line_count) (it visits the
      // records pass 0 counted), so the array needs no zeroing.
      lines = arena.allocate_uninitialized<SourceLine>(program.line_count);
      if (lines == nullptr && program.line_count != 0) return error_at(file, ElfError::out_of_memory, 0, 0);
    }
    uint32_t n = 0;
    for (uint32_t i = 0; i < program.function_count; ++i) {
      const ElfFunction& f = program.functions[i];
      for (uint32_t b = 0; b < debug.ext.line_info_blocks; ++b) {
        if (lines == nullptr) {
          n += count_records(debug.ext.line_info[b], f);
          continue;
        }
        for_each_record(debug.ext.line_info[b], f, [&](const uint8_t* record, uint64_t slot) {
          SourceLine& line = lines[n];
          line.pc = static_cast<uint32_t>(f.pc + (slot - f.section_slot));
          line.file = btf_string(debug.btf, u32_at(record + 4));
          line.text = btf_string(debug.btf, u32_at(record + 8));
          const uint32_t line_col = u32_at(record + 12);
          line.line = line_col >> 10;  // btf.rst: BPF_LINE_INFO_LINE_NUM
          line.column = line_col & 0x3ff;
          ++n;
          return true;
        });
      }
    }
    program.line_count = n;
    if (lines != nullptr) {
      // The functions come in pc order and a sorted block yields each
      // function's records in slot order, so the lines usually arrive
      // sorted. When every pc is strictly greater than the one before, the
      // sort could not move anything (a sort orders distinct keys one way
      // only); with equal pcs (heap_sort is not stable) or any descent it
      // runs as before.
      bool increasing = true;
      for (uint32_t k = 1; k < n && increasing; ++k) increasing = lines[k - 1].pc < lines[k].pc;
      if (!increasing) heap_sort(lines, n, [](const SourceLine& a, const SourceLine& b) { return a.pc < b.pc; });
      program.lines = lines;
    }
  }
  return {};
}

}  // namespace elf

const SourceLine* find_source_line(const ElfProgram& program, uint32_t pc) {
  const ElfFunction* function = find_function(program, pc);
  // The last line at or before pc.
  const uint32_t after = upper_bound_index(program.line_count, pc, [&](uint32_t i) { return program.lines[i].pc; });
  if (after == 0) return nullptr;
  const SourceLine& line = program.lines[after - 1];
  if (function != nullptr && line.pc < function->pc) return nullptr;
  return &line;
}

const ElfFunction* find_function(const ElfProgram& program, uint32_t pc) {
  for (uint32_t i = 0; i < program.function_count; ++i) {
    const ElfFunction& f = program.functions[i];
    if (pc >= f.pc && pc - f.pc < f.slots) return &f;
  }
  return nullptr;
}

}  // namespace keel
