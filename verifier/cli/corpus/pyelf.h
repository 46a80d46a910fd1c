// The `-- pyelf` section of uBPF's tests/elf/*.data: Python statements that
// edit a template relocatable object (uBPF's test_framework/test_elf.py)
// before it is written out. keel runs no Python: this is its own template
// (a `.text` calling the external function `sqrti`, see pyelf.cc) and an
// interpreter of exactly the statement forms those files use; anything else
// is an error naming the line, never a silent skip.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli.h"
#include "keel/elf.h"

namespace keel::cli::pyelf {

// A little-endian field of a record part ("e_shoff", "e_ident.EI_DATA").
struct Field {
  std::string name;
  uint8_t width = 0;  // bytes, 1 to 8
  uint64_t value = 0;
};

// One named piece of the file: a record of fields (a header, a symbol, a
// relocation) or raw bytes (code, string tables, padding).
struct Part {
  std::string name;
  std::vector<Field> fields;  // empty for raw bytes
  Bytes raw;

  bool is_record() const { return !fields.empty(); }
  Field* field(const std::string& path);
  const Field* field(const std::string& path) const;
  void serialize(Bytes& out) const;
  size_t size() const;
};

// Section indices of the template.
inline constexpr uint32_t kTextSection = 1, kRelSection = 2, kSymtabSection = 3, kStrtabSection = 4,
                          kShstrtabSection = 5, kSectionCount = 6;

class ElfTemplate {
 public:
  // The template, every offset computed from its own layout (a statement
  // that changes a size does not move what follows it: it overrides).
  ElfTemplate();

  // Runs one statement; false with `why` when it is outside the grammar or
  // names something the template does not have.
  bool run(const std::string& statement, std::string& why);

  // The parts named by `order`, in that order.
  Bytes serialize() const;

  const Part* part(const std::string& name) const;
  const std::vector<std::string>& order() const { return order_; }

 private:
  Part* find(const std::string& name);
  Part& add(Part part);
  std::vector<Part> parts_;
  std::vector<std::string> order_;
};

// The template after every statement of `body` (a -- pyelf section whose
// first line is line `first_line` of its file); false with `why` ("line N:
// ...") at the first statement that fails.
bool build_object(const std::string& body, uint32_t first_line, Bytes& out, std::string& why);

// Loads `object` with keel's ELF loader as uBPF's ubpf_load_elf() takes
// one: the whole `.text` is the program (TextPrograms::whole_section) and a
// call of an undefined symbol names a helper of the conformance runner
// (conformance_helper_id). On success `program` holds its relocated bytes.
ElfResult load_like_ubpf(const Bytes& object, Bytes& program);

}  // namespace keel::cli::pyelf
