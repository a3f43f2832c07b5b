// A default-profile query (text/query/ast.h) compiled against one index: its
// distinct units (terms after stemming, phrases as term-id sequences, and
// each prefix as one unit over the terms it expands to) with their idf and
// score bound, and the boolean tree over them. Shared by the pruned search
// and the oracle.
#ifndef ENGRAM_TEXT_RANK_PLAN_H_
#define ENGRAM_TEXT_RANK_PLAN_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "text/index/index_data.h"
#include "text/query/ast.h"
#include "text/rank/bm25.h"

namespace engram::text {

struct PlanUnit {
  // Term ids: one for a term; two or more for a phrase (in order), or, with
  // `any`, for a prefix (ascending).
  std::vector<std::uint32_t> words;
  // A prefix that expands to several terms: the documents holding any of
  // them, scored as if they were one term (as Lucene's SynonymQuery and
  // Elasticsearch's blended prefix rewrite do): its frequency in a field is
  // the sum of theirs, its document frequency the largest of theirs. A prefix
  // that expands to one term is that term's unit.
  bool any = false;
  bool scoring = false;  // occurs outside every NOT
  double idf = 0;
  double bound = 0;  // >= the unit's score in any document (scoring units)
};

struct PlanNode {
  Node::Kind kind = Node::Kind::kTerm;
  // Leaves: the units any of which makes the leaf match (none: never matches).
  std::vector<std::size_t> units;
  std::vector<PlanNode> children;  // kAnd, kOr, kNot
};

struct Plan {
  std::vector<PlanUnit> units;
  PlanNode root;
  // Every matching document contains a scoring unit (false for `NOT a`,
  // `a OR NOT b`): otherwise documents with none match too, with score 0.
  bool needs_positive = true;
};

// Folds a unit's words' per-field figures into the unit's score bound. Each
// word gives, per field, its largest tf and the shortest length of a field
// it occurs in (tf 0: it occurs in none). A phrase occurs in field f only
// where all its words do: its tf there is at most the smallest of their
// max_tf, and the field is at least as long as the largest of their min_len.
// A prefix's (`any`) tf in f is the sum of its terms' tfs, so at most the sum
// of their max_tf, in a field at least as long as the shortest min_len among
// the terms that occur in f.
class UnitBound {
 public:
  UnitBound(bool any, std::size_t num_fields);
  // One word's figures; both vectors have num_fields entries.
  void Add(const std::vector<std::uint32_t>& max_tf, const std::vector<std::uint32_t>& min_len);
  // The bound of a unit with `idf` over the words added.
  double Score(const Bm25& bm25, double idf) const;

 private:
  bool any_;
  std::vector<std::uint32_t> max_tf_;
  std::vector<std::uint32_t> min_len_;
};

// Compiles `root`; the prefixes together read at most `max_expansions`
// dictionary words (ExpandPrefix), the later ones cut short past it (callers
// refuse such queries first with CheckExpansions).
Plan CompilePlan(const IndexData& data, const Bm25& bm25, const Node& root,
                 std::size_t max_expansions = SIZE_MAX - 1);

// Whether the distinct prefixes of `root` together match more than
// `max_expansions` dictionary words of `data` (words as they appeared with a
// stemmer, terms without): the message naming the prefix at which the count
// passed the cap, or nullopt. Reads at most max_expansions + 1 words.
std::optional<std::string> CheckExpansions(const IndexData& data, const Node& root,
                                           std::size_t max_expansions);

// Whether a document matches `node`, given whether it contains each unit.
template <typename Has>
bool Matches(const PlanNode& node, Has&& has) {
  switch (node.kind) {
    case Node::Kind::kAnd:
      for (const PlanNode& c : node.children) {
        if (!Matches(c, has)) return false;
      }
      return true;
    case Node::Kind::kOr:
      for (const PlanNode& c : node.children) {
        if (Matches(c, has)) return true;
      }
      return false;
    case Node::Kind::kNot:
      return !Matches(node.children[0], has);
    default:
      for (std::size_t u : node.units) {
        if (has(u)) return true;
      }
      return false;
  }
}

}  // namespace engram::text

#endif  // ENGRAM_TEXT_RANK_PLAN_H_
