// MaxScore with block-max windows (search.h, maxscore.h): the windows,
// and the document-at-a-time walk.
#include "text/rank/maxscore.h"

#include <algorithm>
#include <vector>

#include "text/rank/search.h"

namespace engram::text {
namespace {

bool IsLeaf(const PlanNode& n) {
  return n.children.empty() && n.kind != Node::Kind::kAnd && n.kind != Node::Kind::kOr &&
         n.kind != Node::Kind::kNot;
}

}  // namespace

MaxScore::MaxScore(const IndexData& data, const Plan& plan, const Bm25& bm25, std::size_t k,
                   const roaring::Roaring* allowed, TextSearchStats* stats,
                   const Deadline* deadline, std::size_t full_sum_postings)
    : data_(data),
      plan_(plan),
      bm25_(bm25),
      allowed_(allowed),
      stats_(stats),
      poll_(deadline),
      top_(k) {
  const std::size_t n = plan.units.size();
  std::size_t postings = 0;
  for (std::size_t u = 0; u < n; ++u) {
    if (!plan.units[u].scoring) continue;
    order_.push_back(u);
    for (std::uint32_t w : plan.units[u].words) postings += data.postings[w].size();
  }
  m_ = order_.size();
  // A selective allowed-set drives the iteration: from a document not
  // allowed, the cursors skip to the next allowed one (the documents in
  // between are no candidates), instead of visiting every posting and
  // testing each.
  if (allowed != nullptr && allowed->cardinality() * 4 < postings) {
    ok_docs_.resize(allowed->cardinality());
    allowed->toUint32Array(ok_docs_.data());
  }
  const PlanNode& root = plan.root;
  if (root.kind == Node::Kind::kAnd) {
    for (const PlanNode& c : root.children) {
      if (IsLeaf(c) && c.units.size() == 1) required_.push_back(c.units[0]);
    }
  }
  // A candidate holds an essential unit, and after Align every required
  // one: an OR of positive leaves, or an AND of required ones, matches.
  always_ = IsLeaf(root);
  if (root.kind == Node::Kind::kOr || root.kind == Node::Kind::kAnd) {
    always_ = root.kind == Node::Kind::kOr || required_.size() == root.children.size();
    for (const PlanNode& c : root.children) always_ = always_ && IsLeaf(c);
  }
  bulk_ = always_ && ok_docs_.empty();
  if (bulk_ && root.kind == Node::Kind::kAnd) {
    // An AND sums every posting of its units: worth it over leapfrogging
    // only when no list is much longer than the shortest (the leapfrog
    // skips most of a long list).
    std::size_t shortest = SIZE_MAX, longest = 0;
    for (std::size_t u : order_) {
      const std::size_t size = data.postings[plan.units[u].words[0]].size();
      shortest = std::min(shortest, size);
      longest = std::max(longest, size);
    }
    conjunction_ = bulk_ = longest <= kBalanced * shortest;
  }
  if (bulk_ && !conjunction_ && m_ >= kFullSumUnits && postings <= full_sum_postings) {
    full_sum_ = true;
    for (std::size_t u : order_) {
      full_sum_ = full_sum_ && plan.units[u].words.size() == 1 && !plan.units[u].any;
    }
  }
  if (full_sum_) {  // FullSum reads the lists itself
    acc_.assign(kBulkSpan, 0);
    seen_.assign(kBulkSpan / 64, 0);
    return;
  }
  cursors_.reserve(n);
  for (const PlanUnit& u : plan.units) cursors_.emplace_back(data, u);
  bound_.assign(n, 0);
  prefix_.assign(m_, 0);
  blocks_.resize(n);
  has_block_.assign(n, 0);
  cached_.assign(n, SIZE_MAX);
  cached_bound_.assign(n, 0);
  contrib_.assign(n, 0);
  if (bulk_) {
    acc_.assign(kBulkSpan, 0);
    seen_.assign(kBulkSpan / 64, 0);
    if (conjunction_) count_.assign(kBulkSpan, 0);
    window_.resize(n);
  }
}

bool MaxScore::Stop() {
  if (!poll_.Passed()) return false;
  if (stats_) stats_->stopped = true;
  return true;
}

bool MaxScore::Align(std::uint32_t& d) {
  while (true) {
    if (Stop()) return false;
    std::uint32_t target = d;
    for (std::size_t u : required_) {
      cursors_[u].Seek(target);
      target = std::max(target, cursors_[u].doc());
    }
    if (target == kNoDoc) return false;
    if (!ok_docs_.empty()) {
      ok_at_ = Gallop(ok_docs_, ok_at_, target);
      if (ok_at_ == ok_docs_.size()) return false;
      target = ok_docs_[ok_at_];
    }
    if (target == d) return true;
    d = target;
  }
}

double MaxScore::BlockBound(std::size_t u, std::size_t block) {
  if (cached_[u] != block) {
    cached_[u] = block;
    const PlanUnit& unit = plan_.units[u];
    const float max_t = data_.postings[unit.words[0]].block_max_t[block];
    cached_bound_[u] = std::min(unit.bound, bm25_.BlockBound(unit.idf, max_t));
  }
  return cached_bound_[u];
}

bool MaxScore::Open(std::uint32_t start, std::uint32_t* end) {
  *end = kNoDoc - 1;
  for (std::size_t u : order_) {
    if (!windows() || !cursors_[u].single()) continue;
    has_block_[u] = cursors_[u].ShallowSeek(start, &blocks_[u]);
    if (has_block_[u]) *end = std::min(*end, blocks_[u].last);
  }
  for (std::size_t u : order_) {
    if (!windows() || !cursors_[u].single()) {
      bound_[u] = cursors_[u].doc() == kNoDoc ? 0 : plan_.units[u].bound;
    } else {  // a block that starts past the window has no posting in it
      const bool in = has_block_[u] && blocks_[u].first <= *end;
      bound_[u] = in ? BlockBound(u, blocks_[u].index) : 0;
    }
  }
  std::stable_sort(order_.begin(), order_.end(),
                   [&](std::size_t a, std::size_t b) { return bound_[a] < bound_[b]; });
  for (std::size_t i = 0; i < m_; ++i) prefix_[i] = (i ? prefix_[i - 1] : 0) + bound_[order_[i]];
  essential_ = 0;
  while (essential_ < m_ && Prunable(prefix_[essential_], top_.threshold())) ++essential_;
  if (essential_ == m_) return false;
  for (std::size_t u : required_) {
    if (bound_[u] == 0) return false;  // a unit every match needs is not in the window
  }
  return true;
}

std::vector<TextHit> MaxScore::Run() {
  if (m_ == 0 || (allowed_ != nullptr && allowed_->cardinality() == 0)) return {};
  if (full_sum_) {
    FullSum();
    return top_.Take();
  }
  std::uint32_t start = 0;  // the first document not yet passed
  while (!Stop()) {
    if ((!ok_docs_.empty() || !required_.empty()) && !Align(start)) break;
    std::uint32_t end;
    if (Open(start, &end)) {
      // SumWindow reads the units it sums (every one of an AND) from their blocks.
      bool sum = bulk_;
      for (std::size_t i = conjunction_ ? 0 : essential_; i < m_ && sum; ++i) {
        sum = cursors_[order_[i]].single();
      }
      if (!(sum ? SumWindow(start, end) : WalkWindow(start, end))) break;
    }
    if (end == kNoDoc - 1) break;
    start = end + 1;
  }
  return top_.Take();
}

bool MaxScore::WalkWindow(std::uint32_t start, std::uint32_t end) {
  std::uint32_t d = kNoDoc;
  for (std::size_t i = essential_; i < m_; ++i) {
    cursors_[order_[i]].Seek(start);
    d = std::min(d, cursors_[order_[i]].doc());
  }
  auto next = [&] {  // moves the essential cursors at d past it; the next candidate
    std::uint32_t n = kNoDoc;
    for (std::size_t i = essential_; i < m_; ++i) {
      UnitCursor& c = cursors_[order_[i]];
      if (c.doc() == d) c.Next();
      n = std::min(n, c.doc());
    }
    return n;
  };
  while (d <= end) {
    if (!ok_docs_.empty() || !required_.empty()) {
      std::uint32_t t = d;
      if (!Align(t)) return false;
      if (t != d) {
        if (t > end) return true;
        d = kNoDoc;
        for (std::size_t i = essential_; i < m_; ++i) {
          cursors_[order_[i]].Seek(t);
          d = std::min(d, cursors_[order_[i]].doc());
        }
        continue;
      }
    } else if (Stop()) {
      return false;
    }
    if (ok_docs_.empty() && allowed_ != nullptr && !allowed_->contains(d)) {
      d = next();
      continue;
    }
    if (stats_) ++stats_->candidates;
    const double theta = top_.threshold();
    double ub = essential_ ? prefix_[essential_ - 1] : 0;
    for (std::size_t i = essential_; i < m_; ++i) {
      if (cursors_[order_[i]].doc() == d) ub += bound_[order_[i]];
    }
    if (Prunable(ub, theta) ||
        (!always_ && !Matches(plan_.root, [&](std::size_t u) { return cursors_[u].Has(d); }))) {
      d = next();
      continue;
    }
    // The essential units at d, largest bound first, while d can still beat
    // the threshold; then the others.
    double partial = 0, remaining = ub;
    bool pruned = false;
    present_.clear();
    for (std::size_t i = m_; i-- > essential_ && !pruned;) {
      const std::size_t u = order_[i];
      if (cursors_[u].doc() != d) continue;  // not counted in ub
      pruned = Prunable(partial + remaining, theta);
      if (pruned) break;
      remaining -= bound_[u];
      contrib_[u] = ScoreAt(u, d);
      partial += contrib_[u];
      present_.push_back(u);
    }
    if (!pruned && Complete(d, essential_, theta, partial, remaining)) {
      Keep(d);
      if (top_.full()) {
        while (essential_ < m_ && Prunable(prefix_[essential_], top_.threshold())) ++essential_;
        if (essential_ == m_) return true;  // nothing left in the window can enter
      }
    }
    d = next();
  }
  return true;
}

bool MaxScore::Complete(std::uint32_t d, std::size_t essential, double theta, double partial,
                        double remaining) {
  for (std::size_t i = essential; i-- > 0;) {
    const std::size_t u = order_[i];
    if (Prunable(partial + remaining, theta)) return false;
    remaining -= bound_[u];
    if (bound_[u] == 0 || !cursors_[u].Has(d)) continue;
    contrib_[u] = ScoreAt(u, d);
    partial += contrib_[u];
    present_.push_back(u);
  }
  return !Prunable(partial, theta);
}

void MaxScore::Keep(std::uint32_t d) {
  std::sort(present_.begin(), present_.end());
  double score = 0;
  for (std::size_t u : present_) score += contrib_[u];
  top_.Push(TextHit{d, score});
}

std::vector<TextHit> MaxScoreTopK(const IndexData& data, const Plan& plan, const Bm25& bm25,
                                  std::size_t k, const roaring::Roaring* allowed,
                                  TextSearchStats* stats, const Deadline* deadline,
                                  std::size_t full_sum_postings) {
  const bool one_term = plan.units.size() == 1 && plan.units[0].scoring &&
                        plan.units[0].words.size() == 1 && !plan.units[0].any &&
                        IsLeaf(plan.root) && plan.root.units.size() == 1;
  if (one_term && (allowed == nullptr ||
                   allowed->cardinality() * 4 >= data.postings[plan.units[0].words[0]].size())) {
    return OneTermTopK(data, plan.units[0], bm25, k, allowed, stats, deadline);
  }
  return MaxScore(data, plan, bm25, k, allowed, stats, deadline, full_sum_postings).Run();
}

}  // namespace engram::text
