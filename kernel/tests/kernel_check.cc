// keel-kernel-check: the host side of the kernel's semantic-consistency
// test. Runs each object given on the command line through the kernel's
// own pipeline (kernel/bpf: the same program types, helper table, load and
// verify options, built for the host) and prints the `keel load`, `keel
// verify` and `keel reject` lines the kernel prints for it, minus the
// kernel's timings. compare-verdicts diffs them with a boot's UART log.
//
//   keel-kernel-check OBJECT.bpf.o...    (exit 0; 2 on unreadable input)
#include <cstdio>
#include <vector>

#include "bpf/pipeline.h"

namespace {

void print(const keel::Line& line) { std::printf("%s\n", line.text()); }

bool check(const char* path) {
  std::FILE* file = std::fopen(path, "rb");
  if (file == nullptr) {
    std::fprintf(stderr, "keel-kernel-check: cannot open %s\n", path);
    return false;
  }
  std::vector<uint8_t> bytes;
  uint8_t buffer[4096];
  size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, file)) > 0) bytes.insert(bytes.end(), buffer, buffer + n);
  std::fclose(file);

  // The kernel's arena sizes are limits there; here only the verdict counts.
  std::vector<uint8_t> program_memory(1 << 20);
  std::vector<uint8_t> verify_memory(1 << 20);
  keel::Arena program_arena(program_memory.data(), program_memory.size());
  keel::Object object;
  const keel::ElfResult loaded = keel::bpf::load(bytes.data(), bytes.size(), program_arena, object);
  if (!loaded.ok()) {
    std::printf("keel load object=%s status=fail reason=%s\n", path, keel::elf_error_name(loaded.error));
    return true;
  }
  for (uint32_t p = 0; p < object.program_count; ++p) {
    const keel::ElfProgram& program = object.programs[p];
    const keel::ProgramType* type = keel::bpf::program_type(program);
    print(keel::bpf::load_line(program, type));
    keel::bpf::Outcome outcome;
    if (type == nullptr) {
      outcome = keel::bpf::load_outcome(program);
    } else {
      keel::Program decoded;
      const keel::DecodeResult d = keel::bpf::decode_program(program, *type, program_arena, decoded);
      if (!d.ok()) {
        outcome = keel::bpf::decode_outcome(d);
      } else {
        keel::Arena scratch(verify_memory.data(), verify_memory.size());
        outcome = keel::bpf::verify_outcome(keel::bpf::verify_program(decoded, *type, object, scratch));
      }
    }
    print(keel::bpf::verify_line(program, outcome));
    if (!outcome.accepted) print(keel::bpf::reject_line(program, outcome));
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  bool ok = true;
  for (int i = 1; i < argc; ++i) ok = check(argv[i]) && ok;
  return ok ? 0 : 2;
}
