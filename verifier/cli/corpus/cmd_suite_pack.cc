// keel suite-pack OUT [--data DIR]... [--cases FILE.jsonl [--maps maps.json]]:
// writes the suite blob (suite/blob.h) that the bare-metal runner (runner/)
// reads through semihosting: every `.data` file as `keel test-data DIR`
// sees it, then every Linux selftest case as `keel cases FILE` sees it.
// The host does the parsing (text formats, JSON, assembly, map fixups); the
// runner decodes, verifies and runs on its own ISA.
#include <cstdio>
#include <filesystem>

#include "commands.h"
#include "blob.h"
#include "linux_cases.h"
#include "test_data.h"

namespace keel::cli {

namespace {

class BlobWriter {
 public:
  BlobWriter() {
    for (const char c : suite::kBlobMagic) bytes_.push_back(static_cast<uint8_t>(c));
    u32(suite::kBlobVersion);
  }
  BlobWriter& u32(uint32_t value) {
    for (int i = 0; i < 4; ++i) bytes_.push_back(static_cast<uint8_t>(value >> (8 * i)));
    return *this;
  }
  BlobWriter& u64(uint64_t value) {
    return u32(static_cast<uint32_t>(value)).u32(static_cast<uint32_t>(value >> 32));
  }
  BlobWriter& kind(suite::RecordKind kind) { return u32(static_cast<uint32_t>(kind)); }
  BlobWriter& bytes(const Bytes& data) {
    if (data.size() > UINT32_MAX) throw CliError("suite-pack: a program or memory of over 4 GiB");
    u32(static_cast<uint32_t>(data.size()));
    bytes_.insert(bytes_.end(), data.begin(), data.end());
    return *this;
  }
  BlobWriter& str(const std::string& text) {
    Bytes data(text.begin(), text.end());
    data.push_back(0);
    return bytes(data);
  }
  const Bytes& finish() {
    kind(suite::RecordKind::end);
    return bytes_;
  }

 private:
  Bytes bytes_;
};

uint32_t outcome_code(Outcome outcome) {
  switch (outcome) {
    case Outcome::pass: return 0;
    case Outcome::fail: return 1;
    case Outcome::not_applicable: return 2;
  }
  return 1;
}

void pack_data(const std::vector<std::string>& files, BlobWriter& blob) {
  for (const std::string& file : files) {
    const PackedDataFile packed = pack_data_file(file);
    if (packed.runs) {
      blob.kind(suite::RecordKind::data_run).str(file).bytes(packed.program).bytes(packed.mem).u64(packed.expected_r0);
    } else {
      blob.kind(suite::RecordKind::data_line).str(file).u32(outcome_code(packed.verdict.outcome))
          .str(packed.verdict.why);
    }
  }
}

void pack_cases(const std::string& input, const std::string& maps, BlobWriter& blob) {
  const tools::CasePack pack = tools::prepare_cases(input, maps);
  if (!pack.loaded) throw CliError("suite-pack: " + pack.error);
  for (const tools::PreparedCase& c : pack.cases) {
    if (!c.skip_reason.empty()) {
      blob.kind(suite::RecordKind::case_skip).str(c.id).str(c.name).u32(c.expect_accept).str(c.skip_reason);
      continue;
    }
    if (c.maps.size() > suite::kMaxCaseMaps) throw CliError("suite-pack: " + c.id + " has too many maps");
    blob.kind(suite::RecordKind::case_run).str(c.id).str(c.name).u32(c.expect_accept).str(c.type_name)
        .u32(c.strict_alignment).u32(c.privileged).u32(static_cast<uint32_t>(c.maps.size()));
    for (const MapDescriptor& map : c.maps)
      blob.u32(static_cast<uint32_t>(map.type)).u32(map.key_size).u32(map.value_size).u32(map.max_entries)
          .u32(map.read_only).u32(map.write_only);
    blob.bytes(c.bytes);
  }
}

struct PackArgs {
  std::string output, cases, maps;
  std::vector<std::string> data_dirs;
};

int suite_pack(PackArgs args) {
  auto fail = [](const std::string& message) { usage_error("suite-pack", message); };
  if (args.data_dirs.empty() && args.cases.empty()) fail("nothing to pack (--data DIR, --cases FILE.jsonl)");
  if (!args.maps.empty() && args.cases.empty()) fail("--maps without --cases");
  std::vector<std::string> files;
  for (const std::string& dir : args.data_dirs) collect_data_files(dir, files);
  if (!args.data_dirs.empty() && files.empty()) fail("no .data files under the --data folders");
  if (!args.cases.empty() && args.maps.empty())
    args.maps = (std::filesystem::path(args.cases).parent_path() / "maps.json").string();

  BlobWriter blob;
  pack_data(files, blob);
  if (!args.cases.empty()) pack_cases(args.cases, args.maps, blob);
  write_file(args.output, blob.finish());
  return kExitOk;
}

}  // namespace

Run declare_suite_pack(CLI::App& app) {
  auto args = std::make_shared<PackArgs>();
  // Named "output": a missing one is "missing output file".
  app.add_option("output", args->output, "the blob the bare-metal runner reads (runner/)")->required()->type_name("OUT");
  app.add_option("--data", args->data_dirs, ".data files or folders, as test-data takes them")
      ->type_name("DIR")
      ->expected(1)
      ->take_all();
  app.add_option("--cases", args->cases, "Linux selftest cases, as cases takes them")->type_name("FILE.jsonl");
  app.add_option("--maps", args->maps, "the cases' maps (default: maps.json beside FILE)")->type_name("MAPS.json");
  return [args] { return suite_pack(*args); };
}

}  // namespace keel::cli
