// keel's input bounds (files.cc), the split of load errors into "error" and
// "unsupported" (object_file.cc), and the command line (command_line.h,
// program_options.h): one declaration gives parsing, checks, help and the
// list of valid options; every usage error is exit status 2.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "cli.h"
#include "object_file.h"
#include "command_line.h"
#include "program_options.h"

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

// A tool with one command, "go", declared as keel's commands are.
struct Parsed {
  std::string input, type;
  std::vector<std::string> maps;
  uint64_t count = 7;
  bool flag = false;
  int runs = 0;
};
Parsed parsed;

Run declare_go(CLI::App& app) {
  add_input(app, parsed.input, "a file");
  app.add_option("-o", parsed.type, "output");
  add_type(app, "--type", parsed.type, "a type");
  add_maps(app, parsed.maps);
  add_number(app, "--count", parsed.count, 1, 100, "how many");
  app.add_flag("--flag", parsed.flag, "a flag");
  return [] {
    ++parsed.runs;
    return 1;
  };
}

// run_tool() on `args`: its exit status, and stderr in `error`.
int run_go(std::vector<std::string> args, std::string* error = nullptr) {
  parsed = Parsed{};
  Tool tool;
  tool.name = "keel";
  tool.description = "test";
  tool.version = "keel 0.0.0";
  tool.commands = {{"go", "the test command", &declare_go}};
  tool.elsewhere = {{"cases", "keel-corpus"}};
  args.insert(args.begin(), "keel");
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  testing::internal::CaptureStderr();
  testing::internal::CaptureStdout();
  const int status = run_tool(tool, static_cast<int>(argv.size()), argv.data());
  const std::string err = testing::internal::GetCapturedStderr();
  (void)testing::internal::GetCapturedStdout();
  if (error != nullptr) *error = err;
  return status;
}

TEST(CommandLine, ParsesIntoTheDeclaredStateAndRunsTheCommand) {
  EXPECT_EQ(run_go({"go", "in.s", "--type", "xdp", "--count", "0x10", "--flag", "--map", "a:array:4:8:1", "--map",
                    "b:hash:4:4:2"}),
            1);
  EXPECT_EQ(parsed.runs, 1);
  EXPECT_EQ(parsed.input, "in.s");
  EXPECT_EQ(parsed.type, "xdp");
  EXPECT_EQ(parsed.count, 16u);
  EXPECT_TRUE(parsed.flag);
  const std::vector<NamedMap> maps = named_maps(parsed.maps);
  ASSERT_EQ(maps.size(), 2u);
  EXPECT_EQ(maps[1].kind, "b");
  EXPECT_EQ(maps[1].map.type, MapType::hash);
  EXPECT_EQ(maps[1].map.max_entries, 2u);
}

TEST(CommandLine, EveryUsageErrorIsExitTwoWithOneLine) {
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{"go"}, "keel: go: missing input file\n"},
      {{"go", "in.s", "--bogus"}, "keel: go: unknown option '--bogus' (valid: -o, --type, --map, --count, --flag, --help)\n"},
      {{"go", "in.s", "other.s"}, "keel: go: more than one input file ('other.s')\n"},
      {{"go", "in.s", "-o"}, "keel: go: option -o needs a value\n"},
      {{"go", "in.s", "--count", "0"}, "keel: go: --count wants a number from 1 to 100, got '0'\n"},
      {{"go", "in.s", "--count", "-5"}, "keel: go: --count wants a number from 1 to 100, got '-5'\n"},
      {{"go", "in.s", "--map", "a:tree:4:8:1"}, ""},
      {{"go", "in.s", "--type", "nosuch"}, ""},
      {{"frobnicate"}, "keel: unknown command 'frobnicate' (try 'keel --help')\n"},
      {{"cases"}, ""},
      {{"--bogus"}, ""},
  };
  for (const auto& [args, want] : cases) {
    std::string error;
    EXPECT_EQ(run_go(args, &error), kExitUsage) << args.back();
    EXPECT_EQ(parsed.runs, 0) << args.back();
    if (!want.empty()) {
      EXPECT_EQ(error, want);
    }
    EXPECT_EQ(std::count(error.begin(), error.end(), '\n'), 1) << error;
  }
  std::string error;
  run_go({"go", "in.s", "--map", "a:tree:4:8:1"}, &error);
  EXPECT_NE(error.find("--map wants KIND:TYPE:KEY:VALUE:ENTRIES"), std::string::npos) << error;
  run_go({"go", "in.s", "--type", "nosuch"}, &error);
  EXPECT_NE(error.find("unknown program type 'nosuch' (one of: socket_filter"), std::string::npos) << error;
  run_go({"cases"}, &error);
  EXPECT_NE(error.find("keel-corpus"), std::string::npos) << error;
}

TEST(CommandLine, HelpAndVersionAreExitZero) {
  EXPECT_EQ(run_go({"--help"}), kExitOk);
  EXPECT_EQ(run_go({"go", "--help"}), kExitOk);
  EXPECT_EQ(run_go({"help", "go"}), kExitOk);
  EXPECT_EQ(run_go({"-V"}), kExitOk);
  EXPECT_EQ(parsed.runs, 0);
  EXPECT_EQ(run_go({}), kExitUsage);
}

TEST(CommandLine, MapSpecifications) {
  NamedMap map;
  std::string error;
  EXPECT_TRUE(parse_map("counters:percpu_hash:4:0x10:64", map, error)) << error;
  EXPECT_EQ(map.kind, "counters");
  EXPECT_EQ(map.map.type, MapType::percpu_hash);
  EXPECT_EQ(map.map.value_size, 16u);
  for (const char* bad : {"m:array:4:8", ":array:4:8:1", "m:array:4:x:1", "m:array:4:8:4294967296", "m:tree:4:8:1"}) {
    EXPECT_FALSE(parse_map(bad, map, error)) << bad;
    EXPECT_EQ(error.rfind("--map wants KIND:TYPE:KEY:VALUE:ENTRIES", 0), 0u) << bad;
  }
}

// --map's TYPE names come from the core's Linux map-type table; these are
// the names the CLI has always accepted, each with its kind.
TEST(CommandLine, MapTypeNamesAreTheLinuxOnesInLowerCase) {
  const std::pair<const char*, MapType> accepted[] = {
      {"array", MapType::array}, {"hash", MapType::hash}, {"percpu_array", MapType::percpu_array},
      {"percpu_hash", MapType::percpu_hash}, {"lru_hash", MapType::lru_hash},
      {"lru_percpu_hash", MapType::lru_percpu_hash}, {"prog_array", MapType::prog_array},
      {"perf_event_array", MapType::perf_event_array}, {"ringbuf", MapType::ringbuf},
      {"stack_trace", MapType::stack_trace}, {"lpm_trie", MapType::lpm_trie},
      {"cgroup_array", MapType::cgroup_array}, {"devmap", MapType::devmap},
      {"devmap_hash", MapType::devmap_hash}, {"cpumap", MapType::cpumap}, {"xskmap", MapType::xskmap},
      {"sockmap", MapType::sockmap}, {"sockhash", MapType::sockhash},
      {"array_of_maps", MapType::array_of_maps}, {"hash_of_maps", MapType::hash_of_maps}};
  NamedMap map;
  std::string error;
  for (const auto& [name, type] : accepted) {
    EXPECT_TRUE(parse_map(std::string("m:") + name + ":4:8:1", map, error)) << name << ": " << error;
    EXPECT_EQ(map.map.type, type) << name;
  }
  for (const char* bad : {"ARRAY", "BPF_MAP_TYPE_ARRAY", "unspec", "queue", ""}) {
    EXPECT_FALSE(parse_map(std::string("m:") + bad + ":4:8:1", map, error)) << bad;
  }
  EXPECT_NE(error.find("hash|array|"), std::string::npos) << error;
}

TEST(CommandLine, HelpEndsWithTheExitStatusTable) {
  EXPECT_NE(exit_status_table().find("2  usage error, or input that could not be checked"), std::string::npos);
  EXPECT_NE(input_limit_note().find("at most 64 MiB"), std::string::npos);
}

}  // namespace
}  // namespace keel::cli
