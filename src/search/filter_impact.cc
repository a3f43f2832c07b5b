#include "search/filter_impact.h"

#include <algorithm>
#include <optional>
#include <unordered_set>
#include <utility>
#include <variant>

#include "filter/eval/evaluator.h"
#include "filter/ir/printer.h"
#include "filter/translate/translate.h"

namespace engram::search {

std::size_t EffectiveCandidateK(std::size_t top_k, std::size_t requested_candidate_k) {
  // 3 × requested cannot overflow: requests cap candidate_k far below
  // SIZE_MAX / 3, but clamp first anyway so the formula holds for any input.
  const std::size_t tripled = requested_candidate_k > kImpactMaxCandidateK
                                  ? kImpactMaxCandidateK
                                  : std::min(kImpactMaxCandidateK, 3 * requested_candidate_k);
  return std::max(top_k, tripled);
}

namespace {

// The reason of a node known to fail on `slots`.
std::string FailReason(const filter::Node& node, std::span<const Value> slots) {
  switch (node.op) {
    case filter::Op::kAnd:
      for (const filter::Node& c : node.children) {
        if (!filter::Evaluate(c, slots)) return FailReason(c, slots);
      }
      return "";  // unreachable when `node` fails
    case filter::Op::kOr:
      // Every child failed; the first one speaks for the group.
      return node.children.empty() ? "or" : FailReason(node.children.front(), slots);
    case filter::Op::kNot:
      // A lowered `neq`/`$ne`/`$nin` keeps the leaf as written.
      if (!node.origin.empty()) return node.origin;
      return "not.true";
    default:
      if (!node.origin.empty()) return node.origin;
      return node.op == filter::Op::kFalse ? "false" : std::string(filter::OpName(node));
  }
}

}  // namespace

std::string DropReason(const filter::Node& node, std::span<const Value> slots) {
  if (filter::Evaluate(node, slots)) return "";
  return FailReason(node, slots);
}

std::vector<DropCount> TopDropReasons(const std::map<std::string, std::size_t>& counts,
                                      std::size_t limit) {
  std::vector<DropCount> all;
  all.reserve(counts.size());
  for (const auto& [reason, count] : counts) all.push_back({reason, count});
  // The map is ordered by reason, so a stable sort by count keeps reasons
  // ascending among equal counts.
  std::stable_sort(all.begin(), all.end(),
                   [](const DropCount& a, const DropCount& b) { return a.count > b.count; });
  if (all.size() > limit) all.resize(limit);
  return all;
}

json::Value FilterEcho(const filter::CompiledFilter& filter, filter::Dialect dialect) {
  std::optional<filter::Target> target;
  switch (dialect) {
    case filter::Dialect::kRetrieve:
      target = filter::Target::kRetrieve;
      break;
    case filter::Dialect::kExprV1:
      target = filter::Target::kExprV1;
      break;
    case filter::Dialect::kVectorFilter:
      target = filter::Target::kVectorFilter;
      break;
    case filter::Dialect::kSearchMemory:
      break;
  }
  if (target) {
    auto translated = filter::Translate(filter.checked, *target);
    if (auto* t = std::get_if<filter::Translation>(&translated)) return std::move(t->filter);
  }
  return filter::ToJson(filter.checked);
}

ImpactCounts CountImpact(const index::MetadataIndex& metadata, const filter::CompiledFilter& filter,
                         std::span<const std::uint32_t> candidates) {
  ImpactCounts out;
  std::unordered_set<std::uint32_t> seen;
  for (std::uint32_t doc : candidates) {
    if (!seen.insert(doc).second) continue;
    const std::vector<Value>* row = metadata.Row(doc);
    if (row == nullptr) continue;  // not a live record: fails the consistency check
    ++out.pre;
    if (filter.program.Matches(*row)) {
      ++out.post;
      continue;
    }
    std::string reason = DropReason(filter.checked.root, *row);
    // The optimised program and the checked IR mean the same (the optimiser
    // is tested against the evaluator); a disagreement would be a bug, and is
    // still counted rather than lost.
    if (reason.empty()) reason = "unknown";
    ++out.reasons[reason];
  }
  return out;
}

json::Value FilterImpactJson(std::size_t requested_candidate_k, std::size_t effective_candidate_k,
                             const ImpactCounts& counts, json::Value filter_echo) {
  json::Value reasons = json::Value::array();
  for (const DropCount& d : TopDropReasons(counts.reasons)) {
    json::Value r = json::Value::object();
    r["reason"] = d.reason;
    r["count"] = d.count;
    reasons.push_back(std::move(r));
  }
  json::Value out = json::Value::object();
  out["schema"] = kFilterImpactSchema;
  out["requested_candidate_k"] = requested_candidate_k;
  out["effective_candidate_k"] = effective_candidate_k;
  out["candidate_count_pre"] = counts.pre;
  out["candidate_count_post"] = counts.post;
  out["dropped_total"] = counts.pre - counts.post;
  out["top_drop_reasons"] = std::move(reasons);
  out["filter"] = std::move(filter_echo);
  return out;
}

}  // namespace engram::search
