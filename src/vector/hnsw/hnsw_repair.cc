// Hnsw: removal. A removed node becomes a tombstone: searches still walk
// through it (so the graph stays connected) but never return it. Once
// tombstones pass a quarter of the nodes, Repair re-links every node that
// points at one, choosing with the heuristic among its live neighbours and
// the live neighbours of the removed ones it pointed at (the two-hop
// candidate pool of hnswlib's repairConnectionsForUpdate), then drops the
// removed nodes and re-picks the entry point.
#include <algorithm>

#include "vector/hnsw/hnsw.h"
#include "vector/hnsw/hnsw_graph.h"

namespace engram::vector {

void Hnsw::Remove(std::uint32_t id) {
  Graph& g = *graph_;
  if (id >= g.capacity || g.state[id].load() != HnswGraph::kLive) return;
  g.state[id].store(HnswGraph::kRemoved);
  g.SetLiveBit(id, false);
  g.live_count.fetch_sub(1);
  g.removed_count.fetch_add(1);
  const std::size_t removed = g.removed_count.load();
  if (4 * removed > g.live_count.load() + removed) g.Repair();
}

void HnswGraph::Repair() {
  const std::size_t dim = store->dim();
  const DistanceFn dist = store->distance_fn();
  auto removed = [&](std::uint32_t id) { return state[id].load() == kRemoved; };
  std::unique_ptr<SearchContext> ctx = AcquireContext();
  std::vector<HeapItem> pool_items;
  for (std::uint32_t v = 0; v < capacity; ++v) {
    if (state[v].load() != kLive) continue;
    const float* vv = store->Get(v);
    for (int level = 0; level <= levels[v]; ++level) {
      std::uint32_t* l = Links(v, level);
      const std::uint32_t n = l[0];
      if (std::none_of(l + 1, l + 1 + n, removed)) continue;
      // Candidates: live links of v, and the live links of each removed one.
      ctx->Reset(capacity);
      ctx->Visit(v);
      pool_items.clear();
      auto add = [&](std::uint32_t c) {
        if (ctx->Visited(c) || removed(c)) return;
        ctx->Visit(c);
        pool_items.push_back({dist(vv, store->Get(c), dim), c});
      };
      for (std::uint32_t i = 1; i <= n; ++i) {
        if (!removed(l[i])) {
          add(l[i]);
          continue;
        }
        const std::uint32_t* r = Links(l[i], level);
        for (std::uint32_t j = 1; j <= r[0]; ++j) add(r[j]);
      }
      std::sort(pool_items.begin(), pool_items.end(),
                [](const HeapItem& a, const HeapItem& b) { return a.distance < b.distance; });
      SelectNeighbors(pool_items, MaxLinks(level));
      l[0] = static_cast<std::uint32_t>(pool_items.size());
      for (std::size_t i = 0; i < pool_items.size(); ++i) l[1 + i] = pool_items[i].id;
    }
  }
  ReleaseContext(std::move(ctx));
  // Drop the removed nodes, after every list that read theirs is rewritten.
  for (std::uint32_t v = 0; v < capacity; ++v) {
    if (!removed(v)) continue;
    state[v].store(kAbsent);
    levels[v] = -1;
    std::vector<std::uint32_t>().swap(upper[v]);
    level0[std::size_t{v} * stride0] = 0;
  }
  removed_count.store(0);
  // The entry point: the live node with the highest level.
  if (entry == kNoNode || state[entry].load() != kLive) {
    entry = kNoNode;
    max_level = -1;
    for (std::uint32_t v = 0; v < capacity; ++v) {
      if (state[v].load() == kLive && levels[v] > max_level) {
        entry = v;
        max_level = levels[v];
      }
    }
  }
}

}  // namespace engram::vector
