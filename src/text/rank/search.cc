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
  roaring::Roaring rest = allowed ? *allowed : data.live;
  for (const TextHit& h : hits) rest.remove(h.doc);
  const Node partial = Node::Group(Node::Kind::kOr, root.children);
  std::vector<TextHit> more =
      evaluate(CompilePlan(data, bm25, partial, max_expansions), k - hits.size(), &rest);
  if (!more.empty() && stats) stats->relaxed = true;
  hits.insert(hits.end(), more.begin(), more.end());
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
    std::vector<TextHit> hits = MaxScoreTopK(data_, plan, bm25, n, ok, s, options.deadline);
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
