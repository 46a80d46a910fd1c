// The program type both footprint images verify under: a context of 64
// plain bytes and no helpers, as firmware that defines its own small
// platform would (keel/platform.h). Using keel::linux_platform() instead
// would add its program-type and helper tables, which are not the core.
#pragma once

#include "keel/platform.h"

namespace keel::footprint {

inline constexpr ProgramType kType{
    .name = "footprint",
    .ctx_size = 64,
    .ctx_is_plain_memory = true,
};

}  // namespace keel::footprint
