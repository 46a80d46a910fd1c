#include "listing.h"

#include <cstdio>
#include <cstring>

#include "cli.h"
#include "keel/platform_linux.h"

namespace keel::cli {

namespace {

// What the hooks of ListingOptions read for an object's program.
struct Names {
  const Object* object = nullptr;
  const ElfProgram* program = nullptr;
  const std::vector<DataSymbol>* symbols = nullptr;
};

const char* map_name(const void* context, uint32_t index) {
  const Names& names = *static_cast<const Names*>(context);
  return index < names.object->map_count ? names.object->map_info[index].name : nullptr;
}

// The data symbol of the global-data map `index` covering byte `offset`.
const char* variable_at(const void* context, uint32_t index, int32_t offset, int32_t* within) {
  const Names& names = *static_cast<const Names*>(context);
  if (index >= names.object->map_count || offset < 0) return nullptr;
  const ElfMap& map = names.object->map_info[index];
  if (map.kind != ElfMapKind::global_data) return nullptr;
  const auto at = static_cast<uint64_t>(offset);
  for (const DataSymbol& symbol : *names.symbols) {
    if (symbol.section != map.section_index || at < symbol.value) continue;
    if (at < symbol.value + symbol.size || (symbol.size == 0 && at == symbol.value)) {
      *within = static_cast<int32_t>(at - symbol.value);
      return symbol.name.c_str();
    }
  }
  return nullptr;
}

const char* function_at(const void* context, size_t slot) {
  const Names& names = *static_cast<const Names*>(context);
  for (uint32_t i = 0; i < names.program->function_count; ++i) {
    if (names.program->functions[i].pc == slot) return names.program->functions[i].name;
  }
  return nullptr;
}

// Slots that some jump or local call lands on.
std::vector<bool> jump_targets(const uint8_t* bytes, size_t slots) {
  std::vector<bool> targets(slots, false);
  for (size_t pc = 0; pc < slots; ++pc) {
    size_t target = 0;
    if (jump_target(bytes, slots, pc, target)) targets[target] = true;
  }
  return targets;
}

void print_lines(const uint8_t* bytes, size_t slots, size_t first, size_t end, const ListingOptions& options,
                 const ElfProgram* program, const ListingStyle& style) {
  const std::vector<bool> targets = jump_targets(bytes, slots);
  char line[512];
  const SourceLine* last_source = nullptr;
  for (size_t pc = first; pc < end && pc < slots;) {
    // The first function is named by the listing's heading already.
    const char* function =
        options.function_at != nullptr && pc != first ? options.function_at(options.context, pc) : nullptr;
    if (function != nullptr) {
      std::printf("%s:\n", function);
    } else if (targets[pc]) {
      std::printf(".L%zu:\n", pc);  // as text::write_label names it
    }
    if (style.source && program != nullptr) {
      const SourceLine* source = find_source_line(*program, static_cast<uint32_t>(pc));
      // A record per statement or column: print a line once until another one comes.
      const bool same_line = source != nullptr && last_source != nullptr && source->line == last_source->line &&
                             source->file == last_source->file;
      if (source != nullptr && !same_line && source->pc == pc && source->file != nullptr) {
        const char* text = source->text != nullptr ? source->text : "";
        while (*text == ' ' || *text == '\t') ++text;
        const char* base = std::strrchr(source->file, '/');
        std::printf("; %s:%u: %s\n", base != nullptr ? base + 1 : source->file, source->line, text);
        last_source = source;
      }
    }
    const size_t used = disassemble_line(bytes, slots, pc, options, line, sizeof line);
    if (used == 0) throw CliError("disasm: cannot render the instruction at pc " + std::to_string(pc));
    std::printf("%4zu: %s\n", pc, line);
    pc += used;
  }
}

}  // namespace

void print_listing(const uint8_t* bytes, size_t slots, const ListingStyle& style) {
  ListingOptions options;
  options.syntax = style.syntax;
  options.labels = true;
  print_lines(bytes, slots, 0, slots, options, nullptr, style);
}

void print_listing(const Object& object, const ElfProgram& program, const std::vector<DataSymbol>& symbols,
                   const ListingStyle& style, uint32_t first, uint32_t end) {
  const Names names{&object, &program, &symbols};
  ListingOptions options;
  options.syntax = style.syntax;
  options.labels = true;
  options.helper_name = linux_helper_name;
  options.map_name = map_name;
  options.variable_at = variable_at;
  options.function_at = function_at;
  options.context = &names;
  print_lines(program.insns, program.slots, first, end, options, &program, style);
}

FoundFunction find_subprogram(const Object& object, const std::string& section, const std::string& name) {
  for (uint32_t i = 0; i < object.program_count; ++i) {
    const ElfProgram& program = object.programs[i];
    if (!program.status.ok() || (!section.empty() && section != program.section)) continue;
    for (uint32_t f = 0; f < program.function_count; ++f) {
      if (program.functions[f].name != nullptr && name == program.functions[f].name)
        return FoundFunction{&program, &program.functions[f]};
    }
  }
  return {};
}

}  // namespace keel::cli
