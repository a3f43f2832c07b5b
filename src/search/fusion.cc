#include "search/fusion.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

namespace engram::search {

double RrfScore(const Hit& hit, std::size_t rrf_k) {
  const double k = static_cast<double>(rrf_k);
  double score = 0;
  if (hit.text_rank) score += 1.0 / (k + static_cast<double>(*hit.text_rank));
  if (hit.vector_rank) score += 1.0 / (k + static_cast<double>(*hit.vector_rank));
  return score;
}

namespace {

std::size_t BestRank(const Hit& h) {
  std::size_t best = std::numeric_limits<std::size_t>::max();
  if (h.text_rank) best = std::min(best, *h.text_rank);
  if (h.vector_rank) best = std::min(best, *h.vector_rank);
  return best;
}

}  // namespace

std::vector<Hit> FuseRrf(const std::vector<Hit>& text, const std::vector<Hit>& vector,
                         std::size_t rrf_k) {
  std::vector<Hit> out;
  out.reserve(text.size() + vector.size());
  std::unordered_map<std::uint32_t, std::size_t> at;  // record -> index in out
  at.reserve(text.size() + vector.size());
  for (const Hit& h : text) {
    if (at.emplace(h.doc, out.size()).second) out.push_back(h);
  }
  for (const Hit& h : vector) {
    auto [it, added] = at.emplace(h.doc, out.size());
    if (added) {
      out.push_back(h);
      continue;
    }
    Hit& merged = out[it->second];
    merged.vector_rank = h.vector_rank;
    merged.distance = h.distance;
  }
  for (Hit& h : out) h.score = RrfScore(h, rrf_k);
  std::sort(out.begin(), out.end(), [](const Hit& a, const Hit& b) {
    if (a.score != b.score) return a.score > b.score;
    const std::size_t ra = BestRank(a), rb = BestRank(b);
    if (ra != rb) return ra < rb;
    return a.doc < b.doc;
  });
  return out;
}

}  // namespace engram::search
