// boot_options.cc: the kernel command line that selects the self-tests.
#include "boot_options.h"

#include <gtest/gtest.h>

#include <string>

namespace keel {
namespace {

SelfTest parsed(const char* cmdline) { return parse_boot_options(cmdline).self_test; }

TEST(BootOptions, NoneByDefault) {
  EXPECT_EQ(parsed(nullptr), SelfTest::none);
  EXPECT_EQ(parsed(""), SelfTest::none);
  EXPECT_EQ(parsed("   "), SelfTest::none);
  EXPECT_EQ(parsed("console=ttyS0 quiet"), SelfTest::none);
}

TEST(BootOptions, EachTestByName) {
  EXPECT_EQ(parsed("keel.test=ud2"), SelfTest::invalid_opcode);
  EXPECT_EQ(parsed("keel.test=page-fault"), SelfTest::page_fault);
  EXPECT_EQ(parsed("keel.test=null-read"), SelfTest::null_read);
  EXPECT_EQ(parsed("keel.test=stack-overflow"), SelfTest::stack_overflow);
  EXPECT_EQ(parsed("  quiet keel.test=ud2  other=1 "), SelfTest::invalid_opcode);
}

TEST(BootOptions, NamesRoundTrip) {
  for (const SelfTest test : {SelfTest::invalid_opcode, SelfTest::page_fault,
                              SelfTest::null_read, SelfTest::stack_overflow}) {
    const std::string option = std::string("keel.test=") + self_test_name(test);
    EXPECT_EQ(parsed(option.c_str()), test) << option;
  }
}

TEST(BootOptions, UnknownOrPartialNamesAreReportedNotIgnored) {
  EXPECT_EQ(parsed("keel.test="), SelfTest::unknown);
  EXPECT_EQ(parsed("keel.test=ud"), SelfTest::unknown);
  EXPECT_EQ(parsed("keel.test=ud2x"), SelfTest::unknown);
  EXPECT_EQ(parsed("keel.test=UD2"), SelfTest::unknown);
  EXPECT_EQ(parsed("xkeel.test=ud2"), SelfTest::none);
}

TEST(BootOptions, TheLastOccurrenceWins) {
  EXPECT_EQ(parsed("keel.test=ud2 keel.test=page-fault"), SelfTest::page_fault);
}

}  // namespace
}  // namespace keel
