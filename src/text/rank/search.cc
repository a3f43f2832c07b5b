// TextIndex::Search and SearchExhaustive: compile the query, run an
// evaluator, and apply the bare-word relaxation of QUERY_DSL.md §3.
#include "text/rank/search.h"

#include <functional>

#include "text/index/text_index.h"
#include "text/rank/top_k.h"

namespace engram::text {
namespace {

using Evaluator = std::function<std::vector<TextHit>(const Plan&, std::size_t k,
                                                     const roaring::Roaring* allowed)>;

// The strict boolean query first; then, for a bare-word conjunction with
// fewer than k strict hits, the documents matching some of its conjuncts (an
// OR of them), best first, fill the remaining places. Strict hits stay ahead
// of every partial one, whatever the scores.
std::vector<TextHit> Run(const IndexData& data, const DefaultQuery& query, std::size_t k,
                         const roaring::Roaring* allowed, const Bm25& bm25,
                         std::size_t max_expansions, const Evaluator& evaluate,
                         TextSearchStats* stats) {
  if (!query.root || k == 0) return {};
  std::vector<TextHit> hits =
      evaluate(CompilePlan(data, bm25, *query.root, max_expansions), k, allowed);
  const Node& root = *query.root;
  if (!query.bare() || !data.options.relax || hits.size() >= k || root.kind != Node::Kind::kAnd ||
      (stats && stats->stopped)) {
    return hits;
  }
  // The best k of the OR hold the strict hits (they match it too) and at
  // least k - |strict| others: those, in order, fill the places.
  const Node partial = Node::Group(Node::Kind::kOr, root.children);
  const std::vector<TextHit> more =
      evaluate(CompilePlan(data, bm25, partial, max_expansions), k, allowed);
  const std::size_t strict = hits.size();
  for (const TextHit& h : more) {
    if (hits.size() == k) break;
    bool seen = false;
    for (std::size_t i = 0; i < strict && !seen; ++i) seen = hits[i].doc == h.doc;
    if (!seen) hits.push_back(h);
  }
  if (hits.size() > strict && stats) stats->relaxed = true;
  return hits;
}

}  // namespace

std::vector<TextHit> TextIndex::Search(const DefaultQuery& query, std::size_t k,
                                       const roaring::Roaring* allowed, TextSearchStats* stats,
                                       const TextSearchOptions& options) const {
  const Bm25 bm25(data_);
  TextSearchStats own;  // the stop flag is needed even when the caller keeps no stats
  TextSearchStats* s = stats != nullptr ? stats : &own;
  Evaluator pruned = [&](const Plan& plan, std::size_t n, const roaring::Roaring* ok) {
    std::vector<TextHit> hits =
        MaxScoreTopK(data_, plan, bm25, n, ok, s, options.deadline, options.full_sum_postings);
    if (plan.needs_positive || s->stopped) return hits;
    return MergeHits(std::move(hits), ZeroScoreDocs(data_, plan, n, ok, s, options.deadline), n);
  };
  return Run(data_, query, k, allowed, bm25, options.max_expansions, pruned, s);
}

std::vector<TextHit> TextIndex::SearchExhaustive(const DefaultQuery& query, std::size_t k,
                                                 const roaring::Roaring* allowed) const {
  return SearchExhaustive(query, k, allowed, nullptr);
}

std::vector<TextHit> TextIndex::SearchExhaustive(const DefaultQuery& query, std::size_t k,
                                                 const roaring::Roaring* allowed,
                                                 TextSearchStats* stats) const {
  const Bm25 bm25(data_);
  Evaluator all = [&](const Plan& plan, std::size_t n, const roaring::Roaring* ok) {
    return ExhaustiveTopK(data_, plan, bm25, n, ok, stats);
  };
  return Run(data_, query, k, allowed, bm25, SIZE_MAX - 1, all, stats);
}

}  // namespace engram::text
