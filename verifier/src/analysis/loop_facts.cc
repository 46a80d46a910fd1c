// The LoopFacts table (loop_facts.h): its layout for a CFG and the queries
// the loop-bound pass asks of it.
#include "analysis/loop_facts.h"

#include "support/search.h"

namespace keel {

namespace {

// One CallbackSite per bpf_loop / bpf_for_each_map_elem call. Such a call
// needs a lddw code_addr, which the CFG counts among its call sites, so a
// program without any skips the scan.
bool build_callback_sites(const Cfg& cfg, Arena& arena, LoopFacts& t) {
  if (cfg.call_count == 0) return true;
  uint32_t count = 0;
  for (uint32_t pc = 0; pc < cfg.insn_count; ++pc) count += calls_back(cfg.insns[pc]) ? 1 : 0;
  if (count == 0) return true;
  t.callbacks = arena.allocate<CallbackSite>(count);
  if (t.callbacks == nullptr) return false;
  for (uint32_t pc = 0; pc < cfg.insn_count; ++pc) {
    if (calls_back(cfg.insns[pc])) t.callbacks[t.callback_count++] = CallbackSite{pc, 0};
  }
  return true;
}

// Blocks inside loops and blocks with an edge into a loop header.
bool build_fact_table(const Cfg& cfg, Arena& arena, LoopFacts& t) {
  if (cfg.loop_count == 0) return true;
  t.index = arena.allocate<uint32_t>(cfg.block_count);
  t.fn_first = arena.allocate<uint32_t>(cfg.function_count);
  t.fn_count = arena.allocate<uint32_t>(cfg.function_count);
  if (t.index == nullptr || t.fn_first == nullptr || t.fn_count == nullptr) return false;
  for (uint32_t f = 0; f < cfg.function_count; ++f) {
    const Cfg::Function& fn = cfg.functions[f];
    t.fn_first[f] = t.count;
    for (uint32_t b = fn.first_block; b < fn.first_block + fn.block_count; ++b) {
      bool wanted = cfg.blocks[b].loop != Cfg::kNone;
      for (const Cfg::Edge& edge : cfg.successors(b)) {
        const uint32_t l = cfg.blocks[edge.to].loop;
        wanted = wanted || (l != Cfg::kNone && cfg.loops[l].header == edge.to);
      }
      t.index[b] = wanted ? t.count++ : Cfg::kNone;
    }
    t.fn_count[f] = t.count - t.fn_first[f];
  }
  t.facts = arena.allocate<ExitFacts>(t.count);
  t.entries = arena.allocate<ExitFacts>(cfg.function_count);
  if (t.entries == nullptr) return false;
  for (uint32_t f = 0; f < cfg.function_count; ++f) t.entries[f].seen = 0;
  return t.facts != nullptr || t.count == 0;
}

}  // namespace

bool build_loop_facts(const Cfg& cfg, Arena& arena, LoopFacts& facts) {
  return build_fact_table(cfg, arena, facts) && build_callback_sites(cfg, arena, facts);
}

void join_facts(ExitFacts& to, const ExitFacts& from) {
  if (from.seen == 0) return;
  if (to.seen == 0) {
    to = from;
    return;
  }
  to.valid &= from.valid;
  for (uint32_t r = 0; r < kRegisterCount; ++r) {
    if ((to.valid >> r) & 1u) to.regs[r] = join(to.regs[r], from.regs[r]);
  }
}

CallbackSite* find_callback_site(const LoopFacts& facts, uint32_t pc) {
  const uint32_t low =
      lower_bound_index(facts.callback_count, pc, [&](uint32_t i) { return facts.callbacks[i].pc; });
  return low < facts.callback_count && facts.callbacks[low].pc == pc ? &facts.callbacks[low] : nullptr;
}

bool scalar_at_block_exit(const LoopFacts& t, uint32_t block, uint8_t reg, Scalar& out) {
  if (t.index == nullptr || reg >= kRegisterCount) return false;
  const uint32_t i = t.index[block];
  if (i == Cfg::kNone || t.facts[i].seen == 0 || ((t.facts[i].valid >> reg) & 1u) == 0) return false;
  out = t.facts[i].regs[reg];
  return true;
}

bool scalar_at_function_entry(const LoopFacts& facts, uint32_t function, uint8_t reg, Scalar& out) {
  if (facts.entries == nullptr || reg >= kRegisterCount) return false;
  const ExitFacts& f = facts.entries[function];
  if (f.seen == 0 || ((f.valid >> reg) & 1u) == 0) return false;
  out = f.regs[reg];
  return true;
}

bool callback_runs_at(const LoopFacts& facts, uint32_t pc, uint64_t& runs) {
  const CallbackSite* site = find_callback_site(facts, pc);
  if (site == nullptr) return false;
  runs = site->runs;
  return true;
}

}  // namespace keel
