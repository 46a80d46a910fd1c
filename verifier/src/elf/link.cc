// Pass 6 of the loader (elf/loader.h): linking one program as libbpf links
// it. The program's own function is placed first, then every function its
// placed functions reach (BPF-to-BPF calls, function addresses), each once,
// at the end; relocations are applied as the code is copied. Relocation
// types per the LLVM BPF backend documentation ("BPF relocations"):
// R_BPF_64_64 on lddw (map or function address), R_BPF_64_32 on BPF-to-BPF
// calls; the others only appear in debug and BTF sections, which the loader
// does not patch.
#include "elf/loader.h"
#include "keel/isa.h"
#include "support/bytes.h"
#include "support/search.h"

namespace keel::elf {

namespace {

constexpr uint32_t kRelNone = 0, kRel64_64 = 1, kRel64_32 = 10;
constexpr uint8_t kOpLddw = 0x18, kOpCall = 0x85;
constexpr uint8_t kPseudoMapFd = 1, kPseudoMapValue = 2, kPseudoCall = 1, kPseudoFunc = 4;
constexpr uint8_t kPseudoMapIdx = 5, kPseudoMapIdxValue = 6;

// uapi bpf.h: the lddw source kinds whose imm a loader replaces by a map.
constexpr bool names_map(uint8_t src) {
  return src == kPseudoMapFd || src == kPseudoMapValue || src == kPseudoMapIdx || src == kPseudoMapIdxValue;
}

// Links one program: `place` gives each function its pc, `copy` walks one
// placed function (placing what it reaches) and, with an output buffer,
// writes it there relocated.
class Linker {
 public:
  Linker(const LinkInputs& in, LinkScratch& scratch, Arena& arena, ElfProgram& program)
      : in_(in), file_(in.file), scratch_(scratch), arena_(arena), program_(program) {}

  ElfResult place(uint32_t section, uint64_t slot, uint32_t from_section, uint64_t from_offset, uint32_t& pc);
  ElfResult copy(const LinkScratch::Placed& placed, uint8_t* out);
  uint32_t total_slots() const { return total_slots_; }

 private:
  ElfResult fail(ElfError error, uint32_t section, uint64_t offset, uint64_t value = 0) const {
    return error_at(file_, error, section, offset, value);
  }

  const LinkInputs& in_;
  const File& file_;
  LinkScratch& scratch_;
  Arena& arena_;
  ElfProgram& program_;
  uint32_t total_slots_ = 0;
};

// The pc of (section, slot) in the program being linked, placing the
// function that holds it at the end when it is not there yet.
ElfResult Linker::place(uint32_t section, uint64_t slot, uint32_t from_section, uint64_t from_offset,
                        uint32_t& pc) {
  const Function* f = function_at(file_, in_.index, in_.functions, section, slot);
  if (f == nullptr) return fail(ElfError::bad_call, from_section, from_offset, slot);
  const uint32_t id = static_cast<uint32_t>(f - in_.functions.functions);
  if (scratch_.placed_of[id] < 0) {
    if (uint64_t{total_slots_} + f->slots > kMaxSlots)
      return fail(ElfError::too_large, from_section, from_offset, total_slots_);
    scratch_.placed_of[id] = static_cast<int32_t>(scratch_.placed_count);
    scratch_.placed[scratch_.placed_count++] = {id, total_slots_};
    total_slots_ += f->slots;
  }
  pc = static_cast<uint32_t>(scratch_.placed[scratch_.placed_of[id]].pc + (slot - f->start));
  return {};
}

// Finds the code references of one placed function (placing their
// targets), and with `out` also copies it there and applies its
// relocations. The same walk runs twice per program: first to learn the
// program's size, then to write it.
ElfResult Linker::copy(const LinkScratch::Placed& placed, uint8_t* out) {
  const Function& f = in_.functions.functions[placed.function];
  const Section& s = file_.sections[f.section];
  const uint8_t* code = s.data + uint64_t{f.start} * 8;
  if (out != nullptr) __builtin_memcpy(out + uint64_t{placed.pc} * 8, code, uint64_t{f.slots} * 8);

  const size_t mark = arena_.mark();
  uint8_t* relocated = arena_.allocate<uint8_t>(f.slots);
  if (relocated == nullptr) return fail(ElfError::out_of_memory, 0, 0);
  ElfResult result;
  const uint64_t begin = uint64_t{f.start} * 8, end = begin + uint64_t{f.slots} * 8;
  // The relocations inside [begin, end), sorted by offset.
  const RelocationRef* refs = in_.relocations.refs;
  const uint64_t last = in_.relocations.first[f.section + 1];
  const uint64_t first =
      partition_index(in_.relocations.first[f.section], last, [&](uint64_t i) { return refs[i].offset < begin; });
  for (uint64_t i = first; i < last && refs[i].offset < end && result.ok(); ++i) {
    const uint32_t rel = refs[i].table;
    const uint64_t entry = file_.sections[rel].type == kShtRela ? 24 : 16;
    const uint64_t k = refs[i].entry;
    const Relocation r = read_relocation(file_, rel, k);
    const uint64_t at = k * entry;  // for errors: the entry in the relocation table
    const uint32_t local = static_cast<uint32_t>((r.offset - begin) / 8);
    const uint32_t pc = placed.pc + local;
    const uint8_t* insn = code + uint64_t{local} * 8;
    const int32_t imm = bytes::load<int32_t>(insn + 4);
    const Symbol& sym = file_.symbols[r.symbol];
    // Old LLVM (EM_NONE objects) wrote type 0 where R_BPF_64_64 is now.
    uint32_t type = r.type;
    if (type == kRelNone && file_.machine == kEmNone) type = kRel64_64;
    if (type == kRelNone) continue;  // patches nothing: the instruction stays unrelocated
    relocated[local] = 1;
    if (type != kRel64_64 && type != kRel64_32) {
      result = fail(ElfError::unsupported_relocation, rel, at, type);
      break;
    }
    if (sym.shndx == kShnUndef) {
      // A call the caller resolves by name (uBPF's registered functions),
      // else a call of memset/memcpy/memmove/memcmp, which clang emits for
      // some __builtin_mem*: keel's builtin of that name (ADR 0011).
      const bool call = type == kRel64_32 && insn[0] == kOpCall && (insn[1] >> 4) == kPseudoCall;
      int32_t helper = -1;
      if (call && in_.options.extern_helper != nullptr)
        helper = in_.options.extern_helper(in_.options.extern_helper_context, sym.name);
      if (call && helper < 0) {
        const int32_t builtin = builtin_id(sym.name, SIZE_MAX);  // 0: none (ids are 0x10000 up)
        if (builtin != 0) helper = builtin;
      }
      if (helper >= 0) {
        if (out != nullptr) {
          out[uint64_t{pc} * 8 + 1] = static_cast<uint8_t>(insn[1] & 0x0f);  // src 0: a helper call
          bytes::store<int32_t>(out + uint64_t{pc} * 8 + 4, helper);
        }
        continue;
      }
      // Any other extern (kfunc, ksym, kconfig, another object's function):
      // nothing here can resolve it.
      ElfResult missing = fail(ElfError::missing_symbol, rel, at, r.symbol);
      missing.symbol = sym.name;
      note_program_error(program_, missing);
      continue;
    }
    if (sym.shndx >= file_.section_count) {
      result = fail(ElfError::bad_relocation_target, rel, at, r.symbol);
      break;
    }
    // Offsets wrap as unsigned 64-bit values (no signed overflow on
    // hostile addends); range checks below reject what wrapped.
    const uint64_t addend = static_cast<uint64_t>(r.rela ? r.addend : int64_t{imm});
    if (type == kRel64_32) {
      // BPF-to-BPF call: target slot = symbol slot + imm + 1 (REL), or
      // (symbol + addend) / 8 (RELA).
      if (insn[0] != kOpCall || (insn[1] >> 4) != kPseudoCall) {
        result = fail(ElfError::bad_relocation_target, rel, at, insn[0]);
        break;
      }
      const uint64_t target = sym.value + (r.rela ? addend : static_cast<uint64_t>((int64_t{imm} + 1) * 8));
      uint32_t target_pc = 0;
      if (target % 8 != 0 || in_.index.kinds[sym.shndx] != SectionKind::code) {
        result = fail(ElfError::bad_call, rel, at, r.symbol);
        result.symbol = sym.name;
        break;
      }
      result = place(sym.shndx, target / 8, rel, at, target_pc);
      if (result.ok() && out != nullptr) {
        bytes::store<int32_t>(out + uint64_t{pc} * 8 + 4, static_cast<int32_t>(int64_t{target_pc} - pc - 1));
      }
      continue;
    }
    // R_BPF_64_64: a lddw whose imm is a map, global data or a function.
    if (insn[0] != kOpLddw || local + 1 >= f.slots) {
      result = fail(ElfError::bad_relocation_target, rel, at, insn[0]);
      break;
    }
    const uint64_t offset = sym.value + addend;
    const SectionKind kind = in_.index.kinds[sym.shndx];
    uint8_t* patch = out != nullptr ? out + uint64_t{pc} * 8 : nullptr;
    const uint8_t dst = insn[1] & 0x0f;
    if (kind == SectionKind::code) {
      // Address of a function (bpf_loop callbacks): BPF_PSEUDO_FUNC, imm
      // relative to the next slot like a call.
      uint32_t target_pc = 0;
      if (offset % 8 != 0) {
        result = fail(ElfError::bad_call, rel, at, r.symbol);
        result.symbol = sym.name;
        break;
      }
      result = place(sym.shndx, offset / 8, rel, at, target_pc);
      if (result.ok() && patch != nullptr) {
        patch[1] = static_cast<uint8_t>(dst | (kPseudoFunc << 4));
        bytes::store<int32_t>(patch + 4, static_cast<int32_t>(int64_t{target_pc} - pc - 1));
        bytes::store<int32_t>(patch + 12, 0);
      }
    } else if (kind == SectionKind::legacy_maps || kind == SectionKind::btf_maps) {
      uint32_t index = 0;
      if (out == nullptr) continue;
      result = find_map(file_, in_.maps, sym, offset, rel, at, index);
      if (result.ok()) {
        patch[1] = static_cast<uint8_t>(dst | (kPseudoMapFd << 4));
        bytes::store<int32_t>(patch + 4, static_cast<int32_t>(index));
        bytes::store<int32_t>(patch + 12, 0);
      }
    } else if (kind == SectionKind::data && in_.maps.data_map[sym.shndx] >= 0) {
      if (offset > file_.sections[sym.shndx].size) {
        result = fail(ElfError::bad_relocation_target, rel, at, offset);
        break;
      }
      if (patch != nullptr) {
        patch[1] = static_cast<uint8_t>(dst | (kPseudoMapValue << 4));
        bytes::store<int32_t>(patch + 4, in_.maps.data_map[sym.shndx]);
        bytes::store<int32_t>(patch + 12, static_cast<int32_t>(offset));
      }
    } else {
      result = fail(ElfError::bad_relocation_target, rel, at, sym.shndx);
    }
  }
  // Calls with no relocation are pc-relative within the section; every
  // lddw must end inside the function. A map reference with no relocation
  // names no map of the object: libbpf hands it to the kernel as it is, and
  // Linux refuses its imm as a map fd (resolve_pseudo_ldimm64).
  for (uint32_t local = 0; local < f.slots && result.ok(); ++local) {
    const uint8_t* insn = code + uint64_t{local} * 8;
    const uint64_t at = begin + uint64_t{local} * 8;
    if (insn[0] == kOpLddw) {
      if (local + 1 >= f.slots) {
        result = fail(ElfError::bad_program, f.section, at);
      } else if (names_map(insn[1] >> 4) && !relocated[local]) {
        note_program_error(program_, fail(ElfError::unrelocated_map_reference, f.section, at, insn[1] >> 4));
      }
      ++local;
      continue;
    }
    if (insn[0] != kOpCall || (insn[1] >> 4) != kPseudoCall || relocated[local]) continue;
    const int64_t target = int64_t{f.start} + local + 1 + bytes::load<int32_t>(insn + 4);
    const uint32_t pc = placed.pc + local;
    uint32_t target_pc = 0;
    if (target < 0) {
      result = fail(ElfError::bad_call, f.section, at);
      break;
    }
    result = place(f.section, static_cast<uint64_t>(target), f.section, at, target_pc);
    if (result.ok() && out != nullptr)
      bytes::store<int32_t>(out + uint64_t{pc} * 8 + 4, static_cast<int32_t>(int64_t{target_pc} - pc - 1));
  }
  arena_.release_to(mark);
  return result;
}

}  // namespace

ElfResult make_link_scratch(const File& file, uint32_t function_count, Arena& arena, LinkScratch& out) {
  out.placed = arena.allocate<LinkScratch::Placed>(function_count);
  out.placed_of = arena.allocate<int32_t>(function_count);
  if ((out.placed == nullptr || out.placed_of == nullptr) && function_count != 0)
    return error_at(file, ElfError::out_of_memory, 0, 0);
  for (uint32_t i = 0; i < function_count; ++i) out.placed_of[i] = -1;
  out.placed_count = 0;
  return {};
}

ElfResult link_program(const LinkInputs& in, const Function& entry, LinkScratch& scratch, Arena& arena,
                       ElfProgram& program) {
  // Place the entry, then whatever the placed functions reach (the loop
  // sees functions placed while it runs). The second walk over the same
  // placement writes the code.
  for (uint32_t i = 0; i < scratch.placed_count; ++i) scratch.placed_of[scratch.placed[i].function] = -1;
  scratch.placed_count = 0;
  Linker linker(in, scratch, arena, program);
  uint32_t entry_pc = 0;
  ElfResult result = linker.place(entry.section, entry.start, entry.section, uint64_t{entry.start} * 8, entry_pc);
  for (uint32_t i = 0; i < scratch.placed_count && result.ok(); ++i) result = linker.copy(scratch.placed[i], nullptr);
  if (!result.ok()) return result;
  const uint32_t count = scratch.placed_count;
  const uint32_t slots = linker.total_slots();
  uint8_t* insns = arena.allocate<uint8_t>(uint64_t{slots} * 8);
  ElfFunction* functions = arena.allocate<ElfFunction>(count);
  if (insns == nullptr || functions == nullptr) return error_at(in.file, ElfError::out_of_memory, 0, 0);
  for (uint32_t i = 0; i < count && result.ok(); ++i) result = linker.copy(scratch.placed[i], insns);
  if (!result.ok()) return result;
  for (uint32_t i = 0; i < count; ++i) {
    const Function& f = in.functions.functions[scratch.placed[i].function];
    functions[i] = {f.name, f.section, in.file.sections[f.section].name, f.start, scratch.placed[i].pc, f.slots};
  }
  program.insns = insns;
  program.slots = slots;
  program.own_slots = entry.slots;
  program.functions = functions;
  program.function_count = count;
  for (uint32_t pc = 0; pc < slots; ++pc) {
    ++program.instruction_count;
    if (insns[uint64_t{pc} * 8] == kOpLddw) ++pc;
  }
  return {};
}

}  // namespace keel::elf
