// MaxScore (search.h) and the zero-score tier.
#include <algorithm>
#include <vector>

#include "text/rank/cursor.h"
#include "text/rank/search.h"
#include "text/rank/top_k.h"

namespace engram::text {

namespace {

// MaxScoreTopK for a plan of one term whose postings the allowed-set does
// not drive: the blocks in order, each skipped when its bound cannot beat
// the threshold, else its postings scored straight from its arrays.
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

}  // namespace

std::vector<TextHit> MaxScoreTopK(const IndexData& data, const Plan& plan, const Bm25& bm25,
                                  std::size_t k, const roaring::Roaring* allowed,
                                  TextSearchStats* stats, const Deadline* deadline) {
  if (plan.units.size() == 1 && plan.units[0].scoring && plan.units[0].words.size() == 1 &&
      !plan.units[0].any && plan.root.children.empty() && plan.root.units.size() == 1 &&
      (allowed == nullptr ||
       allowed->cardinality() * 4 >= data.postings[plan.units[0].words[0]].size())) {
    return OneTermTopK(data, plan.units[0], bm25, k, allowed, stats, deadline);
  }
  DeadlinePoll poll(deadline);
  auto stop = [&] {
    if (!poll.Passed()) return false;
    if (stats) stats->stopped = true;
    return true;
  };
  std::vector<UnitCursor> cursors;
  cursors.reserve(plan.units.size());
  for (const PlanUnit& u : plan.units) cursors.emplace_back(data, u);
  std::vector<std::size_t> order;  // the scoring units, by window bound ascending
  for (std::size_t u = 0; u < plan.units.size(); ++u) {
    if (plan.units[u].scoring) order.push_back(u);
  }
  const std::size_t m = order.size();

  // A selective allowed-set drives the iteration: from a document not
  // allowed, the cursors skip to the next allowed one (the documents in
  // between are no candidates), instead of visiting every posting and
  // testing each.
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
  // Whether every candidate matches, so that Matches need not be asked: a
  // candidate holds an essential unit, after align all required ones, so
  // an OR of positive leaves, or an AND of required ones, always matches.
  bool always = plan.root.children.empty() && plan.root.kind != Node::Kind::kNot &&
                plan.root.kind != Node::Kind::kAnd && plan.root.kind != Node::Kind::kOr;
  if (plan.root.kind == Node::Kind::kOr || plan.root.kind == Node::Kind::kAnd) {
    always = plan.root.kind == Node::Kind::kOr || required.size() == plan.root.children.size();
    for (const PlanNode& c : plan.root.children) {
      always = always && c.children.empty() && c.kind != Node::Kind::kNot &&
               c.kind != Node::Kind::kAnd && c.kind != Node::Kind::kOr;
    }
  }
  // Moves d forward to the first document >= d that holds every required
  // unit and is allowed (when the allowed-set drives); false when there is
  // none. The documents skipped cannot match.
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
      d = target;
    }
  };

  // Block-max: the documents go by in windows that end where the first
  // block of a one-term unit ends, so that within a window each such unit's
  // postings lie in one block, whose bounds bound the unit there (`bound`,
  // 0 when the block starts past the window). Other units keep their
  // list-wide bound. The units are ordered by these window bounds, and the
  // essential/non-essential split of MaxScore is made per window; a window
  // whose bounds sum to no more than the threshold is skipped whole.
  std::vector<double> bound(plan.units.size(), 0);
  std::vector<double> prefix(m);  // prefix[i]: the bounds of order[0..i]
  std::vector<std::size_t> cached(plan.units.size(), SIZE_MAX);  // the block of cached_bound
  std::vector<double> cached_bound(plan.units.size(), 0);
  std::vector<UnitCursor::Block> blocks(plan.units.size());  // a single() unit's in the window
  std::vector<char> has_block(plan.units.size(), 0);
  auto block_bound = [&](std::size_t u, std::size_t b) {
    if (cached[u] != b) {
      cached[u] = b;
      const float max_t = data.postings[plan.units[u].words[0]].block_max_t[b];
      cached_bound[u] = std::min(plan.units[u].bound, bm25.BlockBound(plan.units[u].idf, max_t));
    }
    return cached_bound[u];
  };

  TopK top(k);
  std::vector<double> contrib(plan.units.size(), 0);
  std::vector<std::size_t> touched;
  std::uint32_t start = 0;  // the first document not yet passed
  while (m > 0 && !stop()) {
    if ((drive || !required.empty()) && !align(start)) break;
    std::uint32_t end = kNoDoc - 1;  // the window is [start, end]
    for (std::size_t u : order) {
      if (!cursors[u].single()) continue;
      has_block[u] = cursors[u].ShallowSeek(start, &blocks[u]);
      if (has_block[u]) end = std::min(end, blocks[u].last);
    }
    for (std::size_t u : order) {
      if (!cursors[u].single()) {
        bound[u] = cursors[u].doc() == kNoDoc ? 0 : plan.units[u].bound;
      } else {  // a block that starts past the window has no posting in it
        bound[u] = has_block[u] && blocks[u].first <= end ? block_bound(u, blocks[u].index) : 0;
      }
    }
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return bound[a] < bound[b]; });
    for (std::size_t i = 0; i < m; ++i) prefix[i] = (i ? prefix[i - 1] : 0) + bound[order[i]];
    std::size_t essential = 0;  // order[essential..m) are the essential units
    while (essential < m && Prunable(prefix[essential], top.threshold())) ++essential;
    bool skip = essential == m;
    for (std::size_t u : required) skip = skip || bound[u] == 0;  // a unit every match needs
    bool done = false;
    std::uint32_t d = kNoDoc;
    if (!skip) {
      for (std::size_t i = essential; i < m; ++i) {
        cursors[order[i]].Seek(start);
        d = std::min(d, cursors[order[i]].doc());
      }
    }
    auto next = [&] {  // moves the essential cursors at d past it; the next candidate
      std::uint32_t n = kNoDoc;
      for (std::size_t i = essential; i < m; ++i) {
        UnitCursor& c = cursors[order[i]];
        if (c.doc() == d) c.Next();
        n = std::min(n, c.doc());
      }
      return n;
    };
    while (!skip && d <= end) {
      if (drive || !required.empty()) {
        std::uint32_t t = d;
        if (!align(t)) {
          done = true;
          break;
        }
        if (t != d) {
          if (t > end) break;
          d = kNoDoc;
          for (std::size_t i = essential; i < m; ++i) {
            cursors[order[i]].Seek(t);
            d = std::min(d, cursors[order[i]].doc());
          }
          continue;
        }
      } else if (stop()) {
        done = true;
        break;
      }
      if (!drive && allowed != nullptr && !allowed->contains(d)) {
        d = next();
        continue;
      }
      if (stats) ++stats->candidates;
      const double theta = top.threshold();
      double ub = essential ? prefix[essential - 1] : 0;
      for (std::size_t i = essential; i < m; ++i) {
        if (cursors[order[i]].doc() == d) ub += bound[order[i]];
      }
      if (Prunable(ub, theta) ||
          (!always && !Matches(plan.root, [&](std::size_t u) { return cursors[u].Has(d); }))) {
        d = next();
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
        remaining -= bound[u];
        if (bound[u] == 0 || !cursors[u].Has(d)) continue;
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
          if (essential == m) break;  // nothing left in the window can enter
        }
      }
      d = next();
    }
    if (done || end == kNoDoc - 1) break;
    start = end + 1;
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
