// The suite blob: the conformance files and Linux selftest cases after the
// host has parsed them (text formats, JSON, assembly, map fixups), as
// records that a freestanding reader walks without copying. `keel
// suite-pack` writes it; the bare-metal runner (runner/) reads it through
// semihosting. Every integer is little-endian and read byte by byte, so
// the blob means the same on any ISA and needs no alignment.
//
//   blob    := "KEELSUIT" u32 version(1) record* u32 0
//   record  := u32 kind, then by kind:
//     1 data_run   str path, bytes program, bytes mem, u64 expected_r0
//     2 data_line  str path, u32 outcome (0 pass, 1 fail, 2 not applicable), str why
//     3 case_run   str id, str name, u32 expect_accept, str type, u32 strict_alignment,
//                  u32 privileged, u32 map_count, map*, bytes program
//     4 case_skip  str id, str name, u32 expect_accept, str reason
//   map     := u32 type, key_size, value_size, max_entries, read_only, write_only
//   str     := u32 length (NUL included) + bytes ending in NUL
//   bytes   := u32 length + bytes
//
// data_line carries a verdict the host reached before any program ran (a
// file that is not applicable, or fails to assemble): the runner prints
// it as it is. Everything else is computed by the runner itself.
#pragma once

#include <cstddef>
#include <cstdint>

#include "keel/platform.h"

namespace keel::suite {

inline constexpr char kBlobMagic[8] = {'K', 'E', 'E', 'L', 'S', 'U', 'I', 'T'};
inline constexpr uint32_t kBlobVersion = 1;
// Maps one case may name (the corpus uses at most a handful).
inline constexpr uint32_t kMaxCaseMaps = 16;

enum class RecordKind : uint32_t { end = 0, data_run = 1, data_line = 2, case_run = 3, case_skip = 4 };

struct Record {
  RecordKind kind = RecordKind::end;
  const char* name = nullptr;  // path (data_*) or id (case_*)
  const char* title = nullptr; // case_*: the test's name
  const char* text = nullptr;  // data_line: why; case_run: program type; case_skip: reason
  uint32_t outcome = 0;        // data_line
  bool expect_accept = false;  // case_*
  bool strict_alignment = false;
  bool privileged = true;
  const uint8_t* program = nullptr;
  size_t program_size = 0;
  const uint8_t* mem = nullptr;  // data_run
  size_t mem_size = 0;
  uint64_t expected_r0 = 0;
  MapDescriptor maps[kMaxCaseMaps];
  uint32_t map_count = 0;
};

class BlobReader {
 public:
  BlobReader(const uint8_t* bytes, size_t size) : bytes_(bytes), size_(size) {}

  // Checks the header; false (with error()) when it is not a blob of this version.
  [[nodiscard]] bool open();
  // The next record; false at the end or on a malformed record (then
  // error() is non-null and says what is wrong).
  [[nodiscard]] bool next(Record& record);
  const char* error() const { return error_; }
  size_t offset() const { return offset_; }

 private:
  bool u32(uint32_t& value);
  bool u64(uint64_t& value);
  bool bytes(const uint8_t*& data, size_t& size);
  bool str(const char*& text);
  bool fail(const char* why) {
    error_ = why;
    return false;
  }

  const uint8_t* bytes_;
  size_t size_;
  size_t offset_ = 0;
  const char* error_ = nullptr;
};

}  // namespace keel::suite
