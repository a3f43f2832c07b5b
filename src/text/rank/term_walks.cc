// The walks that need no MaxScore: one term's blocks, and the zero-score
// tier (search.h).
#include <algorithm>
#include <vector>

#include "text/rank/cursor.h"
#include "text/rank/search.h"
#include "text/rank/top_k.h"

namespace engram::text {

std::vector<TextHit> OneTermTopK(const IndexData& data, const PlanUnit& unit, const Bm25& bm25,
                                 std::size_t k, const roaring::Roaring* allowed,
                                 TextSearchStats* stats, const Deadline* deadline) {
  DeadlinePoll poll(deadline);
  const std::size_t nf = data.num_fields();
  const TermPostings& p = data.postings[unit.words[0]];
  TopK top(k);
  std::size_t scored = 0;
  for (std::size_t b = 0; b < p.blocks.size(); ++b) {
    if (poll.Passed()) {
      if (stats) stats->stopped = true;
      break;
    }
    double theta = top.threshold();
    if (Prunable(std::min(unit.bound, bm25.BlockBound(unit.idf, p.block_max_t[b])), theta)) {
      continue;
    }
    const PostingBlock& block = p.blocks[b];
    for (std::size_t i = 0; i < block.size(); ++i) {
      const std::uint32_t doc = block.docs[i];
      if (allowed != nullptr && !allowed->contains(doc)) continue;
      const double score = bm25.Score(unit.idf, block.tfs.data() + i * nf, doc);
      ++scored;
      if (score < theta) continue;  // a tie loses too: doc comes after the kept hits
      top.Push(TextHit{doc, score});
      theta = top.threshold();
    }
  }
  if (stats) {
    stats->candidates += scored;
    stats->postings_scored += scored;
  }
  return top.Take();
}

std::vector<TextHit> ZeroScoreDocs(const IndexData& data, const Plan& plan, std::size_t k,
                                   const roaring::Roaring* allowed, TextSearchStats* stats,
                                   const Deadline* deadline) {
  std::vector<TextHit> out;
  if (k == 0) return out;
  DeadlinePoll poll(deadline);
  std::vector<UnitCursor> cursors;
  cursors.reserve(plan.units.size());
  for (const PlanUnit& u : plan.units) cursors.emplace_back(data, u);
  const roaring::Roaring& docs = allowed ? *allowed : data.live;
  for (std::uint32_t d : docs) {
    if (poll.Passed()) {
      if (stats) stats->stopped = true;
      break;
    }
    if (allowed && !data.live.contains(d)) continue;
    auto has = [&](std::size_t u) { return cursors[u].Has(d); };
    if (!Matches(plan.root, has)) continue;
    bool positive = false;
    for (std::size_t u = 0; u < plan.units.size() && !positive; ++u) {
      positive = plan.units[u].scoring && has(u);
    }
    if (positive) continue;
    out.push_back(TextHit{d, 0.0});
    if (out.size() == k) break;
  }
  return out;
}

}  // namespace engram::text
