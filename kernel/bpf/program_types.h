// The kernel's own BPF platform as data (docs/adr/0010): the program
// types keel_tick and keel_test, their helper prototypes, and the options
// every kernel program is verified with (strict: VerifyOptions::privileged
// = false). The very same tables build into the host library, so a host
// check and the kernel give the same bytes the same verdict (docs/adr/0010).
#pragma once

#include <cstdint>

#include "keel/decode.h"
#include "keel/elf.h"
#include "keel/platform.h"
#include "keel/verify.h"

namespace keel::bpf {

/// Where a program of each type runs.
enum class Hook : uint8_t { tick, once };

extern const ProgramType tick_type;  ///< "keel_tick": ctx keel_tick_ctx, runs on every tick
extern const ProgramType test_type;  ///< "keel_test": ctx keel_test_ctx, runs once at start

/// Both types, for find_program_type().
const Platform& platform();

/// The hook a program of `type` attaches to.
Hook hook_of(const ProgramType& type);
const char* hook_name(Hook hook);  ///< "tick", "once"

/// LoadOptions for the embedded objects: SEC("keel/tick") and
/// SEC("keel/test") name the kernel's types; any other section is no
/// kernel program (ElfProgram::status says so, the load goes on).
LoadOptions load_options();

/// DecodeOptions for `type`: a call to an id the type lacks is a decode
/// error (unknown_helper), as for every embedder.
DecodeOptions decode_options(const ProgramType& type);

/// The strict setting every kernel program is verified with, against the
/// maps of its object.
VerifyOptions verify_options(const MapDescriptor* maps, uint32_t map_count);

}  // namespace keel::bpf
