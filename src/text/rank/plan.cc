#include "text/rank/plan.h"

#include <algorithm>
#include <map>

#include "text/index/stemmer.h"

namespace engram::text {
namespace {

class Compiler {
 public:
  Compiler(const IndexData& data, const Bm25& bm25, Plan& plan)
      : data_(data), bm25_(bm25), plan_(plan) {}

  PlanNode Compile(const Node& node, bool negated) {
    PlanNode out;
    out.kind = node.kind;
    switch (node.kind) {
      case Node::Kind::kTerm: {
        std::int64_t id = data_.Find(Stem(data_.options.stemmer, node.text));
        if (id >= 0) out.units.push_back(Unit({static_cast<std::uint32_t>(id)}, negated));
        break;
      }
      case Node::Kind::kPrefix:
        // Prefixes are not stemmed: the prefix is matched against the words
        // as they appeared (IndexData::ExpandPrefix), each selecting its stem.
        for (std::uint32_t id : data_.ExpandPrefix(node.text)) {
          out.units.push_back(Unit({id}, negated));
        }
        break;
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
  std::size_t Unit(std::vector<std::uint32_t> words, bool negated) {
    auto [it, added] = index_.emplace(words, plan_.units.size());
    if (added) {
      PlanUnit u;
      u.words = std::move(words);
      for (std::uint32_t w : u.words) u.idf += bm25_.Idf(data_.postings[w].size());
      u.bound = Bound(u);
      plan_.units.push_back(std::move(u));
    }
    if (!negated) plan_.units[it->second].scoring = true;
    return it->second;
  }

  // A phrase occurs in field f only where all its words do: its tf there is
  // at most the smallest of their max_tf, and the field is at least as long
  // as the largest of their min_len.
  double Bound(const PlanUnit& u) const {
    const std::size_t nf = data_.num_fields();
    std::vector<std::uint32_t> max_tf(nf, UINT32_MAX), min_len(nf, 0);
    for (std::uint32_t w : u.words) {
      const TermPostings& p = data_.postings[w];
      for (std::size_t f = 0; f < nf; ++f) {
        max_tf[f] = std::min(max_tf[f], p.max_tf[f]);
        min_len[f] = std::max(min_len[f], p.min_len[f]);
      }
    }
    return bm25_.Bound(u.idf, max_tf, min_len);
  }

  const IndexData& data_;
  const Bm25& bm25_;
  Plan& plan_;
  std::map<std::vector<std::uint32_t>, std::size_t> index_;
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

Plan CompilePlan(const IndexData& data, const Bm25& bm25, const Node& root) {
  Plan plan;
  plan.root = Compiler(data, bm25, plan).Compile(root, false);
  plan.needs_positive = NeedsPositive(plan.root);
  return plan;
}

}  // namespace engram::text
