#include "text/listing.h"

namespace keel::text {

namespace {

// lddw source kinds that name a map (RFC 9669 §5.4, Table 12).
constexpr uint8_t kMapFd = 1, kMapValue = 2, kMapIdx = 5, kMapIdxValue = 6;

}  // namespace

void write_label(TextWriter& w, const ListingOptions& options, int64_t target) {
  const char* name = options.function_at != nullptr && target >= 0
                         ? options.function_at(options.context, static_cast<size_t>(target))
                         : nullptr;
  if (name != nullptr) {
    w.put(name);
    return;
  }
  w.put(".L").signed_decimal(target);
}

bool write_map_name(TextWriter& w, const ListingOptions& options, uint8_t src, int32_t imm, int32_t next_imm) {
  if (src != kMapFd && src != kMapValue && src != kMapIdx && src != kMapIdxValue) return false;
  if (imm < 0) return false;
  const bool value = src == kMapValue || src == kMapIdxValue;
  int32_t within = 0;
  const char* variable = value && options.variable_at != nullptr
                             ? options.variable_at(options.context, static_cast<uint32_t>(imm), next_imm, &within)
                             : nullptr;
  if (variable != nullptr) {  // a global variable: `hits`, `table + 8`
    w.put(variable);
    next_imm = within;
  } else {
    const char* name = options.map_name != nullptr ? options.map_name(options.context, static_cast<uint32_t>(imm)) : nullptr;
    if (name == nullptr) return false;
    w.put(name);
  }
  if (value && next_imm != 0) {
    w.put(next_imm < 0 ? " - " : " + ");
    w.decimal(next_imm < 0 ? 0 - static_cast<uint64_t>(static_cast<int64_t>(next_imm)) : static_cast<uint64_t>(next_imm));
  }
  return true;
}

const char* helper_name(const ListingOptions& options, int64_t id) {
  if (options.helper_name == nullptr || id < INT32_MIN || id > INT32_MAX) return nullptr;
  return options.helper_name(static_cast<int32_t>(id));
}

}  // namespace keel::text
