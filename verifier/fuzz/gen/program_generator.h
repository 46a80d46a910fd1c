// A structure-aware generator of eBPF programs for the soundness oracle
// (oracle.h): a value from a helper, the context, a map value or the
// packet, narrowed by random ALU and jmp/jmp32 branches with constants
// biased to edges, then used as an offset into a map value, the stack or
// the packet; spills and fills of every width; loops whose counters may
// wrap; BPF-to-BPF calls and bpf_loop callbacks; privileged and
// unprivileged. Deterministic: the same seed or the same bytes give the
// same program. Host code (std::vector).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace keel::fuzzgen {

// Where the generator's choices come from: a seeded pseudo-random stream
// (keel-fuzzgen) or a fuzzer's bytes, 4 per choice, then zeros (every
// choice's first option, which ends a program soon).
class Choices {
 public:
  explicit Choices(uint64_t seed);
  Choices(const uint8_t* data, size_t size);

  uint32_t next32();
  // A number in [0, n); n > 0.
  uint32_t below(uint32_t n) { return next32() % n; }
  bool chance(uint32_t percent) { return below(100) < percent; }

 private:
  uint64_t state_ = 0;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  size_t used_ = 0;
};

struct GeneratedProgram {
  std::vector<uint8_t> bytes;   // 8-byte instruction slots (RFC 9669 §3), map lddws name oracle.h's kMaps
  const char* type = "";        // Linux program type (socket_filter, sched_cls, xdp)
  bool privileged = true;
};

GeneratedProgram generate(Choices& choices);

}  // namespace keel::fuzzgen
