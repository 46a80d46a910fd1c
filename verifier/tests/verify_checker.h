// What the verifier tests share: assemble a program text, verify it as a
// Linux program type with the maps given, and keep the rendered verdict;
// EXPECT_ACCEPT / EXPECT_REJECT print that text and the program on failure.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "keel/decode.h"
#include "keel/platform_linux.h"
#include "keel/text.h"
#include "keel/verify.h"

namespace keel::testing {

inline std::vector<uint8_t> assemble_or_die(const std::string& text) {
  std::vector<uint8_t> bytes((text.size() + 2) * 8 * 2);
  const AsmResult r = assemble(text.data(), text.size(), bytes.data(), bytes.size() / 8);
  EXPECT_TRUE(r.ok()) << asm_error_name(r.error) << " line " << r.line << "\n" << text;
  bytes.resize(r.slots * 8);
  return bytes;
}

inline const ProgramType& linux_type(const char* name) {
  const ProgramType* t = find_program_type(linux_platform(), name);
  EXPECT_NE(t, nullptr) << name;
  return *t;
}

struct Checker {
  std::vector<uint8_t> memory = std::vector<uint8_t>(size_t{8} << 20);
  std::vector<MapDescriptor> maps;
  VerifyOptions options;
  Program program;
  std::string text;  // describe() of the last verdict

  Verdict run(const std::string& source, const ProgramType& type) {
    const std::vector<uint8_t> bytes = assemble_or_die(source);
    Arena arena(memory.data(), memory.size());
    const DecodeResult d = decode(bytes.data(), bytes.size(), DecodeOptions{}, arena, program);
    EXPECT_TRUE(d.ok()) << decode_error_name(d.error) << " at " << d.pc;
    if (!d.ok()) return Verdict{};
    options.maps = maps.data();
    options.map_count = static_cast<uint32_t>(maps.size());
    const Verdict v = verify(program, type, options, arena);
    char buffer[256];
    describe(v, buffer, sizeof(buffer));
    text = buffer;
    return v;
  }
  Verdict run(const std::string& source, const char* type = "socket_filter") {
    return run(source, linux_type(type));
  }
};

inline MapDescriptor map_of(MapType type, uint32_t key, uint32_t value, uint32_t entries = 16) {
  MapDescriptor m;
  m.type = type;
  m.key_size = key;
  m.value_size = value;
  m.max_entries = entries;
  return m;
}

}  // namespace keel::testing

#define EXPECT_ACCEPT(c, src, ...)                               \
  do {                                                           \
    const ::keel::Verdict v_ = (c).run(src, ##__VA_ARGS__);      \
    EXPECT_TRUE(v_.ok()) << (c).text << "\n" << (src);           \
  } while (0)
#define EXPECT_REJECT(c, src, why, ...)                                 \
  do {                                                                  \
    const ::keel::Verdict v_ = (c).run(src, ##__VA_ARGS__);             \
    EXPECT_EQ(v_.reason, ::keel::Reason::why) << (c).text << "\n" << (src); \
  } while (0)
