// What the kernel expects of each embedded program: its verdict (a
// rejection is expected of the deliberately unsafe ones) and, for
// run-once programs, the value they return. The service fails the run on
// any mismatch, and on an embedded program this table does not name.
#pragma once

#include <cstdint>

namespace keel::programs {

struct Expectation {
  const char* program;     ///< the ELF function name (SEC'd program)
  bool accept;
  const char* reason;      ///< expected rejection reason (verify.h reason_name), when !accept
  bool check_r0;           ///< run-once programs: compare r0 with `r0`
  uint64_t r0;
};

const Expectation* find_expectation(const char* program);

/// The objects linked into the image (embedded.S, generated from the
/// *.bpf.c of this folder by kernel/programs/CMakeLists.txt).
struct EmbeddedObject {
  const char* name;  ///< the source's stem: "tick_counter" for tick_counter.bpf.c
  const uint8_t* begin;
  const uint8_t* end;
};
struct EmbeddedObjects {
  const EmbeddedObject* objects;
  uint64_t count;
};
EmbeddedObjects embedded_objects();

}  // namespace keel::programs
