#include "search/value_cover.h"

#include <algorithm>
#include <limits>

namespace engram::search {
namespace {

bool IsGraphSlot(std::span<const std::uint32_t> graph_slots, std::uint32_t slot) {
  return std::find(graph_slots.begin(), graph_slots.end(), slot) != graph_slots.end();
}

// The keys of a leaf's literal values (strings and bools; nullopt for any other).
std::optional<std::vector<std::string>> LiteralKeys(std::uint32_t slot,
                                                    const std::vector<Value>& literals) {
  std::vector<std::string> keys;
  for (const Value& v : literals) {
    if (!std::holds_alternative<std::string>(v) && !std::holds_alternative<bool>(v)) {
      return std::nullopt;
    }
    keys.push_back(ValueKey(slot, v));
  }
  return keys;
}

}  // namespace

std::size_t CoverRecords(const std::vector<std::string>& keys, const vector::ValueGraphs& values) {
  std::size_t n = 0;
  for (const std::string& key : keys) {
    if (const roaring::Roaring* r = values.RecordsOf(key)) n += r->cardinality();
  }
  return n;
}

std::string ValueKey(std::uint32_t slot, const Value& v) {
  std::string key = std::to_string(slot);
  if (const bool* b = std::get_if<bool>(&v)) return key + (*b ? ":b:true" : ":b:false");
  if (const std::string* s = std::get_if<std::string>(&v)) return key + ":s:" + *s;
  return key + ":?";
}

std::vector<std::string> RecordKeys(std::span<const std::uint32_t> graph_slots,
                                    const std::vector<Value>& row) {
  std::vector<std::string> keys;
  for (std::uint32_t slot : graph_slots) {
    if (slot >= row.size()) continue;
    const Value& v = row[slot];
    if (const StringSet* set = std::get_if<StringSet>(&v)) {
      for (const std::string& element : *set) keys.push_back(ValueKey(slot, element));
    } else if (std::holds_alternative<std::string>(v) || std::holds_alternative<bool>(v)) {
      keys.push_back(ValueKey(slot, v));
    }
  }
  return keys;
}

std::optional<std::vector<std::string>> Cover(const filter::Node& node,
                                              std::span<const std::uint32_t> graph_slots,
                                              const vector::ValueGraphs& values) {
  using filter::Op;
  std::optional<std::vector<std::string>> out;
  switch (node.op) {
    case Op::kFalse:
      out = std::vector<std::string>{};
      break;
    case Op::kCmp:
      if (node.cmp == filter::CmpOp::kEq && IsGraphSlot(graph_slots, node.slot) &&
          node.values.size() == 1) {
        out = LiteralKeys(node.slot, node.values);
      }
      break;
    case Op::kIn:
    case Op::kHasAny:
      if (IsGraphSlot(graph_slots, node.slot)) out = LiteralKeys(node.slot, node.values);
      break;
    case Op::kAnd: {
      std::size_t best = std::numeric_limits<std::size_t>::max();
      for (const filter::Node& child : node.children) {
        std::optional<std::vector<std::string>> c = Cover(child, graph_slots, values);
        if (!c) continue;
        const std::size_t n = CoverRecords(*c, values);
        if (n < best) best = n, out = std::move(c);
      }
      break;
    }
    case Op::kOr: {
      std::vector<std::string> keys;
      for (const filter::Node& child : node.children) {
        std::optional<std::vector<std::string>> c = Cover(child, graph_slots, values);
        if (!c || keys.size() + c->size() > kMaxCoverKeys) return std::nullopt;
        keys.insert(keys.end(), c->begin(), c->end());
      }
      std::sort(keys.begin(), keys.end());
      keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
      out = std::move(keys);
      break;
    }
    default:
      break;
  }
  if (out && out->size() > kMaxCoverKeys) return std::nullopt;
  return out;
}

}  // namespace engram::search
