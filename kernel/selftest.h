// Deliberate faults, chosen on the kernel command line (boot_options.h), so
// that the boot tests can check the exception path end to end: the fault line,
// the single `keel done status=fail`, and the fault exit status.
#pragma once

#include "boot_options.h"

namespace keel {

/// Triggers `test`'s fault. Returns only if no fault happened (a failure the
/// caller reports).
void run_self_test(SelfTest test);

}  // namespace keel
