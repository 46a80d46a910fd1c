// keel-corpus test-data PATH...: runs bpf_conformance / uBPF `.data` files.
//   -- result        must be produced in guarded mode (the -- mem buffer a
//                    writable region) and in fast mode, and the program
//                    should be accepted by the verifier as the "conformance"
//                    type (context = the -- mem buffer); a rejection is a
//                    VERIFY-REJECT line, counted apart, not a failure: it
//                    measures the verifier, not the file;
//   -- error         must be refused at load for the same reason at the same pc;
//   -- error pattern must load, then trap in guarded mode at that pc;
//   -- asm + -- raw alone: an encoding test (the assembler must produce -- raw);
//   -- pyelf         the program comes from an ELF object: keel's template
//                    after the file's statements (pyelf.h), loaded by keel's
//                    ELF loader as uBPF loads one (the whole `.text` is the
//                    program, calls of undefined symbols name the runner's
//                    helpers); its -- error is the loader's (same reason).
// Every program must also survive disassemble -> assemble unchanged.
// One line per file, then "verifier: A accepted, R rejected", then
// "skipped: K (...)" when files were N/A, and last exactly "N passed, M failed".
// A plain -- result file runs through suite/conformance_case.h, as in the
// bare-metal runner; `keel suite-pack` packs the files for it (test_data.h).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "commands.h"
#include "conformance_case.h"
#include "data_file.h"
#include "keel/elf.h"
#include "object_file.h"
#include "program.h"
#include "pyelf.h"
#include "test_data.h"
#include "ubpf_wording.h"
#include "verification.h"

namespace keel::cli {

namespace {

// Files that cannot pass, and why — the one list, mirrored in
// docs/conformance-exceptions.md. Rules by content (whole families of
// files) are in check_file(); single files are matched by the end of their path.
constexpr const char* kMissingIncludeReason = "content file missing from the corpus";
constexpr const char* kReloadReason =
    "-- reload: tests that uBPF refuses code loaded twice into one VM; keel's decode keeps no VM state";
struct NotApplicable {
  const char* path_suffix;
  const char* reason;
};
constexpr NotApplicable kNotApplicable[] = {
    {"errors/err-unknown-opcode.data",
     "opcode 0x06 is RFC 9669's JMP32 JA (gotol, §4.3.1, Table 4), unknown to this uBPF; "
     "keel decodes the file's `ja32 +0; exit` as a valid program"},
    {"errors/err-lddw-invalid-src.data",
     "lddw src 1 is RFC 9669's map-by-fd load (§5.4, Table 12), unknown to this uBPF; keel accepts "
     "the instruction and refuses the program only because it ends without exit (fall_through_end)"},
};

DataVerdict pass() { return {Outcome::pass, ""}; }
DataVerdict fail(const std::string& why) { return {Outcome::fail, why}; }

// The program's bytes: assembled from -- asm (and then equal to -- raw when
// both are given: -- raw is the expected encoding), or -- raw alone.
bool program_bytes(const DataFile& data, Bytes& out, std::string& why) {
  if (data.has_asm) {
    // uBPF's assembler takes %r11..%r15 (its error tests need them).
    AsmOptions options;
    options.any_register_field = true;
    const AsmResult result = assemble_text(data.asm_text, out, options);
    if (!result.ok()) {
      why = "assembler: " + std::string(asm_error_name(result.error)) + " at line " +
            std::to_string(data.asm_line + result.line) + " column " + std::to_string(result.column);
      return false;
    }
    if (data.has_raw && out != data.raw) {
      const size_t slots = std::max(out.size(), data.raw.size()) / 8;
      for (size_t slot = 0; slot < slots; ++slot) {
        const bool have_got = slot * 8 < out.size(), have_want = slot * 8 < data.raw.size();
        if (have_got && have_want && slot_at(out, slot) == slot_at(data.raw, slot)) continue;
        why = "assembler: slot " + std::to_string(slot) + " is " + (have_got ? hex(slot_at(out, slot)) : "missing") +
              ", -- raw says " + (have_want ? hex(slot_at(data.raw, slot)) : "nothing");
        return false;
      }
    }
  } else if (data.has_raw) {
    out = data.raw;
  } else {
    why = "no -- asm or -- raw section";
    return false;
  }
  if (out.empty()) {
    why = "empty program";
    return false;
  }
  return true;
}

std::string load_error_text(const DecodeResult& result) {
  char text[64];
  suite::decode_error_text(result, text, sizeof text);
  return text;
}

DataVerdict check_load_error(const DataFile& data, const DecodeResult& loaded) {
  ExpectedLoadError expected;
  if (!map_load_error(data.error, expected)) return fail("uBPF error wording not in the table: \"" + data.error + "\"");
  std::string want = decode_error_name(expected.error);
  if (expected.has_pc) want += " at pc " + std::to_string(expected.pc);
  if (loaded.ok()) return fail("loaded, expected " + want);
  if (loaded.error != expected.error || (expected.has_pc && loaded.pc != expected.pc))
    return fail("refused with " + load_error_text(loaded) + ", expected " + want);
  return pass();
}

// -- pyelf: builds the object and loads it; true with the program's bytes
// in `out`, or false with the file's verdict (a -- error matched or not).
bool pyelf_program(const DataFile& data, Bytes& out, DataVerdict& verdict) {
  if (data.has_asm || data.has_raw) {
    verdict = fail("-- pyelf with -- asm or -- raw (a replaced .text) is not supported");
    return false;
  }
  Bytes object;
  std::string why;
  if (!pyelf::build_object(data.pyelf_text, data.pyelf_line + 1, object, why)) {
    verdict = fail(why);
    return false;
  }
  const ElfResult result = pyelf::load_like_ubpf(object, out);
  if (data.has_error) {
    ExpectedElfError expected;
    if (!map_elf_error(data.error, expected)) {
      verdict = fail("uBPF error wording not in the table: \"" + data.error + "\"");
    } else if (result.ok()) {
      verdict = fail("ELF loaded, expected " + expected.describe());
    } else if (!expected.accepts(result)) {
      verdict = fail("ELF refused with " + elf_message(result) + ", expected " + expected.describe());
    } else {
      verdict = pass();
    }
    return false;
  }
  if (!result.ok()) {
    verdict = fail("ELF refused with " + elf_message(result));
    return false;
  }
  return true;
}

DataVerdict check_run_error(const DataFile& data, const Program& program) {
  ExpectedTrap expected;
  if (!map_run_error(data.error_pattern, expected))
    return fail("uBPF error wording not in the table: \"" + data.error_pattern + "\"");
  std::string want = expected.describe();
  if (expected.has_pc) want += " at pc " + std::to_string(expected.pc);
  const RunResult result = execute(program, data.mem, RunMode::guarded, RunOptions{}.insn_budget);
  if (result.status == RunStatus::ok) return fail("guarded: ran to r0 = " + hex(result.r0) + ", expected trap " + want);
  if (!expected.accepts(result.status) || (expected.has_pc && result.pc != expected.pc))
    return fail("guarded: " + trap_message(result) + ", expected " + want);
  return pass();
}

// A plain -- result file (no -- error, -- error pattern or -- unload): the
// very function the bare-metal runner calls on its blob's data_run records.
bool plain_result(const DataFile& data) {
  return data.has_result && !data.has_error && !data.has_error_pattern && !data.unload;
}

DataVerdict check_plain_result(const DataFile& data, const Bytes& bytes) {
  const auto verify_memory = std::make_unique_for_overwrite<uint8_t[]>(suite::kConformanceArenaBytes);
  const size_t decode_size = bytes.size() * 8 + 65536;  // the decoded form is 16 bytes a slot
  const auto decode_memory = std::make_unique_for_overwrite<uint8_t[]>(decode_size);
  const auto stack = std::make_unique<RunStack>();
  Bytes mem_copy(data.mem.size());
  Arena decode_arena(decode_memory.get(), decode_size);
  Arena verify_arena(verify_memory.get(), suite::kConformanceArenaBytes);
  const suite::ConformanceScratch scratch{mem_copy.data(), mem_copy.size(), stack.get()};
  suite::ConformanceOutcome outcome;
  suite::check_conformance_file(bytes.data(), bytes.size(), data.mem.data(), data.mem.size(), data.result,
                                RunOptions{}.insn_budget, decode_arena, verify_arena, scratch, outcome);
  DataVerdict verdict = outcome.passed ? pass() : fail(outcome.why);
  if (outcome.verified) {
    verdict.verified = outcome.accepted ? Verified::accepted : Verified::rejected;
    if (!outcome.accepted) verdict.verify_why = outcome.verify_why;
  }
  return verdict;
}

// Reads `path` and gets its program's bytes; false with the file's final
// verdict when it is decided before any decode (not applicable, malformed,
// does not assemble, an encoding test, an object the -- pyelf loader refuses).
bool prepare_file(const std::string& path, DataFile& data, Bytes& bytes, DataVerdict& verdict) {
  for (const NotApplicable& entry : kNotApplicable) {
    const std::string suffix = entry.path_suffix;
    if (path.size() >= suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0) {
      verdict = {Outcome::not_applicable, entry.reason};
      return false;
    }
  }
  const DataLoad load = load_data_file(path, data);
  if (load.status == DataStatus::missing_include) {
    verdict = {Outcome::not_applicable, std::string(kMissingIncludeReason) + " (" + load.detail + ")"};
    return false;
  }
  if (load.status != DataStatus::ok) {
    verdict = fail("malformed: " + load.detail);
    return false;
  }
  if (data.reload) {
    verdict = {Outcome::not_applicable, kReloadReason};
    return false;
  }
  std::string why;
  if (data.pyelf) {
    if (!pyelf_program(data, bytes, verdict)) return false;
  } else if (!program_bytes(data, bytes, why)) {
    verdict = fail(why);
    return false;
  }
  const std::string roundtrip = roundtrip_problem(bytes);
  if (!roundtrip.empty()) {
    verdict = fail(roundtrip);
    return false;
  }
  // A file with -- asm and -- raw and nothing else is an encoding test
  // (uBPF's test_assembler.py): program_bytes() has compared them.
  if (data.has_asm && data.has_raw && !data.has_result && !data.has_error && !data.has_error_pattern) {
    verdict = pass();
    return false;
  }
  return true;
}

// The rest of check_file(), once prepare_file() returned true.
DataVerdict check_prepared(const DataFile& data, const Bytes& bytes) {
  if (plain_result(data)) return check_plain_result(data, bytes);
  DecodedProgram decoded;
  DecodeResult loaded = decoded.decode(bytes);
  // -- unload: uBPF unloads the code and loads it again; decoding is
  // stateless, so a second decode must simply give the same answer.
  if (data.unload) {
    const DecodeResult again = decoded.decode(bytes);
    if (again.error != loaded.error || again.pc != loaded.pc) return fail("a second decode gave " + load_error_text(again));
    loaded = again;
  }
  // -- error wins over a -- result also present (uBPF keeps the result of
  // a build without the check).
  if (data.has_error) return check_load_error(data, loaded);
  if (!loaded.ok()) return fail("refused with " + load_error_text(loaded));
  if (data.has_error_pattern) return check_run_error(data, decoded.program());
  if (data.has_result) {
    // -- unload: the plain path on the second decode's (equal) answer.
    return check_plain_result(data, bytes);
  }
  return fail("no -- result, -- error or -- error pattern");
}

DataVerdict check_file(const std::string& path) {
  DataFile data;
  Bytes bytes;
  DataVerdict verdict;
  if (!prepare_file(path, data, bytes, verdict)) return verdict;
  return check_prepared(data, bytes);
}

}  // namespace

void collect_data_files(const std::string& argument, std::vector<std::string>& files) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path path(argument);
  if (fs::is_regular_file(path, ec)) {
    files.push_back(argument);
    return;
  }
  if (!fs::is_directory(path, ec))
    throw CliError("test-data: " + argument +
                   (fs::exists(path, ec) ? ": not a regular file or a directory" : ": no such file or directory"));
  std::vector<std::string> found;
  for (fs::recursive_directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file(ec) && it->path().extension() == ".data") found.push_back(it->path().generic_string());
  }
  if (ec) throw CliError("test-data: " + argument + ": " + ec.message());
  std::sort(found.begin(), found.end());
  files.insert(files.end(), found.begin(), found.end());
}

PackedDataFile pack_data_file(const std::string& file) {
  PackedDataFile packed;
  DataFile data;
  try {
    if (!prepare_file(file, data, packed.program, packed.verdict)) return packed;
    if (plain_result(data)) {
      packed.runs = true;
      packed.mem = data.mem;
      packed.expected_r0 = data.result;
      return packed;
    }
    packed.verdict = check_prepared(data, packed.program);
  } catch (const CliError& error) {
    packed.verdict = fail(error.what());
  }
  return packed;
}

namespace {

int test_data(const std::vector<std::string>& paths) {
  std::vector<std::string> files;
  for (const std::string& path : paths) collect_data_files(path, files);
  if (files.empty()) usage_error("test-data", "no .data files (keel-corpus test-data PATH...)");

  size_t passed = 0, failed = 0, skipped = 0, verified = 0, verify_rejected = 0;
  for (const std::string& file : files) {
    DataVerdict verdict;
    try {
      verdict = check_file(file);
    } catch (const CliError& error) {
      verdict = fail(error.what());
    }
    switch (verdict.outcome) {
      case Outcome::pass: ++passed; std::printf("PASS %s\n", file.c_str()); break;
      case Outcome::fail: ++failed; std::printf("FAIL %s: %s\n", file.c_str(), verdict.why.c_str()); break;
      case Outcome::not_applicable: ++skipped; std::printf("N/A %s: %s\n", file.c_str(), verdict.why.c_str()); break;
    }
    if (verdict.verified == Verified::accepted) ++verified;
    if (verdict.verified == Verified::rejected) {
      ++verify_rejected;
      std::printf("VERIFY-REJECT %s: %s\n", file.c_str(), verdict.verify_why.c_str());
    }
  }
  std::printf("verifier: %zu accepted, %zu rejected\n", verified, verify_rejected);
  // The last line is exactly "N passed, M failed" (what scripts parse).
  if (skipped > 0) std::printf("skipped: %zu (see docs/conformance-exceptions.md)\n", skipped);
  std::printf("%zu passed, %zu failed\n", passed, failed);
  std::fflush(stdout);
  return failed == 0 ? kExitOk : kExitTrap;
}

}  // namespace

Run declare_test_data(CLI::App& app) {
  auto paths = std::make_shared<std::vector<std::string>>();
  app.add_option("path", *paths, "bpf_conformance / uBPF .data files, or directories searched recursively")
      ->type_name("PATH...");
  return [paths] { return test_data(*paths); };
}

}  // namespace keel::cli
