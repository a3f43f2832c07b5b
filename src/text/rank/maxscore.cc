// MaxScore (search.h) and the zero-score tier.
#include <algorithm>
#include <vector>

#include "text/rank/cursor.h"
#include "text/rank/search.h"
#include "text/rank/top_k.h"

namespace engram::text {

std::vector<TextHit> MaxScoreTopK(const IndexData& data, const Plan& plan, const Bm25& bm25,
                                  std::size_t k, const roaring::Roaring* allowed,
                                  TextSearchStats* stats, const Deadline* deadline) {
  DeadlinePoll poll(deadline);
  auto stop = [&] {
    if (!poll.Passed()) return false;
    if (stats) stats->stopped = true;
    return true;
  };
  std::vector<UnitCursor> cursors;
  cursors.reserve(plan.units.size());
  for (const PlanUnit& u : plan.units) cursors.emplace_back(data, u);
  // Scoring units by bound ascending; prefix[i] = the bounds of order[0..i].
  std::vector<std::size_t> order;
  for (std::size_t u = 0; u < plan.units.size(); ++u) {
    if (plan.units[u].scoring) order.push_back(u);
  }
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return plan.units[a].bound < plan.units[b].bound;
  });
  const std::size_t m = order.size();
  std::vector<double> prefix(m);
  for (std::size_t i = 0; i < m; ++i) {
    prefix[i] = (i ? prefix[i - 1] : 0) + plan.units[order[i]].bound;
  }

  // A selective allowed-set drives the iteration: from a document not
  // allowed, the essential cursors skip to the next allowed one (the
  // documents in between are no candidates), instead of visiting every
  // posting and testing each.
  std::vector<std::uint32_t> ok_docs;
  std::size_t ok_at = 0;
  if (allowed != nullptr) {
    std::size_t postings = 0;
    for (std::size_t u : order) {
      for (std::uint32_t w : plan.units[u].words) postings += data.postings[w].size();
    }
    const std::uint64_t n = allowed->cardinality();
    if (n == 0) return {};
    if (n * 4 < postings) {
      ok_docs.resize(n);
      allowed->toUint32Array(ok_docs.data());
    }
  }
  const bool drive = !ok_docs.empty();
  // The units every match contains (the single-unit leaves of a top-level
  // AND): candidates are the documents where all of them are (leapfrog).
  std::vector<std::size_t> required;
  if (plan.root.kind == Node::Kind::kAnd) {
    for (const PlanNode& c : plan.root.children) {
      if (c.children.empty() && c.kind != Node::Kind::kAnd && c.kind != Node::Kind::kOr &&
          c.units.size() == 1) {
        required.push_back(c.units[0]);
      }
    }
  }

  TopK top(k);
  std::size_t essential = 0;  // order[essential..m) are the essential units
  std::vector<double> contrib(plan.units.size(), 0);
  std::vector<std::size_t> touched;
  // Moves d (the smallest essential document) forward to the first document
  // >= d that holds every required unit and is allowed (when the allowed-set
  // drives); false when there is none. The documents skipped cannot match.
  auto align = [&](std::uint32_t& d) {
    while (true) {
      if (stop()) return false;
      std::uint32_t target = d;
      for (std::size_t u : required) {
        cursors[u].Seek(target);
        target = std::max(target, cursors[u].doc());
      }
      if (target == kNoDoc) return false;
      if (drive) {
        std::size_t lo = ok_at, step = 1, hi = lo;  // gallop to the first >= target
        while (hi < ok_docs.size() && ok_docs[hi] < target) {
          lo = hi;
          hi = lo + step;
          step *= 2;
        }
        hi = std::min(hi, ok_docs.size());
        ok_at = std::lower_bound(ok_docs.begin() + static_cast<std::ptrdiff_t>(lo),
                                 ok_docs.begin() + static_cast<std::ptrdiff_t>(hi), target) -
                ok_docs.begin();
        if (ok_at == ok_docs.size()) return false;
        target = ok_docs[ok_at];
      }
      if (target == d) return true;
      d = kNoDoc;
      for (std::size_t i = essential; i < m; ++i) {
        cursors[order[i]].Seek(target);
        d = std::min(d, cursors[order[i]].doc());
      }
      if (d == kNoDoc) return false;
    }
  };
  while (essential < m && !stop()) {
    std::uint32_t d = kNoDoc;
    for (std::size_t i = essential; i < m; ++i) d = std::min(d, cursors[order[i]].doc());
    if (d == kNoDoc) break;
    if ((drive || !required.empty()) && !align(d)) break;
    auto advance = [&] {
      for (std::size_t i = essential; i < m; ++i) {
        if (cursors[order[i]].doc() == d) cursors[order[i]].Seek(d + 1);
      }
    };
    if (!drive && allowed != nullptr && !allowed->contains(d)) {
      advance();
      continue;
    }
    if (stats) ++stats->candidates;
    const double theta = top.threshold();
    double ub = essential ? prefix[essential - 1] : 0;
    for (std::size_t i = essential; i < m; ++i) {
      if (cursors[order[i]].doc() == d) ub += plan.units[order[i]].bound;
    }
    if (Prunable(ub, theta) ||
        !Matches(plan.root, [&](std::size_t u) { return cursors[u].Has(d); })) {
      advance();
      continue;
    }
    // Score the units present, largest bound first, while the document can
    // still beat the threshold.
    double partial = 0, remaining = ub;
    bool pruned = false;
    touched.clear();
    for (std::size_t i = m; i-- > 0;) {
      const std::size_t u = order[i];
      if (i >= essential && cursors[u].doc() != d) continue;  // not counted in ub
      if (Prunable(partial + remaining, theta)) {
        pruned = true;
        break;
      }
      remaining -= plan.units[u].bound;
      if (!cursors[u].Has(d)) continue;
      contrib[u] = bm25.Score(plan.units[u].idf, cursors[u].tfs(), d);
      if (stats) ++stats->postings_scored;
      partial += contrib[u];
      touched.push_back(u);
    }
    if (!pruned) {
      // The score is summed in unit order, exactly as the oracle does.
      std::sort(touched.begin(), touched.end());
      double score = 0;
      for (std::size_t u : touched) score += contrib[u];
      top.Push(TextHit{d, score});
      if (top.full()) {
        while (essential < m && Prunable(prefix[essential], top.threshold())) ++essential;
      }
    }
    advance();
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
