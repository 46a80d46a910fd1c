// keel's input bounds (files.cc), the split of load errors into "error" and
// "unsupported" (object_file.cc) and the option lists of the help text
// (usage.cc).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "cli.h"
#include "object_file.h"
#include "usage.h"

namespace keel::cli {
namespace {

std::string temp_path(const char* name) {
  return (std::filesystem::temp_directory_path() / (std::string("keel_files_test_") + std::to_string(getpid()) + name))
      .string();
}

std::string error_of(const std::string& path) {
  try {
    (void)read_file(path);
  } catch (const CliError& error) {
    return error.what();
  }
  return "";
}

TEST(ReadFile, ReadsARegularFileWhole) {
  const std::string path = temp_path("small");
  write_file(path, Bytes{1, 2, 3, 4, 5});
  EXPECT_EQ(read_file(path), (Bytes{1, 2, 3, 4, 5}));
  std::remove(path.c_str());
}

TEST(ReadFile, RefusesWhatIsNotARegularFile) {
  EXPECT_EQ(error_of("/dev/zero"), "/dev/zero: not a regular file");
  const std::string dir = std::filesystem::temp_directory_path().string();
  EXPECT_EQ(error_of(dir), dir + ": is a directory");
  const std::string fifo = temp_path("fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(error_of(fifo), fifo + ": not a regular file");  // returns: no writer needed
  std::remove(fifo.c_str());
}

TEST(ReadFile, RefusesFilesOverTheLimitAndTakesOneAtIt) {
  const std::string path = temp_path("sparse");
  write_file(path, Bytes{});
  ASSERT_EQ(truncate(path.c_str(), static_cast<off_t>(kMaxInputBytes + 1)), 0);
  EXPECT_EQ(error_of(path), path + ": larger than keel's input limit of 64 MiB");
  ASSERT_EQ(truncate(path.c_str(), static_cast<off_t>(kMaxInputBytes)), 0);
  const Bytes bytes = read_file(path);
  EXPECT_EQ(bytes.size(), kMaxInputBytes);
  EXPECT_EQ(bytes.capacity(), kMaxInputBytes);  // one buffer of the file's size, not a doubled one
  std::remove(path.c_str());
}

TEST(LoadErrorVerdict, UnsupportedOnlyForWhatKeelDoesNotProvide) {
  EXPECT_STREQ(load_error_verdict(ElfError::unsupported_core_relocation), "unsupported");
  EXPECT_STREQ(load_error_verdict(ElfError::missing_symbol), "unsupported");
  EXPECT_STREQ(load_error_verdict(ElfError::unsupported_relocation), "unsupported");
  EXPECT_STREQ(load_error_verdict(ElfError::truncated), "error");
  EXPECT_STREQ(load_error_verdict(ElfError::bad_header), "error");
  EXPECT_STREQ(load_error_verdict(ElfError::not_relocatable), "error");
  EXPECT_STREQ(load_error_verdict(ElfError::wrong_machine), "error");
}

TEST(Usage, OptionsComeFromTheCommandsUsage) {
  EXPECT_EQ(command_options("asm"), "-o, --help");
  EXPECT_EQ(command_options("run"), "--mem, --mem-file, --guarded, --budget, --help");
  EXPECT_TRUE(has_usage("verify"));
  EXPECT_FALSE(has_usage("frobnicate"));
  EXPECT_EQ(command_usage("disasm").rfind("Usage: keel disasm IN.bin", 0), 0u);
  EXPECT_NE(full_usage().find("2  usage error, or input that could not be checked"), std::string::npos);
}

}  // namespace
}  // namespace keel::cli
