// protocol.cc: the `keel <event> key=value` lines the boot tests and
// capture scripts parse.
#include "protocol.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace keel {
namespace {

TEST(Line, TheBootLine) {
  Line line("boot");
  line.str("arch", "x86_64").str("board", "qemu-x86").str("clock", "hpet")
      .dec("period_fs", 10'000'000).fixed6("ns_per_tick", 10, 0).dec("emulated", 1);
  EXPECT_STREQ(line.text(),
               "keel boot arch=x86_64 board=qemu-x86 clock=hpet period_fs=10000000 "
               "ns_per_tick=10.000000 emulated=1");
  EXPECT_EQ(line.size(), std::string(line.text()).size());
  EXPECT_FALSE(line.truncated());
}

TEST(Line, NumbersAndWords) {
  Line line("fault");
  line.hex("error", 0).hex("cr2", 0x100000000).sdec("delta", -5).word("fallback")
      .fixed6("ns_per_tick", 0, 476167).dec("max", UINT64_MAX);
  EXPECT_STREQ(line.text(),
               "keel fault error=0x0 cr2=0x100000000 delta=-5 fallback ns_per_tick=0.476167 "
               "max=18446744073709551615");
}

TEST(Line, ValuesCannotSplitTheLine) {
  Line line("x");
  line.str("reason", "two words\nand a break").str("none", nullptr).word("a b");
  EXPECT_STREQ(line.text(), "keel x reason=two_words_and_a_break none=(null) a_b");
}

TEST(Line, MillionthsAreClamped) {
  Line line("x");
  line.fixed6("v", 1, 5'000'000);
  EXPECT_STREQ(line.text(), "keel x v=1.999999");
}

TEST(Line, AFieldThatDoesNotFitIsDroppedWholeAndMarked) {
  Line line("x");
  const std::string value(100, 'v');
  line.str("a", value.c_str()).str("b", value.c_str()).str("c", value.c_str()).dec("d", 1);
  const std::string text = line.text();
  EXPECT_TRUE(line.truncated());
  EXPECT_LE(text.size(), Line::kCapacity);
  EXPECT_EQ(text, "keel x a=" + value + " b=" + value + " +");  // no half `c`, no `d`
}

TEST(Line, AnOverlongSingleFieldIsDroppedToo) {
  Line line("x");
  const std::string value(Line::kCapacity * 2, 'v');
  line.str("a", value.c_str()).word(value.c_str());
  EXPECT_TRUE(line.truncated());
  EXPECT_STREQ(line.text(), "keel x +");
}

}  // namespace
}  // namespace keel
