// fuzz_elf: any bytes -> keel::load_object (verifier/src/elf), then every
// loaded program -> keel::decode. Properties: no crash, UB or read past the
// input (ASan sees it at its exact size); the error is a defined ElfError
// and describe() renders it into any buffer like snprintf; a success points
// only into the input or the arena: programs of whole slots with functions,
// lines and names inside them, and find_function / find_source_line agree
// with those tables; a smaller arena gives the same answer or out_of_memory.
#include <cstdint>
#include <cstring>
#include <memory>

#include "fuzz_check.h"
#include "keel/decode.h"
#include "keel/elf.h"

namespace {

using keel::ElfError;
using keel::ElfResult;

constexpr size_t kLargeArena = 1u << 20;

struct Span {
  const uint8_t* begin;
  size_t size;
  bool holds(const void* p, size_t bytes) const {
    const auto a = reinterpret_cast<uintptr_t>(p), b = reinterpret_cast<uintptr_t>(begin);
    return a >= b && bytes <= size && a - b <= size - bytes;
  }
};

// A string inside the input or the arena is NUL-terminated there; others
// are the loader's own constants ("xdp"), read in full (ASan checks them).
void check_string(const char* s, const Span& input, const Span& arena) {
  if (s == nullptr) return;
  for (const Span* in : {&input, &arena}) {
    if (!in->holds(s, 1)) continue;
    const size_t room = in->size - static_cast<size_t>(reinterpret_cast<const uint8_t*>(s) - in->begin);
    KEEL_FUZZ_CHECK(std::memchr(s, '\0', room) != nullptr);
    return;
  }
  KEEL_FUZZ_CHECK(std::strlen(s) < 4096);
}

void check_describe(const ElfResult& result) {
  char large[512];
  const size_t length = keel::describe(result, large, sizeof large);
  KEEL_FUZZ_CHECK(length < sizeof large && std::strlen(large) == length);
  for (const size_t size : {size_t{0}, size_t{1}, size_t{7}, length, length + 1}) {
    std::unique_ptr<char[]> buffer(new char[size == 0 ? 1 : size]);
    buffer[0] = 'x';
    KEEL_FUZZ_CHECK(keel::describe(result, buffer.get(), size) == length);
    if (size == 0) {
      KEEL_FUZZ_CHECK(buffer[0] == 'x');
      continue;
    }
    const size_t written = std::strlen(buffer.get());
    KEEL_FUZZ_CHECK(written == (length < size ? length : size - 1));
    KEEL_FUZZ_CHECK(std::memcmp(buffer.get(), large, written) == 0);
  }
}

void check_result(const ElfResult& result) {
  KEEL_FUZZ_CHECK(result.error <= ElfError::too_large);
  KEEL_FUZZ_CHECK(std::strcmp(keel::elf_error_name(result.error), "invalid") != 0);
}

void check_program(const keel::ElfProgram& p, const Span& input, const Span& arena) {
  check_result(p.status);
  check_string(p.name, input, arena);
  check_string(p.section, input, arena);
  check_string(p.type_name, input, arena);
  if (!p.status.ok()) return;
  KEEL_FUZZ_CHECK(p.own_slots <= p.slots && p.instruction_count <= p.slots);
  if (p.slots != 0) {
    KEEL_FUZZ_CHECK(p.insns != nullptr);
    KEEL_FUZZ_CHECK(input.holds(p.insns, size_t{p.slots} * 8) || arena.holds(p.insns, size_t{p.slots} * 8));
  }
  uint32_t next_pc = 0;
  for (uint32_t i = 0; i < p.function_count; ++i) {
    const keel::ElfFunction& f = p.functions[i];
    KEEL_FUZZ_CHECK(arena.holds(&f, sizeof f));
    check_string(f.name, input, arena);
    KEEL_FUZZ_CHECK(f.pc >= next_pc && f.slots != 0 && f.pc + uint64_t{f.slots} <= p.slots);
    next_pc = f.pc + f.slots;
    KEEL_FUZZ_CHECK(keel::find_function(p, f.pc) == &f);
    KEEL_FUZZ_CHECK(keel::find_function(p, f.pc + f.slots - 1) == &f);
  }
  if (p.function_count != 0) KEEL_FUZZ_CHECK(p.functions[0].pc == 0 && p.functions[0].slots == p.own_slots);
  for (uint32_t i = 0; i < p.line_count; ++i) {
    const keel::SourceLine& line = p.lines[i];
    KEEL_FUZZ_CHECK(arena.holds(&line, sizeof line));
    check_string(line.file, input, arena);
    check_string(line.text, input, arena);
    KEEL_FUZZ_CHECK(line.pc < p.slots);
    KEEL_FUZZ_CHECK(i == 0 || p.lines[i - 1].pc <= line.pc);
  }
  // Every pc (and one past the end) has an answer inside the tables, or none.
  for (uint32_t pc = 0; pc <= p.slots && pc < 4096; ++pc) {
    const keel::ElfFunction* f = keel::find_function(p, pc);
    if (f != nullptr) KEEL_FUZZ_CHECK(f >= p.functions && f < p.functions + p.function_count && f->pc <= pc && pc < f->pc + f->slots);
    const keel::SourceLine* line = keel::find_source_line(p, pc);
    if (line != nullptr) KEEL_FUZZ_CHECK(line >= p.lines && line < p.lines + p.line_count && line->pc <= pc);
  }

  // The loaded bytes go on to the decoder like any program.
  std::unique_ptr<uint8_t[]> memory(new uint8_t[size_t{p.slots} * 20 + 64]);
  keel::Arena decode_arena(memory.get(), size_t{p.slots} * 20 + 64);
  keel::Program program;
  const keel::DecodeResult decoded = keel::decode(p.insns, size_t{p.slots} * 8, keel::DecodeOptions{}, decode_arena, program);
  KEEL_FUZZ_CHECK(decoded.error <= keel::DecodeError::out_of_memory && decoded.error != keel::DecodeError::out_of_memory);
}

struct Loaded {
  ElfResult result;
  keel::Object object;
};

Loaded load(const uint8_t* bytes, size_t size, const keel::LoadOptions& options, uint8_t* memory,
            size_t arena_bytes, bool deep) {
  keel::Arena arena(memory, arena_bytes);
  Loaded l;
  l.result = keel::load_object(bytes, size, options, arena, l.object);
  check_result(l.result);
  check_describe(l.result);
  check_string(l.result.section_name, Span{bytes, size}, Span{memory, arena_bytes});
  if (!l.result.ok() || !deep) return l;

  const Span input{bytes, size}, in_arena{memory, arena_bytes};
  const keel::Object& o = l.object;
  check_string(o.license, input, in_arena);
  for (uint32_t i = 0; i < o.program_count; ++i) {
    KEEL_FUZZ_CHECK(in_arena.holds(&o.programs[i], sizeof o.programs[i]));
    check_program(o.programs[i], input, in_arena);
    if (!options.partial) KEEL_FUZZ_CHECK(o.programs[i].status.ok());
  }
  for (uint32_t i = 0; i < o.map_count; ++i) {
    KEEL_FUZZ_CHECK(in_arena.holds(&o.maps[i], sizeof o.maps[i]) && in_arena.holds(&o.map_info[i], sizeof o.map_info[i]));
    const keel::ElfMap& m = o.map_info[i];
    check_string(m.name, input, in_arena);
    if (m.initial != nullptr) KEEL_FUZZ_CHECK(input.holds(m.initial, 1) || in_arena.holds(m.initial, 1));
  }
  return l;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The input at its exact size (libFuzzer's own copy is that too, but be explicit).
  std::unique_ptr<uint8_t[]> bytes(new uint8_t[size == 0 ? 1 : size]);
  if (size != 0) std::memcpy(bytes.get(), data, size);

  static uint8_t large_arena[kLargeArena];  // a global: ASan guards its ends
  keel::LoadOptions options;
  const Loaded reference = load(bytes.get(), size, options, large_arena, kLargeArena, true);

  // Tight arenas: the same answer, or out_of_memory.
  for (const size_t arena_bytes : {size_t{0}, size_t{64}, size_t{1024}, size_t{16384}}) {
    std::unique_ptr<uint8_t[]> memory(new uint8_t[arena_bytes == 0 ? 1 : arena_bytes]);
    const Loaded l = load(bytes.get(), size, options, memory.get(), arena_bytes, false);
    if (l.result.error == ElfError::out_of_memory) continue;
    KEEL_FUZZ_CHECK(l.result.error == reference.result.error && l.result.offset == reference.result.offset &&
                    l.result.section == reference.result.section && l.result.value == reference.result.value);
    if (l.result.ok()) KEEL_FUZZ_CHECK(l.object.program_count == reference.object.program_count && l.object.map_count == reference.object.map_count);
  }

  // Other options: a partial load with a forced type and every .text function a program.
  keel::LoadOptions other;
  other.partial = true;
  other.program_type = "xdp";
  other.text_programs = keel::TextPrograms::always;
  (void)load(bytes.get(), size, other, large_arena, kLargeArena, true);

  // uBPF's convention: the whole .text is the one program, and calls of
  // undefined symbols are resolved by name (here: names starting with 's').
  keel::LoadOptions ubpf;
  ubpf.program_type = "conformance";
  ubpf.text_programs = keel::TextPrograms::whole_section;
  ubpf.extern_helper = [](const void*, const char* name) -> int32_t { return name[0] == 's' ? 3 : -1; };
  const Loaded whole = load(bytes.get(), size, ubpf, large_arena, kLargeArena, true);
  if (whole.result.ok()) KEEL_FUZZ_CHECK(whole.object.program_count == 1);
  return 0;
}
