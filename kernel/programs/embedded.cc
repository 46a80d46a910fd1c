// The table embedded.S (generated) lays out: one {name, begin, end} per
// object, as three 64-bit words.
#include "programs/manifest.h"

extern "C" {
extern const keel::programs::EmbeddedObject keel_embedded_objects[];
extern const uint64_t keel_embedded_object_count;
}

namespace keel::programs {

static_assert(sizeof(EmbeddedObject) == 24, "embedded.S writes three .quad per object");

EmbeddedObjects embedded_objects() { return {keel_embedded_objects, keel_embedded_object_count}; }

}  // namespace keel::programs
