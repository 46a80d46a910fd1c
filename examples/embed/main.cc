// Verifies every program of an eBPF object file (`clang -O2 -g -target bpf
// -c` output) through the installed keel library, as Linux would check it.
// Exit status: 0 all accepted, 1 some rejected, 2 the object did not load.
#include <keel/keel.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 2) return std::fprintf(stderr, "usage: %s OBJECT.o\n", argv[0]), 2;
  std::ifstream file(argv[1], std::ios::binary);
  const std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(file), {}};
  // keel allocates nothing: the loaded object (< 1.7x the file, keel/elf.h), then each analysis.
  std::vector<uint8_t> memory(bytes.size() * 4 + (64 << 20));
  keel::Arena arena(memory.data(), memory.size());
  keel::Object object;
  char text[512];
  if (const keel::ElfResult loaded = keel::load_object(bytes.data(), bytes.size(), {}, arena, object); !loaded.ok())
    return keel::describe(loaded, text, sizeof text), std::fprintf(stderr, "%s: %s\n", argv[1], text), 2;
  const size_t object_end = arena.mark();
  int status = 0;
  for (uint32_t i = 0; i < object.program_count; ++i) {
    const keel::ElfProgram& program = object.programs[i];
    const keel::ProgramType* type = keel::find_program_type(keel::linux_platform(), program.type_name);
    arena.release_to(object_end);  // the previous program's decoded form and analysis
    keel::Program decoded;
    if (type == nullptr || !keel::decode(program.insns, program.slots * size_t{8}, {}, arena, decoded).ok()) {
      std::printf("%s: error: not a Linux program keel can decode\n", program.name);
      status = 2;
      continue;
    }
    keel::VerifyOptions options;
    options.linux_rules = true;               // Linux 6.1's instruction set and rules,
    options.allow_uninit_stack_reads = true;  // privileged (as `keel verify`)
    options.maps = object.maps;
    options.map_count = object.map_count;
    const keel::Verdict verdict = keel::verify(decoded, *type, options, arena);
    keel::describe(verdict, text, sizeof text);
    std::printf("%s: %s: %s\n", program.name, verdict.ok() ? "accept" : "reject", text);
    if (!verdict.ok() && status == 0) status = 1;
  }
  return status;
}
