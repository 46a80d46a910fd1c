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
#include "support/result.h"
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

// Links one program in two steps. `walk` reads one placed function once:
// it decodes its relocations, places what they reach (placing gives the
// target's pc at once), checks everything, and records each write the
// linked code needs as a LinkScratch::Patch. Once every reached function is
// placed, the program's size is known and `write` copies the placed
// functions and applies the patches in the order the walk recorded them.
// Earlier versions walked every function twice (once to place, once to
// write), decoding each relocation both times.
class Linker {
 public:
  Linker(const LinkInputs& in, LinkScratch& scratch, Arena& arena, ElfProgram& program)
      : in_(in), file_(in.file), scratch_(scratch), arena_(arena), program_(program) {}

  ElfResult place(uint32_t section, uint64_t slot, uint32_t from_section, uint64_t from_offset, uint32_t& pc);
  ElfResult call(uint32_t section, uint64_t slot, uint32_t from_section, uint64_t from_offset, uint32_t pc);
  ElfResult walk(const LinkScratch::Placed& placed);
  ElfResult write(uint8_t* out) const;
  uint32_t total_slots() const { return total_slots_; }
  uint32_t instruction_count() const { return instruction_count_; }

 private:
  using Patch = LinkScratch::Patch;

  ElfResult fail(ElfError error, uint32_t section, uint64_t offset, uint64_t value = 0) const {
    return error_at(file_, error, section, offset, value);
  }
  // The next patch, growing the array (twice the size, from the arena) when
  // it is full; nullptr when the arena is. The array lives in the scratch,
  // reused by the object's later programs, so the arrays left behind by
  // growing add up to less than the last one.
  Patch* record(Patch::Kind kind, uint32_t pc) {
    if (scratch_.patch_count == scratch_.patch_capacity) {
      const size_t capacity = scratch_.patch_capacity * 2 + 16;
      // Entries [0, patch_count) are copied; the rest are written before
      // they are read (only [0, patch_count) is ever read).
      Patch* grown = arena_.allocate_uninitialized<Patch>(capacity);
      if (grown == nullptr) return nullptr;
      if (scratch_.patch_count != 0) __builtin_memcpy(grown, scratch_.patches, scratch_.patch_count * sizeof(Patch));
      scratch_.patches = grown;
      scratch_.patch_capacity = capacity;
    }
    Patch* p = &scratch_.patches[scratch_.patch_count++];
    p->kind = kind;
    p->pc = pc;
    return p;
  }

  const LinkInputs& in_;
  const File& file_;
  LinkScratch& scratch_;
  Arena& arena_;
  ElfProgram& program_;
  uint32_t total_slots_ = 0;
  uint32_t instruction_count_ = 0;
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

// A BPF-to-BPF call at `pc` of (section, slot): places the callee and
// records the call's imm, relative to the next slot.
ElfResult Linker::call(uint32_t section, uint64_t slot, uint32_t from_section, uint64_t from_offset, uint32_t pc) {
  uint32_t target_pc = 0;
  KEEL_TRY(place(section, slot, from_section, from_offset, target_pc));
  Patch* p = record(Patch::imm_only, pc);
  if (p == nullptr) return fail(ElfError::out_of_memory, 0, 0);
  p->imm = static_cast<int32_t>(int64_t{target_pc} - pc - 1);
  return {};
}

// Finds the code references of one placed function, placing their targets
// and recording the patches that relocate them.
ElfResult Linker::walk(const LinkScratch::Placed& placed) {
  const Function& f = in_.functions.functions[placed.function];
  const Section& s = file_.sections[f.section];
  const uint8_t* code = s.data + uint64_t{f.start} * 8;

  const uint64_t begin = uint64_t{f.start} * 8, end = begin + uint64_t{f.slots} * 8;
  // The relocations inside [begin, end), sorted by offset.
  const RelocationRef* refs = in_.relocations.refs;
  const uint64_t last = in_.relocations.first[f.section + 1];
  const uint64_t first =
      partition_index(in_.relocations.first[f.section], last, [&](uint64_t i) { return refs[i].offset < begin; });
  // The slots a relocation patches, in ascending order (the relocations are
  // sorted by offset): at most one per relocation of the section from
  // `first` on, which make_link_scratch sized scratch_.relocated for. Only
  // entries written here are read.
  uint32_t* relocated = scratch_.relocated;
  uint32_t relocated_count = 0;
  ElfResult result;
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
    relocated[relocated_count++] = local;
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
        Patch* p = record(Patch::helper_call, pc);
        if (p == nullptr) {
          result = fail(ElfError::out_of_memory, 0, 0);
          break;
        }
        p->byte1 = static_cast<uint8_t>(insn[1] & 0x0f);  // src 0: a helper call
        p->imm = helper;
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
      if (target % 8 != 0 || in_.index.kinds[sym.shndx] != SectionKind::code) {
        result = fail(ElfError::bad_call, rel, at, r.symbol);
        result.symbol = sym.name;
        break;
      }
      result = call(sym.shndx, target / 8, rel, at, pc);
      if (!result.ok()) break;
      continue;
    }
    // R_BPF_64_64: a lddw whose imm is a map, global data or a function.
    if (insn[0] != kOpLddw || local + 1 >= f.slots) {
      result = fail(ElfError::bad_relocation_target, rel, at, insn[0]);
      break;
    }
    const uint64_t offset = sym.value + addend;
    const SectionKind kind = in_.index.kinds[sym.shndx];
    const uint8_t dst = insn[1] & 0x0f;
    Patch* p = nullptr;
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
      if (!result.ok()) break;
      p = record(Patch::lddw, pc);
      if (p != nullptr) {
        p->byte1 = static_cast<uint8_t>(dst | (kPseudoFunc << 4));
        p->imm = static_cast<int32_t>(int64_t{target_pc} - pc - 1);
        p->imm2 = 0;
      }
    } else if (kind == SectionKind::legacy_maps || kind == SectionKind::btf_maps) {
      // The map is looked up when the code is written (Linker::write), after
      // every function of the program has been walked: a map the object
      // does not define is reported only when nothing else failed first.
      p = record(Patch::map, pc);
      if (p != nullptr) {
        p->byte1 = static_cast<uint8_t>(dst | (kPseudoMapFd << 4));
        p->symbol = r.symbol;
        p->table = rel;
        p->offset = offset;
        p->at = at;
      }
    } else if (kind == SectionKind::data && in_.maps.data_map[sym.shndx] >= 0) {
      if (offset > file_.sections[sym.shndx].size) {
        result = fail(ElfError::bad_relocation_target, rel, at, offset);
        break;
      }
      p = record(Patch::lddw, pc);
      if (p != nullptr) {
        p->byte1 = static_cast<uint8_t>(dst | (kPseudoMapValue << 4));
        p->imm = in_.maps.data_map[sym.shndx];
        p->imm2 = static_cast<int32_t>(offset);
      }
    } else {
      result = fail(ElfError::bad_relocation_target, rel, at, sym.shndx);
      break;
    }
    if (p == nullptr) result = fail(ElfError::out_of_memory, 0, 0);
  }
  // Calls with no relocation are pc-relative within the section; every
  // lddw must end inside the function. A map reference with no relocation
  // names no map of the object: libbpf hands it to the kernel as it is, and
  // Linux refuses its imm as a map fd (resolve_pseudo_ldimm64).
  uint32_t next = 0;  // the first relocated[] entry not below `local`
  uint32_t lddw_count = 0;
  // (Every failure below breaks out; a failed relocation skips the scan.)
  for (uint32_t local = 0; local < (result.ok() ? f.slots : 0); ++local) {
    const uint8_t* insn = code + uint64_t{local} * 8;
    if (insn[0] != kOpLddw && insn[0] != kOpCall) continue;  // nothing below looks at other opcodes
    const uint64_t at = begin + uint64_t{local} * 8;
    while (next < relocated_count && relocated[next] < local) ++next;
    const bool is_relocated = next < relocated_count && relocated[next] == local;
    if (insn[0] == kOpLddw) {
      if (local + 1 >= f.slots) {
        result = fail(ElfError::bad_program, f.section, at);
        break;
      }
      if (names_map(insn[1] >> 4) && !is_relocated)
        note_program_error(program_, fail(ElfError::unrelocated_map_reference, f.section, at, insn[1] >> 4));
      ++lddw_count;
      ++local;
      continue;
    }
    if ((insn[1] >> 4) != kPseudoCall || is_relocated) continue;
    const int64_t target = int64_t{f.start} + local + 1 + bytes::load<int32_t>(insn + 4);
    if (target < 0) {
      result = fail(ElfError::bad_call, f.section, at);
      break;
    }
    result = call(f.section, static_cast<uint64_t>(target), f.section, at, placed.pc + local);
    if (!result.ok()) break;
  }
  // The instructions of the function: a lddw takes two slots. When the walk
  // succeeds no lddw ends the function, so the program's count is the sum of
  // its functions' counts (the opcodes are the section's: patches never
  // change byte 0).
  instruction_count_ += f.slots - lddw_count;
  return result;
}

// Copies every placed function to its pc, then applies the walk's patches
// in the order they were recorded (so the first map the object does not
// define is the one reported).
ElfResult Linker::write(uint8_t* out) const {
  for (uint32_t i = 0; i < scratch_.placed_count; ++i) {
    const Function& f = in_.functions.functions[scratch_.placed[i].function];
    const uint8_t* code = file_.sections[f.section].data + uint64_t{f.start} * 8;
    __builtin_memcpy(out + uint64_t{scratch_.placed[i].pc} * 8, code, uint64_t{f.slots} * 8);
  }
  for (size_t i = 0; i < scratch_.patch_count; ++i) {
    const Patch& p = scratch_.patches[i];
    uint8_t* insn = out + uint64_t{p.pc} * 8;
    switch (p.kind) {
      case Patch::imm_only:
        bytes::store<int32_t>(insn + 4, p.imm);
        break;
      case Patch::helper_call:
        insn[1] = p.byte1;
        bytes::store<int32_t>(insn + 4, p.imm);
        break;
      case Patch::lddw:
        insn[1] = p.byte1;
        bytes::store<int32_t>(insn + 4, p.imm);
        bytes::store<int32_t>(insn + 12, p.imm2);
        break;
      case Patch::map: {
        uint32_t index = 0;
        KEEL_TRY(find_map(file_, in_.maps, file_.symbols[p.symbol], p.offset, p.table, p.at, index));
        insn[1] = p.byte1;
        bytes::store<int32_t>(insn + 4, static_cast<int32_t>(index));
        bytes::store<int32_t>(insn + 12, 0);
        break;
      }
    }
  }
  return {};
}

}  // namespace

ElfResult make_link_scratch(const LinkInputs& in, Arena& arena, LinkScratch& out) {
  const uint32_t function_count = in.functions.count;
  out.placed = arena.allocate<LinkScratch::Placed>(function_count);
  out.placed_of = arena.allocate<int32_t>(function_count);
  if ((out.placed == nullptr || out.placed_of == nullptr) && function_count != 0)
    return error_at(in.file, ElfError::out_of_memory, 0, 0);
  for (uint32_t i = 0; i < function_count; ++i) out.placed_of[i] = -1;
  out.placed_count = 0;
  // The relocated slots of one walk: at most the relocations of the
  // largest code section. The patches start with room for every code
  // relocation and grow when unrelocated calls need more (Linker::record).
  uint64_t largest = 0;
  for (uint32_t sec = 0; sec < in.file.section_count; ++sec) {
    const uint64_t n = in.relocations.first[sec + 1] - in.relocations.first[sec];
    if (n > largest) largest = n;
  }
  // Both counts are at most the relocations' total, which index_code_relocations
  // keeps within kMaxSlots (2^30): size_t values on 32-bit targets too.
  out.relocated = arena.allocate_uninitialized<uint32_t>(static_cast<size_t>(largest));
  const size_t capacity = static_cast<size_t>(in.relocations.first[in.file.section_count]) + 16;
  // Only entries written first are read (patches[0 .. patch_count)).
  out.patches = arena.allocate_uninitialized<LinkScratch::Patch>(capacity);
  if (out.patches == nullptr || (out.relocated == nullptr && largest != 0))
    return error_at(in.file, ElfError::out_of_memory, 0, 0);
  out.patch_capacity = capacity;
  out.patch_count = 0;
  return {};
}

ElfResult link_program(const LinkInputs& in, const Function& entry, LinkScratch& scratch, Arena& arena,
                       ElfProgram& program) {
  // Place the entry, then whatever the placed functions reach (the loop
  // sees functions placed while it runs), then write the code.
  for (uint32_t i = 0; i < scratch.placed_count; ++i) scratch.placed_of[scratch.placed[i].function] = -1;
  scratch.placed_count = 0;
  scratch.patch_count = 0;
  Linker linker(in, scratch, arena, program);
  uint32_t entry_pc = 0;
  ElfResult result = linker.place(entry.section, entry.start, entry.section, uint64_t{entry.start} * 8, entry_pc);
  for (uint32_t i = 0; i < scratch.placed_count && result.ok(); ++i) result = linker.walk(scratch.placed[i]);
  if (!result.ok()) return result;
  const uint32_t count = scratch.placed_count;
  const uint32_t slots = linker.total_slots();
  // Neither array needs zeroing: place() gives the placed functions
  // consecutive pcs from 0 (each starts where the one before ends), so the
  // copies in write() cover every byte of insns; the loop below fills every
  // entry of functions.
  uint8_t* insns = arena.allocate_uninitialized<uint8_t>(uint64_t{slots} * 8);
  ElfFunction* functions = arena.allocate_uninitialized<ElfFunction>(count);
  if (insns == nullptr || functions == nullptr) return error_at(in.file, ElfError::out_of_memory, 0, 0);
  KEEL_TRY(linker.write(insns));
  for (uint32_t i = 0; i < count; ++i) {
    const Function& f = in.functions.functions[scratch.placed[i].function];
    functions[i] = {f.name, f.section, in.file.sections[f.section].name, f.start, scratch.placed[i].pc, f.slots};
  }
  program.insns = insns;
  program.slots = slots;
  program.own_slots = entry.slots;
  program.functions = functions;
  program.function_count = count;
  program.instruction_count += linker.instruction_count();
  return {};
}

}  // namespace keel::elf
