// One case of the Linux verifier selftests (../shared/corpus/linux-verifier),
// once its JSON is read: decode and verify the bytes as the case's program
// type with its maps, score the verdict against Linux's, and render the
// case's line. `keel cases` on the host and the bare-metal runner
// (runner/) both call this, so that their lines are comparable by
// construction while each ISA computes its own. Freestanding.
#pragma once

#include <cstddef>
#include <cstdint>

#include "keel/arena.h"
#include "keel/decode.h"
#include "keel/platform.h"
#include "keel/verify.h"

namespace keel::suite {

// A case ready to verify: the program with its map fixups applied.
struct LinuxCase {
  const uint8_t* bytes = nullptr;
  size_t size = 0;
  const ProgramType* type = nullptr;
  const MapDescriptor* maps = nullptr;
  uint32_t map_count = 0;
  bool strict_alignment = false;  // BPF_F_STRICT_ALIGNMENT
  bool privileged = true;         // scored against `expect` (else `expect_unpriv`)
};

// Arena bytes one case gets, on every target (`keel cases`' default): the
// same size everywhere, so that running out is the same verdict everywhere.
inline constexpr size_t kLinuxCaseArenaBytes = size_t{64} << 20;

// The options the cases are verified with (Linux 6.1's rules, privileged
// or not as the case says).
VerifyOptions linux_case_verify_options(const LinuxCase& c);

struct LinuxCheck {
  DecodeResult decoded;  // not ok: decode() refused the program (a rejection)
  Verdict verdict;       // decoded.ok(): the verifier's verdict
  char message[256] = {};  // "decode: <error> at pc N", or describe(verdict)
  bool accepted() const { return decoded.ok() && verdict.ok(); }
};

// Decodes (into `program`, from `arena`) and verifies the case.
void check_linux_case(const LinuxCase& c, Arena& arena, Program& program, LinuxCheck& out);

enum class CaseOutcome : uint8_t { agree, false_accept, false_reject, skipped };

// keel's verdict scored against the expected one.
CaseOutcome score(bool accepted, bool expect_accept);

// "agree", "false_accept", ... (the JSON output's names).
const char* outcome_name(CaseOutcome outcome);

// Why `check` rejected: "pc 12 ctx_bad_access: <describe() after its own
// "pc 12: ">", or the decode message. Returns snprintf's length.
size_t rejection_text(const LinuxCheck& check, char* text, size_t size);

// The case's line in `keel cases --all` and the runner:
//   AGREE|FALSE-ACCEPT|FALSE-REJECT <id> <name>: accept|reject <rejection_text>
//   SKIP <id> <name>: <skip_reason>   (check unused)
size_t case_line(const char* id, const char* name, CaseOutcome outcome, const LinuxCheck& check,
                 const char* skip_reason, char* text, size_t size);

}  // namespace keel::suite
