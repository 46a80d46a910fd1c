// The C API (keel/keel_c.h) over the core: the one place that owns memory
// for the caller, with malloc, since a C host has no arena to lend. Arenas
// start at a size that suffices for ordinary programs and grow by 4x while
// the core reports out_of_memory, up to kLastArena.
#include "keel/keel_c.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include "keel/keel.h"

namespace {

constexpr size_t kLastArena = size_t{1} << 32;
// Linux's BPF_COMPLEXITY_LIMIT_INSNS: the largest program a privileged load may have.
constexpr uint32_t kMaxSlots = 1'000'000;

// Runs `attempt(arena)` in malloc'd arenas from `first` bytes, growing by 4x
// while it answers true ("out of memory"). Returns the memory of the last
// attempt (the caller frees it), or nullptr when malloc itself fails.
template <class Attempt>
void* with_growing_arena(size_t first, Attempt attempt) {
  for (size_t size = first;; size *= 4) {
    void* memory = std::malloc(size);
    if (memory == nullptr) return nullptr;
    keel::Arena arena(memory, size);
    if (!attempt(arena) || size >= kLastArena) return memory;
    std::free(memory);
  }
}

void copy_text(char* out, size_t size, const char* text) { std::snprintf(out, size, "%s", text); }

}  // namespace

struct keel_object {
  void* bytes = nullptr;   // the caller's object, copied: names point into it
  void* memory = nullptr;  // the arena the Object lives in
  keel::Object object;
  keel::ElfResult status;
  const char* reason = nullptr;  // what a verification of its programs answers, when it did not load
  char error[256] = {};
};

struct keel_result {
  keel_verdict verdict = KEEL_ERROR;
  uint64_t max_insns = 0;
  char reason[64] = {};
  char message[512] = {};
};

extern "C" {

keel_object* keel_object_load(const void* bytes, size_t size) {
  void* storage = std::malloc(sizeof(keel_object));
  if (storage == nullptr) return nullptr;
  auto* object = new (storage) keel_object{};
  if (bytes == nullptr || size == 0) {
    object->status.error = keel::ElfError::truncated;
    object->reason = bytes == nullptr ? "bad_argument" : "truncated";
    copy_text(object->error, sizeof object->error, bytes == nullptr ? "bad_argument: no object bytes (NULL)"
                                                                    : "truncated: the object is empty");
    return object;
  }
  object->bytes = std::malloc(size);
  if (object->bytes == nullptr) {
    std::free(object);
    return nullptr;
  }
  std::memcpy(object->bytes, bytes, size);
  keel::LoadOptions options;
  options.partial = true;  // one program keel cannot prepare leaves the others checkable
  // keel/elf.h: objects peak below 1.7x their size, but linking shared
  // subprograms into many programs has no linear bound.
  const size_t first = size < (kLastArena >> 3) ? size * 4 + (size_t{1} << 20) : kLastArena;
  object->memory = with_growing_arena(first, [&](keel::Arena& arena) {
    object->object = keel::Object{};
    object->status = keel::load_object(static_cast<const uint8_t*>(object->bytes), size, options, arena,
                                       object->object);
    return object->status.error == keel::ElfError::out_of_memory;
  });
  if (object->memory == nullptr) {
    object->object = keel::Object{};
    object->status.error = keel::ElfError::out_of_memory;
  }
  if (!object->status.ok()) {
    describe(object->status, object->error, sizeof object->error);
    if (object->reason == nullptr) object->reason = keel::elf_error_name(object->status.error);
  }
  return object;
}

const char* keel_object_error(const keel_object* object) {
  if (object == nullptr) return "bad_argument: no object (NULL)";
  return object->status.ok() ? nullptr : object->error;
}

size_t keel_program_count(const keel_object* object) {
  return object != nullptr && object->status.ok() ? object->object.program_count : 0;
}

const char* keel_program_name(const keel_object* object, size_t index) {
  return index < keel_program_count(object) ? object->object.programs[index].name : nullptr;
}

const char* keel_program_section(const keel_object* object, size_t index) {
  return index < keel_program_count(object) ? object->object.programs[index].section : nullptr;
}

}  // extern "C"

namespace {

keel_result* new_result() {
  void* storage = std::malloc(sizeof(keel_result));
  return storage != nullptr ? new (storage) keel_result{} : nullptr;
}

keel_result* error_result(keel_result* result, const char* reason, const char* message) {
  result->verdict = KEEL_ERROR;
  copy_text(result->reason, sizeof result->reason, reason);
  copy_text(result->message, sizeof result->message, message);
  return result;
}

bool helper_of_type(const void* context, int32_t id) {
  return keel::find_helper(*static_cast<const keel::ProgramType*>(context), id) != nullptr;
}

// Decodes and verifies `program` as `type` into `result`.
void check(const keel::Object& object, const keel::ElfProgram& program, const keel::ProgramType& type,
           keel_result* result) {
  keel::DecodeOptions decode_options;
  decode_options.max_insns = kMaxSlots;
  decode_options.helper_exists = helper_of_type;
  decode_options.helper_context = &type;
  const size_t bytes = size_t{program.slots} * 8;
  keel::Program decoded;
  keel::DecodeResult decode_result;
  // The decoded form takes 16 bytes a slot.
  void* code = with_growing_arena(bytes * 2 + 65536, [&](keel::Arena& arena) {
    decoded = keel::Program{};
    decode_result = keel::decode(program.insns, bytes, decode_options, arena, decoded);
    return decode_result.error == keel::DecodeError::out_of_memory;
  });
  if (code == nullptr) {
    error_result(result, "out_of_memory", "out of memory decoding the program");
    return;
  }
  if (!decode_result.ok()) {
    // An instruction Linux would refuse to load: a rejection, as bpf(2) gives.
    result->verdict = decode_result.error == keel::DecodeError::out_of_memory ? KEEL_ERROR : KEEL_REJECT;
    std::snprintf(result->reason, sizeof result->reason, "decode:%s", keel::decode_error_name(decode_result.error));
    std::snprintf(result->message, sizeof result->message, "pc %u: decode: %s", decode_result.pc,
                  keel::decode_error_name(decode_result.error));
    std::free(code);
    return;
  }
  keel::VerifyOptions options;
  // As `keel verify` checks objects: privileged, Linux 6.1's rules, and
  // reads of unwritten stack yield unknown values as privileged Linux allows.
  options.linux_rules = true;
  options.allow_uninit_stack_reads = true;
  options.maps = object.maps;
  options.map_count = object.map_count;
  keel::Verdict verdict;
  void* analysis = with_growing_arena(size_t{4} << 20, [&](keel::Arena& arena) {
    verdict = keel::verify(decoded, type, options, arena);
    return verdict.reason == keel::Reason::out_of_memory;
  });
  std::free(code);
  if (analysis == nullptr) {
    error_result(result, "out_of_memory", "out of memory verifying the program");
    return;
  }
  std::free(analysis);
  if (verdict.reason == keel::Reason::out_of_memory) {
    error_result(result, "out_of_memory", "the analysis needs more than 4 GiB");
    return;
  }
  result->verdict = verdict.ok() ? KEEL_ACCEPT : KEEL_REJECT;
  result->max_insns = verdict.ok() ? verdict.max_insns_executed : 0;
  copy_text(result->reason, sizeof result->reason, keel::reason_name(verdict.reason));
  if (verdict.ok())
    copy_text(result->message, sizeof result->message, "accepted");
  else
    keel::describe(verdict, result->message, sizeof result->message);
}

}  // namespace

extern "C" {

keel_result* keel_verify_program(const keel_object* object, size_t index) {
  keel_result* result = new_result();
  if (result == nullptr) return nullptr;
  if (object == nullptr) return error_result(result, "bad_argument", "no object (NULL)");
  if (!object->status.ok()) return error_result(result, object->reason, object->error);
  if (index >= object->object.program_count) {
    char message[128];
    std::snprintf(message, sizeof message, "no program %zu: the object holds %u", index,
                  object->object.program_count);
    return error_result(result, "bad_argument", message);
  }
  const keel::ElfProgram& program = object->object.programs[index];
  if (!program.status.ok()) {
    describe(program.status, result->message, sizeof result->message);
    copy_text(result->reason, sizeof result->reason, keel::elf_error_name(program.status.error));
    result->verdict = KEEL_ERROR;
    return result;
  }
  const keel::ProgramType* type =
      program.type_name != nullptr ? keel::find_program_type(keel::linux_platform(), program.type_name) : nullptr;
  if (type == nullptr) {
    char message[256];
    std::snprintf(message, sizeof message, "section '%s' names no program type keel models",
                  program.section != nullptr ? program.section : "?");
    return error_result(result, "unknown_program_type", message);
  }
  check(object->object, program, *type, result);
  return result;
}

keel_result* keel_verify_program_named(const keel_object* object, const char* name) {
  const size_t count = keel_program_count(object);
  if (name != nullptr) {
    for (size_t i = 0; i < count; ++i) {
      const char* own = object->object.programs[i].name;
      if (own != nullptr && std::strcmp(own, name) == 0) return keel_verify_program(object, i);
    }
  }
  if (object == nullptr || !object->status.ok()) return keel_verify_program(object, 0);
  keel_result* result = new_result();
  if (result == nullptr) return nullptr;
  char message[256];
  std::snprintf(message, sizeof message, "no program named '%s'", name != nullptr ? name : "(NULL)");
  return error_result(result, "bad_argument", message);
}

keel_verdict keel_result_verdict(const keel_result* result) { return result != nullptr ? result->verdict : KEEL_ERROR; }

const char* keel_result_reason(const keel_result* result) {
  return result != nullptr ? result->reason : "bad_argument";
}

const char* keel_result_message(const keel_result* result) {
  return result != nullptr ? result->message : "no result (NULL)";
}

uint64_t keel_result_max_insns(const keel_result* result) { return result != nullptr ? result->max_insns : 0; }

void keel_result_free(keel_result* result) { std::free(result); }

void keel_object_free(keel_object* object) {
  if (object == nullptr) return;
  std::free(object->memory);
  std::free(object->bytes);
  std::free(object);
}

}  // extern "C"
