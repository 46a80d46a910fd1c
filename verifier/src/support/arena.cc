#include "keel/arena.h"

#include <cstring>

namespace keel {

void Arena::clear(void* memory, size_t bytes) { memset(memory, 0, bytes); }

}  // namespace keel
