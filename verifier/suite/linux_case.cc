#include "linux_case.h"

#include "support/text_writer.h"

namespace keel::suite {

namespace {

bool helper_exists(const void* context, int32_t id) {
  return find_helper(*static_cast<const ProgramType*>(context), id) != nullptr;
}

}  // namespace

VerifyOptions linux_case_verify_options(const LinuxCase& c) {
  VerifyOptions options;
  options.privileged = c.privileged;
  options.strict_alignment = c.strict_alignment;
  options.linux_rules = true;
  options.allow_uninit_stack_reads = c.privileged;
  options.speculative_paths = !c.privileged;
  options.maps = c.maps;
  options.map_count = c.map_count;
  return options;
}

void check_linux_case(const LinuxCase& c, Arena& arena, Program& program, LinuxCheck& out) {
  out = LinuxCheck{};
  DecodeOptions decode_options;
  decode_options.max_insns = 1u << 20;  // Linux's BPF_COMPLEXITY_LIMIT_INSNS
  decode_options.helper_exists = &helper_exists;
  decode_options.helper_context = c.type;
  program = Program{};
  out.decoded = decode(c.bytes, c.size, decode_options, arena, program);
  if (!out.decoded.ok()) {
    TextWriter(out.message, sizeof out.message)
        .put("decode: ").put(decode_error_name(out.decoded.error)).put(" at pc ").decimal(out.decoded.pc).finish();
    return;
  }
  out.verdict = verify(program, *c.type, linux_case_verify_options(c), arena);
  describe(out.verdict, out.message, sizeof out.message);
}

CaseOutcome score(bool accepted, bool expect_accept) {
  if (accepted == expect_accept) return CaseOutcome::agree;
  return accepted ? CaseOutcome::false_accept : CaseOutcome::false_reject;
}

const char* outcome_name(CaseOutcome outcome) {
  switch (outcome) {
    case CaseOutcome::agree: return "agree";
    case CaseOutcome::false_accept: return "false_accept";
    case CaseOutcome::false_reject: return "false_reject";
    case CaseOutcome::skipped: return "skipped";
  }
  return "?";
}

size_t rejection_text(const LinuxCheck& check, char* text, size_t size) {
  TextWriter out(text, size);
  if (!check.decoded.ok()) return out.put(check.message).finish();
  // describe() starts with "pc N: "; the line puts the reason after the pc.
  char prefix[24];
  TextWriter(prefix, sizeof prefix).put("pc ").decimal(check.verdict.pc).put(": ").finish();
  const char* message = check.message;
  size_t i = 0;
  while (prefix[i] != '\0' && message[i] == prefix[i]) ++i;
  if (prefix[i] == '\0') message += i;
  out.put("pc ").decimal(check.verdict.pc).put(" ").put(reason_name(check.verdict.reason)).put(": ").put(message);
  return out.finish();
}

size_t case_line(const char* id, const char* name, CaseOutcome outcome, const LinuxCheck& check,
                 const char* skip_reason, char* text, size_t size) {
  TextWriter out(text, size);
  switch (outcome) {
    case CaseOutcome::agree: out.put("AGREE "); break;
    case CaseOutcome::false_accept: out.put("FALSE-ACCEPT "); break;
    case CaseOutcome::false_reject: out.put("FALSE-REJECT "); break;
    case CaseOutcome::skipped: out.put("SKIP "); break;
  }
  out.put(id).put(" ").put(name).put(": ");
  if (outcome == CaseOutcome::skipped) {
    out.put(skip_reason);
  } else if (check.accepted()) {
    out.put("accept");
  } else {
    char why[320];
    rejection_text(check, why, sizeof why);
    out.put("reject ").put(why);
  }
  return out.finish();
}

}  // namespace keel::suite
