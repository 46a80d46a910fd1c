// PSCI (Arm DEN 0022, Power State Coordination Interface) calls through
// the SMC Calling Convention (Arm DEN 0028): function ID in w0, `hvc #0`
// to a hypervisor or `smc #0` to the secure monitor, whichever the
// platform's firmware answers (the device tree's /psci "method").
#pragma once

#include <cstdint>

namespace keel::aarch64::psci {

enum class Conduit : uint8_t { hvc, smc };

/// SYSTEM_OFF (0x84000008, DEN 0022 §5.10). Returns only when it failed
/// (no firmware behind the conduit, or it refused).
void system_off(Conduit conduit);

}  // namespace keel::aarch64::psci
