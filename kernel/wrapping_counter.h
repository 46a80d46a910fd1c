// A free-running 32-bit up-counter extended to 64 bits in software, for
// counters that wrap (an HPET without COUNT_SIZE_CAP: 2^32 ticks of 10 ns
// is 42.9 s). Correct as long as successive readings are less than 2^32
// counts apart; a longer gap loses whole wraps, which nothing can detect.
#pragma once

#include <cstdint>

namespace keel {

struct WrappingCounter {
  uint32_t last = 0;   ///< the previous reading
  uint64_t wraps = 0;  ///< how many times the counter passed 0xFFFFFFFF -> 0

  /// The 64-bit count for a new reading of the 32-bit counter.
  uint64_t extend(uint32_t now) {
    if (now < last) ++wraps;
    last = now;
    return (wraps << 32) | now;
  }
};

}  // namespace keel
