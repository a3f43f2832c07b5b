#include "index/metadata_index.h"

#include <algorithm>
#include <iterator>
#include <utility>

#include "filter/eval/evaluator.h"

namespace engram::index {
namespace {

using filter::Node;
using filter::Op;

// At most this many records left in an `and`: its substring tests read their
// rows (about 100 ns each) rather than the trigram index.
constexpr std::uint64_t kScanBelow = 2048;
// A range over more distinct values than this is answered by the field's
// column (one pass over the records) rather than a union of its values' sets.
constexpr std::size_t kColumnAbove = 256;
// In an `and`, a range on a field with a column reads the cells of the
// records left rather than evaluating the range once they are fewer than
// 1 / kFilterBelow of the live records.
constexpr std::uint64_t kFilterBelow = 8;

roaring::Roaring Union(const std::vector<const roaring::Roaring*>& parts) {
  if (parts.empty()) return {};
  if (parts.size() == 1) return *parts[0];
  return roaring::Roaring::fastunion(parts.size(),
                                     const_cast<const roaring::Roaring**>(parts.data()));
}

}  // namespace

std::vector<std::pair<Value, std::uint64_t>> MetadataIndex::CountValues(
    std::uint32_t slot, const roaring::Roaring& within, const Deadline* deadline) const {
  const FieldIndex& f = fields_[slot];
  DeadlinePoll poll(deadline);
  std::vector<std::pair<Value, std::uint64_t>> out;
  const std::uint64_t n = within.cardinality();
  if (n >= f.values.size()) {
    // Fewer values than records: intersect each value's set.
    for (const auto& [value, records] : f.values) {
      if (poll.Passed()) break;
      if (const std::uint64_t c = records.and_cardinality(within); c > 0)
        out.emplace_back(value, c);
    }
    return out;
  }
  // Fewer records than values: read their rows.
  std::map<Value, std::uint64_t, ValueOrder> counts;
  for (const std::uint32_t r : within) {
    if (poll.Passed()) break;
    if (!live_.contains(r)) continue;
    const Value& v = rows_[r][slot];
    if (std::holds_alternative<std::monostate>(v)) continue;
    if (const StringSet* set = std::get_if<StringSet>(&v)) {
      for (const std::string& e : *set) ++counts[Value(e)];
    } else {
      ++counts[v];
    }
  }
  out.assign(counts.begin(), counts.end());
  return out;
}

std::optional<Interval> MetadataIndex::ColumnInterval(const Node& n) const {
  if (n.op != Op::kRange && n.op != Op::kCmp) return std::nullopt;
  const FieldIndex& f = fields_[n.slot];
  if (!f.column || !f.column->usable()) return std::nullopt;
  Interval b;
  if (n.op == Op::kRange) {
    if ((n.lo && !Comparable(n.slot, n.lo->value)) || (n.hi && !Comparable(n.slot, n.hi->value)))
      return std::nullopt;
    b.lo = n.lo;
    b.hi = n.hi;
    return b;
  }
  if (!Comparable(n.slot, n.values[0])) return std::nullopt;
  using filter::CmpOp;
  switch (n.cmp) {
    case CmpOp::kGt:
    case CmpOp::kGe:
      b.lo = filter::Bound{n.values[0], n.cmp == CmpOp::kGe};
      return b;
    case CmpOp::kLt:
    case CmpOp::kLe:
      b.hi = filter::Bound{n.values[0], n.cmp == CmpOp::kLe};
      return b;
    default:
      return std::nullopt;
  }
}

// Whether CompareValues can order a value of the field's type against
// `literal`; when it cannot, the evaluator's comparison is false.
bool MetadataIndex::Comparable(std::uint32_t slot, const Value& literal) const {
  switch (schema_->field(slot).type) {
    case FieldType::kInt:
    case FieldType::kFloat:
      return IsNumeric(literal);
    case FieldType::kString:
      return std::holds_alternative<std::string>(literal);
    case FieldType::kBool:
      return std::holds_alternative<bool>(literal);
    case FieldType::kDatetime:
      return std::holds_alternative<Datetime>(literal);
    case FieldType::kStringSet:
      return false;
  }
  return false;
}

roaring::Roaring MetadataIndex::RangeUnion(const FieldIndex& field,
                                           const std::optional<filter::Bound>& lo,
                                           const std::optional<filter::Bound>& hi,
                                           DeadlinePoll& poll) {
  const auto& m = field.values;
  auto first = !lo             ? m.begin()
               : lo->inclusive ? m.lower_bound(lo->value)
                               : m.upper_bound(lo->value);
  auto last = !hi ? m.end() : hi->inclusive ? m.upper_bound(hi->value) : m.lower_bound(hi->value);
  // An empty range (lo above hi) leaves last before first.
  if (first != m.end() && last != m.end() && ValueOrder{}(last->first, first->first)) last = first;
  if (first == m.end()) last = first;
  std::vector<const roaring::Roaring*> parts;
  for (auto it = first; it != last && !poll.Passed(); ++it) {
    if (parts.size() == kColumnAbove && field.column && field.column->usable()) {
      return field.column->Scan({lo, hi}, field.present, poll);
    }
    parts.push_back(&it->second);
  }
  return Union(parts);
}

roaring::Roaring MetadataIndex::Scan(const Node& node, const roaring::Roaring& candidates,
                                     DeadlinePoll& poll) const {
  roaring::Roaring out;
  for (std::uint32_t r : candidates) {
    if (poll.Passed()) break;
    if (filter::Evaluate(node, rows_[r])) out.add(r);
  }
  return out;
}

roaring::Roaring MetadataIndex::Leaf(const Node& n, DeadlinePoll& poll) const {
  const FieldIndex& f = fields_[n.slot];
  const bool set_field = schema_->field(n.slot).type == FieldType::kStringSet;
  std::vector<const roaring::Roaring*> parts;
  auto bucket = [&](const Value& key) -> const roaring::Roaring* {
    auto it = f.values.find(key);
    return it == f.values.end() ? nullptr : &it->second;
  };
  switch (n.op) {
    case Op::kExists:
      return f.present;
    case Op::kCmp: {
      if (set_field) break;
      const Value& lit = n.values[0];
      if (!Comparable(n.slot, lit)) return {};
      using filter::CmpOp;
      switch (n.cmp) {
        case CmpOp::kEq:
          if (const auto* b = bucket(lit)) return *b;
          return {};
        case CmpOp::kNe:
          if (const auto* b = bucket(lit)) return f.present - *b;
          return f.present;
        case CmpOp::kLt:
          return RangeUnion(f, std::nullopt, filter::Bound{lit, false}, poll);
        case CmpOp::kLe:
          return RangeUnion(f, std::nullopt, filter::Bound{lit, true}, poll);
        case CmpOp::kGt:
          return RangeUnion(f, filter::Bound{lit, false}, std::nullopt, poll);
        case CmpOp::kGe:
          return RangeUnion(f, filter::Bound{lit, true}, std::nullopt, poll);
      }
      break;
    }
    case Op::kIn:
      if (set_field) break;
      for (const Value& lit : n.values) {
        if (!Comparable(n.slot, lit)) continue;
        if (const auto* b = bucket(lit)) parts.push_back(b);
      }
      return Union(parts);
    case Op::kHasAny:
      if (!set_field) break;
      for (const Value& lit : n.values) {
        if (const auto* b = bucket(lit)) parts.push_back(b);
      }
      return Union(parts);
    case Op::kContains:
    case Op::kIContains: {
      if (!f.substrings) break;
      const std::string& needle = std::get<std::string>(n.values[0]);
      if (needle.empty()) return f.present;  // every string holds ""
      return Union(f.substrings->Find(needle, n.op == Op::kIContains, poll));
    }
    case Op::kRange: {
      if (set_field) break;
      if ((n.lo && !Comparable(n.slot, n.lo->value)) || (n.hi && !Comparable(n.slot, n.hi->value)))
        return {};
      return RangeUnion(f, n.lo, n.hi, poll);
    }
    default:
      break;
  }
  // Comparisons between two fields (and anything unusual) read the rows of
  // the records that have the fields.
  roaring::Roaring candidates = f.present;
  if (n.op == Op::kCmpFields || n.op == Op::kInField) candidates &= fields_[n.other].present;
  return Scan(n, candidates, poll);
}

roaring::Roaring MetadataIndex::Evaluate(const Node& n, const Deadline* deadline) const {
  DeadlinePoll poll(deadline, 16);
  return Eval(n, poll);
}

roaring::Roaring MetadataIndex::Eval(const Node& n, DeadlinePoll& poll) const {
  if (poll.Passed()) return {};
  switch (n.op) {
    case Op::kTrue:
      return live_;
    case Op::kFalse:
      return {};
    case Op::kNot:
      return live_ - Eval(n.children[0], poll);
    case Op::kOr: {
      std::vector<roaring::Roaring> sets;
      sets.reserve(n.children.size());
      for (const Node& c : n.children) sets.push_back(Eval(c, poll));
      std::vector<const roaring::Roaring*> parts;
      for (const auto& s : sets) parts.push_back(&s);
      return Union(parts);
    }
    case Op::kAnd: {
      // Intersect the materialised children smallest first; comparisons
      // between fields then read only the rows that are left, and so do
      // substring tests when few rows are left (a tenant's records: cheaper
      // than asking the substring index about every tenant's values).
      // Ranges on a field with a column likewise read only the cells of
      // the records left, once few are.
      std::vector<roaring::Roaring> sets;
      std::vector<const Node*> scans, substrings;
      std::vector<std::pair<const Node*, Interval>> ranges;
      for (const Node& c : n.children) {
        if (c.op == Op::kCmpFields || c.op == Op::kInField) {
          scans.push_back(&c);
        } else if (c.op == Op::kContains || c.op == Op::kIContains) {
          substrings.push_back(&c);
        } else if (std::optional<Interval> b = ColumnInterval(c)) {
          ranges.emplace_back(&c, std::move(*b));
        } else {
          sets.push_back(Eval(c, poll));
        }
      }
      std::sort(sets.begin(), sets.end(), [](const roaring::Roaring& a, const roaring::Roaring& b) {
        return a.cardinality() < b.cardinality();
      });
      roaring::Roaring out = sets.empty() ? live_ : std::move(sets[0]);
      for (std::size_t i = 1; i < sets.size() && !out.isEmpty(); ++i) out &= sets[i];
      for (const auto& [c, interval] : ranges) {
        if (out.isEmpty()) break;
        const FieldIndex& f = fields_[c->slot];
        out = out.cardinality() * kFilterBelow < live_.cardinality()
                  ? f.column->Filter(interval, out, f.present, poll)
                  : out & Leaf(*c, poll);
      }
      for (const Node* c : substrings) {
        if (out.isEmpty()) break;
        out = out.cardinality() <= kScanBelow ? Scan(*c, out, poll) : out & Leaf(*c, poll);
      }
      for (const Node* c : scans) {
        if (out.isEmpty()) break;
        out = Scan(*c, out, poll);
      }
      return out;
    }
    default:
      return Leaf(n, poll);
  }
}

std::vector<std::uint64_t> MetadataIndex::CountWithin(const std::vector<Node>& leaves,
                                                      const roaring::Roaring& within,
                                                      const Deadline* deadline) const {
  DeadlinePoll poll(deadline, 16);
  std::vector<Interval> intervals;
  for (const Node& leaf : leaves) {
    std::optional<Interval> interval = ColumnInterval(leaf);
    if (!interval || leaf.slot != leaves[0].slot) break;
    intervals.push_back(std::move(*interval));
  }
  if (!leaves.empty() && intervals.size() == leaves.size() &&
      within.cardinality() * kFilterBelow < live_.cardinality()) {
    const FieldIndex& f = fields_[leaves[0].slot];
    return f.column->Count(intervals, within, f.present, poll);
  }
  std::vector<std::uint64_t> counts;
  for (const Node& leaf : leaves) counts.push_back(Eval(leaf, poll).and_cardinality(within));
  return counts;
}

double MetadataIndex::LeafEstimate(const Node& n, DeadlinePoll& poll) const {
  const FieldIndex& f = fields_[n.slot];
  if (n.op == Op::kExists) return static_cast<double>(f.present.cardinality());
  if (n.op == Op::kCmp && n.cmp == filter::CmpOp::kEq && Comparable(n.slot, n.values[0])) {
    auto it = f.values.find(n.values[0]);
    return it == f.values.end() ? 0 : static_cast<double>(it->second.cardinality());
  }
  // Everything else is counted exactly: a union of a few buckets, or one pass
  // over the field's distinct values or rows.
  return static_cast<double>(Leaf(n, poll).cardinality());
}

double MetadataIndex::Estimate(const Node& n, const Deadline* deadline) const {
  DeadlinePoll poll(deadline, 16);
  return Estimate(n, poll);
}

double MetadataIndex::Estimate(const Node& n, DeadlinePoll& poll) const {
  const auto live = static_cast<double>(live_.cardinality());
  if (poll.Passed()) return 0;
  switch (n.op) {
    case Op::kTrue:
      return live;
    case Op::kFalse:
      return 0;
    case Op::kNot:
      return live - Estimate(n.children[0], poll);
    case Op::kAnd:
    case Op::kOr: {
      if (live == 0) return 0;
      // Independence: P(and) = product of P(child); P(or) = 1 - product of (1 - P(child)).
      double p = 1;
      for (const Node& c : n.children) {
        const double pc = std::clamp(Estimate(c, poll) / live, 0.0, 1.0);
        p *= n.op == Op::kAnd ? pc : 1 - pc;
      }
      return live * (n.op == Op::kAnd ? p : 1 - p);
    }
    default:
      return LeafEstimate(n, poll);
  }
}

}  // namespace engram::index
