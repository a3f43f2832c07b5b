// The exhaustive oracle (search.h): no cursors, no bounds, no early exit.
#include <algorithm>
#include <unordered_map>
#include <vector>

#include "text/rank/search.h"
#include "text/rank/top_k.h"

namespace engram::text {
namespace {

using DocTfs = std::unordered_map<std::uint32_t, std::vector<std::uint32_t>>;

// Per field, the number of positions p of the first word such that word i
// occurs at p + i, found by linear scans; at[w] is word w's posting.
std::vector<std::uint32_t> NaivePhraseTfs(const IndexData& data, const PlanUnit& unit,
                                          const std::vector<PostingAt>& at) {
  const std::size_t nf = data.num_fields();
  std::vector<std::uint32_t> tfs(nf, 0);
  auto positions = [&](std::size_t w, std::size_t f, std::size_t* n) {
    return data.postings[unit.words[w]].block(at[w].block).field_positions(at[w].i, f, nf, n);
  };
  for (std::size_t f = 0; f < nf; ++f) {
    std::size_t n0;
    const std::uint32_t* p0 = positions(0, f, &n0);
    for (std::size_t s = 0; s < n0; ++s) {
      bool all = true;
      for (std::size_t w = 1; w < unit.words.size() && all; ++w) {
        std::size_t n;
        const std::uint32_t* p = positions(w, f, &n);
        all = std::find(p, p + n, p0[s] + w) != p + n;
      }
      if (all) ++tfs[f];
    }
  }
  return tfs;
}

DocTfs UnitDocs(const IndexData& data, const PlanUnit& unit) {
  const std::size_t nf = data.num_fields();
  DocTfs out;
  if (unit.any) {  // a prefix: every term's postings, tfs summed per document
    for (std::uint32_t w : unit.words) {
      const TermPostings& p = data.postings[w];
      p.ForEach([&](std::uint32_t d, std::size_t b, std::size_t i) {
        std::vector<std::uint32_t>& tfs = out[d];
        tfs.resize(nf, 0);
        const std::uint32_t* t = p.block(b).tfs.data() + i * nf;
        for (std::size_t f = 0; f < nf; ++f) tfs[f] += t[f];
      });
    }
    return out;
  }
  const TermPostings& first = data.postings[unit.words[0]];
  first.ForEach([&](std::uint32_t d, std::size_t b, std::size_t i) {
    if (unit.words.size() == 1) {
      const std::vector<std::uint32_t>& tfs = first.block(b).tfs;
      out[d].assign(tfs.begin() + static_cast<std::ptrdiff_t>(i * nf),
                    tfs.begin() + static_cast<std::ptrdiff_t>((i + 1) * nf));
      return;
    }
    std::vector<PostingAt> at{{b, i}};
    for (std::size_t w = 1; w < unit.words.size(); ++w) {
      const TermPostings& p = data.postings[unit.words[w]];
      const PostingAt found = p.LowerBound(d);
      if (found.block == p.blocks.size() || p.doc(found) != d) break;
      at.push_back(found);
    }
    if (at.size() != unit.words.size()) return;
    std::vector<std::uint32_t> tfs = NaivePhraseTfs(data, unit, at);
    if (std::any_of(tfs.begin(), tfs.end(), [](std::uint32_t t) { return t > 0; })) {
      out[d] = std::move(tfs);
    }
  });
  return out;
}

}  // namespace

std::vector<TextHit> ExhaustiveTopK(const IndexData& data, const Plan& plan, const Bm25& bm25,
                                    std::size_t k, const roaring::Roaring* allowed,
                                    TextSearchStats* stats) {
  std::vector<DocTfs> units;
  for (const PlanUnit& u : plan.units) units.push_back(UnitDocs(data, u));
  std::vector<TextHit> hits;
  for (std::uint32_t d : data.live) {
    if (allowed != nullptr && !allowed->contains(d)) continue;
    auto has = [&](std::size_t u) { return units[u].count(d) > 0; };
    if (!Matches(plan.root, has)) continue;
    if (stats) ++stats->candidates;
    double score = 0;
    for (std::size_t u = 0; u < plan.units.size(); ++u) {
      if (!plan.units[u].scoring || !has(u)) continue;
      score += bm25.Score(plan.units[u].idf, units[u].at(d).data(), d);
      if (stats) ++stats->postings_scored;
    }
    hits.push_back(TextHit{d, score});
  }
  std::sort(hits.begin(), hits.end(), Better);
  if (hits.size() > k) hits.resize(k);
  return hits;
}

}  // namespace engram::text
