// What the fuzz targets share: an oracle check that reports the broken
// property and aborts (libFuzzer saves the input as a crash), and a byte
// reader that derives a few choices from the input without consuming the
// part a stage is fed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

// Checked in every build type (NDEBUG does not turn it off): a violated
// property is a finding, like a sanitizer report.
#define KEEL_FUZZ_CHECK(condition)                                                          \
  do {                                                                                      \
    if (!(condition)) {                                                                     \
      std::fprintf(stderr, "%s:%d: fuzz oracle violated: %s\n", __FILE__, __LINE__, #condition); \
      std::abort();                                                                         \
    }                                                                                       \
  } while (0)

namespace keel::fuzz {

// Deterministic small numbers from the input's bytes (a hash of a few of
// them), so that the same input always makes the same choices.
inline uint32_t pick(const uint8_t* data, size_t size, uint32_t salt) {
  uint32_t h = 2166136261u ^ salt;  // FNV-1a over at most the first 16 and last 16 bytes
  for (size_t i = 0; i < size && i < 16; ++i) h = (h ^ data[i]) * 16777619u;
  for (size_t i = size > 16 ? size - 16 : size; i < size; ++i) h = (h ^ data[i]) * 16777619u;
  return h;
}

}  // namespace keel::fuzz
