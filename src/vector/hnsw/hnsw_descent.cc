// The descent of a search (hnsw_graph.h: GreedyDescent, Descend): from the
// entry point down the upper levels to the node level 0's walk starts from.
// Greedy on every level, as in Malkov and Yashunin's Algorithm 5 and in
// hnswlib; or, on level 1, a search with a beam of a few nodes (FAISS's
// upper_beam). On clustered data a greedy path can stop on level 1 in a
// cluster next to the query's, and level 0's walk, whose links stay almost
// all inside clusters, then rarely leaves it: on synthetic-1m of seed 1 (a
// saved graph, 300 queries) 78 greedy descents ended in another cluster than
// the query's nearest neighbours', and 11 queries found none of them at ef
// 48. Level 1 holds one node in m; a beam there costs a few distances more
// than the greedy path, on the 8-bit copy when the walk uses it.
#include "vector/hnsw/hnsw_graph.h"

namespace engram::vector {
namespace {

// Level 1 searched from `cur` with a beam of `width` (Algorithm 2 with ef =
// width): the nearest node met. Its distances are `codes`' when set.
HeapItem BeamOnLevelOne(const HnswGraph& g, const float* q, HeapItem cur, std::size_t width,
                        const Sq8Codes* codes, const Sq8Query& coded, SearchContext& ctx,
                        HnswSearchStats& stats) {
  const std::size_t dim = g.store->dim();
  const DistanceFn dist = g.store->distance_fn();
  auto distance = [&](std::uint32_t id) {
    ++stats.distances;
    return codes != nullptr ? codes->Distance(coded, id) : dist(q, g.store->Get(id), dim);
  };
  if (codes != nullptr) cur.distance = distance(cur.id);
  ctx.Reset(g.capacity);
  ctx.Visit(cur.id);
  HeapPush(ctx.candidates, cur, MinFirst{});
  HeapPush(ctx.top, cur, MaxFirst{});
  HeapItem best = cur;
  while (!ctx.candidates.empty()) {
    const HeapItem c = ctx.candidates[0];
    if (ctx.top.size() >= width && c.distance > ctx.top[0].distance) break;
    HeapPop(ctx.candidates, MinFirst{});
    const std::uint32_t* l = g.Links(c.id, 1);
    for (std::uint32_t j = 1; j <= l[0]; ++j) PrefetchVector(g, codes, l[j]);
    for (std::uint32_t j = 1; j <= l[0]; ++j) {
      const std::uint32_t nb = l[j];
      if (g.levels[nb] < 1 || ctx.Visited(nb)) continue;  // a link left by a drop (Hnsw::Drop)
      ctx.Visit(nb);
      const float d = distance(nb);
      if (d < best.distance) best = {d, nb};
      if (ctx.top.size() < width || d < ctx.top[0].distance) {
        HeapPush(ctx.candidates, {d, nb}, MinFirst{});
        HeapPush(ctx.top, {d, nb}, MaxFirst{});
        if (ctx.top.size() > width) HeapPop(ctx.top, MaxFirst{});
      }
    }
  }
  ctx.candidates.clear();
  ctx.top.clear();
  return best;
}

}  // namespace

std::size_t DefaultUpperBeam(std::size_t live, std::size_t m) {
  constexpr std::size_t kLevelOneNodesPerWidth = 4096;
  constexpr std::size_t kMaxWidth = 8;
  const std::size_t level_one = live / std::max<std::size_t>(m, 1);
  return std::clamp<std::size_t>(level_one / kLevelOneNodesPerWidth, 1, kMaxWidth);
}

HeapItem GreedyDescent(const HnswGraph& g, const float* q, int to, HnswSearchStats& stats) {
  const std::size_t dim = g.store->dim();
  const DistanceFn dist = g.store->distance_fn();
  HeapItem cur{g.store->Distance(q, g.entry), g.entry};
  ++stats.distances;
  for (int level = g.max_level; level >= to; --level) {
    for (bool changed = true; changed;) {
      changed = false;
      const std::uint32_t* l = g.Links(cur.id, level);
      for (std::uint32_t j = 1; j <= l[0]; ++j) PrefetchVector(g, nullptr, l[j]);
      for (std::uint32_t j = 1; j <= l[0]; ++j) {
        if (g.levels[l[j]] < level) continue;  // a link left by a drop (Hnsw::Drop)
        const float d = dist(q, g.store->Get(l[j]), dim);
        ++stats.distances;
        if (d < cur.distance) {
          cur = {d, l[j]};
          changed = true;
        }
      }
    }
  }
  return cur;
}

HeapItem Descend(const HnswGraph& g, const float* q, std::size_t width, const Sq8Codes* codes,
                 const Sq8Query& coded, SearchContext& ctx, HnswSearchStats& stats) {
  if (width > 1 && g.max_level >= 1) {
    return BeamOnLevelOne(g, q, GreedyDescent(g, q, 2, stats), width, codes, coded, ctx, stats);
  }
  HeapItem ep = GreedyDescent(g, q, 1, stats);
  if (codes != nullptr) {  // in the walk's distances
    ep.distance = codes->Distance(coded, ep.id);
    ++stats.distances;
  }
  return ep;
}

}  // namespace engram::vector
