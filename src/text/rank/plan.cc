#include "text/rank/plan.h"

#include <algorithm>
#include <map>
#include <set>
#include <string_view>
#include <utility>

#include "text/index/stemmer.h"

namespace engram::text {
namespace {

// Calls f(text) for each distinct prefix of the tree, in pre-order.
template <typename F>
void ForEachPrefix(const Node& node, F&& f) {
  if (node.kind == Node::Kind::kPrefix) f(node.text);
  for (const Node& c : node.children) ForEachPrefix(c, f);
}

class Compiler {
 public:
  Compiler(const IndexData& data, const Bm25& bm25, Plan& plan, std::size_t max_expansions)
      : data_(data), bm25_(bm25), plan_(plan), expansions_left_(max_expansions) {}

  PlanNode Compile(const Node& node, bool negated) {
    PlanNode out;
    out.kind = node.kind;
    switch (node.kind) {
      case Node::Kind::kTerm: {
        std::int64_t id = data_.Find(Stem(data_.options.stemmer, node.text));
        if (id >= 0) out.units.push_back(Unit({static_cast<std::uint32_t>(id)}, negated));
        break;
      }
      case Node::Kind::kPrefix: {
        // Prefixes are not stemmed: the prefix is matched against the words
        // as they appeared (IndexData::ExpandPrefix), each selecting its
        // stem; the stems are one unit.
        std::vector<std::uint32_t> ids = Expand(node.text);
        if (ids.empty()) break;
        const bool any = ids.size() > 1;
        out.units.push_back(Unit(std::move(ids), negated, any));
        break;
      }
      case Node::Kind::kPhrase: {
        std::vector<std::uint32_t> ids;
        for (const std::string& w : node.words) {
          std::int64_t id = data_.Find(Stem(data_.options.stemmer, w));
          if (id < 0) return out;  // a word no document has: the phrase never matches
          ids.push_back(static_cast<std::uint32_t>(id));
        }
        out.units.push_back(Unit(std::move(ids), negated));
        break;
      }
      case Node::Kind::kNot:
        out.children.push_back(Compile(node.children[0], true));
        break;
      default:
        for (const Node& c : node.children) out.children.push_back(Compile(c, negated));
    }
    return out;
  }

 private:
  // The terms `prefix` expands to, within what is left of the cap; the same
  // prefix twice is expanded (and counted) once.
  std::vector<std::uint32_t> Expand(const std::string& prefix) {
    auto [it, added] = prefixes_.try_emplace(prefix);
    if (!added) return it->second;
    std::size_t matched = 0;
    it->second = data_.ExpandPrefix(prefix, expansions_left_, &matched);
    expansions_left_ -= std::min(matched, expansions_left_);
    return it->second;
  }

  std::size_t Unit(std::vector<std::uint32_t> words, bool negated, bool any = false) {
    auto [it, added] = index_.emplace(std::make_pair(any, words), plan_.units.size());
    if (added) {
      PlanUnit u;
      u.words = std::move(words);
      u.any = any;
      if (any) {
        std::size_t df = 0;
        for (std::uint32_t w : u.words) df = std::max(df, data_.postings[w].size());
        u.idf = bm25_.Idf(df);
      } else {
        for (std::uint32_t w : u.words) u.idf += bm25_.Idf(data_.postings[w].size());
      }
      u.bound = Bound(u);
      plan_.units.push_back(std::move(u));
    }
    if (!negated) plan_.units[it->second].scoring = true;
    return it->second;
  }

  double Bound(const PlanUnit& u) const {
    UnitBound bound(u.any, data_.num_fields());
    for (std::uint32_t w : u.words) bound.Add(data_.postings[w].max_tf, data_.postings[w].min_len);
    const double by_field = bound.Score(bm25_, u.idf);
    if (u.words.size() != 1 || u.any) return by_field;
    // One term: its largest tf~ bounds it too, often much closer (the
    // per-field figures may come from different postings).
    return std::min(by_field, bm25_.BlockBound(u.idf, data_.postings[u.words[0]].max_t));
  }

  const IndexData& data_;
  const Bm25& bm25_;
  Plan& plan_;
  std::size_t expansions_left_;
  std::map<std::pair<bool, std::vector<std::uint32_t>>, std::size_t> index_;
  std::map<std::string, std::vector<std::uint32_t>, std::less<>> prefixes_;
};

bool NeedsPositive(const PlanNode& node) {
  switch (node.kind) {
    case Node::Kind::kAnd:
      return std::any_of(node.children.begin(), node.children.end(), NeedsPositive);
    case Node::Kind::kOr:
      return std::all_of(node.children.begin(), node.children.end(), NeedsPositive);
    case Node::Kind::kNot:
      return false;
    default:
      return true;
  }
}

}  // namespace

UnitBound::UnitBound(bool any, std::size_t num_fields)
    : any_(any), max_tf_(num_fields, any ? 0 : UINT32_MAX), min_len_(num_fields, 0) {}

void UnitBound::Add(const std::vector<std::uint32_t>& max_tf,
                    const std::vector<std::uint32_t>& min_len) {
  for (std::size_t f = 0; f < max_tf_.size(); ++f) {
    if (!any_) {
      max_tf_[f] = std::min(max_tf_[f], max_tf[f]);
      min_len_[f] = std::max(min_len_[f], max_tf[f] == 0 ? 0 : min_len[f]);
    } else if (max_tf[f] > 0) {
      const std::uint64_t sum = std::uint64_t{max_tf_[f]} + max_tf[f];
      min_len_[f] = max_tf_[f] == 0 ? min_len[f] : std::min(min_len_[f], min_len[f]);
      max_tf_[f] = static_cast<std::uint32_t>(std::min<std::uint64_t>(sum, UINT32_MAX));
    }
  }
}

double UnitBound::Score(const Bm25& bm25, double idf) const {
  return bm25.Bound(idf, max_tf_, min_len_);
}

Plan CompilePlan(const IndexData& data, const Bm25& bm25, const Node& root,
                 std::size_t max_expansions) {
  Plan plan;
  plan.root = Compiler(data, bm25, plan, max_expansions).Compile(root, false);
  plan.needs_positive = NeedsPositive(plan.root);
  return plan;
}

std::optional<std::string> CheckExpansions(const IndexData& data, const Node& root,
                                           std::size_t max_expansions) {
  std::set<std::string_view> seen;
  std::size_t total = 0;
  std::optional<std::string> over;
  ForEachPrefix(root, [&](const std::string& prefix) {
    if (over || !seen.insert(prefix).second) return;
    std::size_t matched = 0;
    (void)data.ExpandPrefix(prefix, max_expansions - total, &matched);
    total += matched;
    if (total <= max_expansions) return;
    over = "the prefixes of the query match more than " + std::to_string(max_expansions) +
           " indexed words (the limit), passed at '" + prefix +
           "*': use longer prefixes or fewer of them";
  });
  return over;
}

}  // namespace engram::text
