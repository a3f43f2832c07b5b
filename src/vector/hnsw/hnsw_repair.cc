// Hnsw: removal. A removed node becomes a tombstone: searches still walk
// through it (so the graph stays connected) but never return it. Once
// tombstones (with the drops since the last repair) pass an eighth of the
// nodes, Repair re-links every node that points at one, choosing with the
// heuristic among its live neighbours and the live neighbours of the removed
// ones it pointed at (the two-hop candidate pool of hnswlib's
// repairConnectionsForUpdate and of FreshDiskANN's delete consolidation,
// Singh et al. 2021, Algorithm 4), then drops the removed nodes and re-picks
// the entry point. Drop does the same at once for one node whose number is
// about to take another vector, finding the nodes that link to it by a search
// for its vector (and among its neighbours' neighbours) instead of a scan of
// the whole graph; the few links the search misses are left stale
// (HnswGraph::incarnation) until the next repair removes them.
// ConnectLevel0 links in the nodes no walk from the entry point reaches.
#include <algorithm>

#include "base/prefetch.h"
#include "vector/hnsw/hnsw.h"
#include "vector/hnsw/hnsw_graph.h"

namespace engram::vector {
namespace {

// Re-links node v on `level` without the nodes `gone` says are going and
// without stale links (HnswGraph::incarnation): its other links and the
// links of the going ones that are tombstones (a free number's links are
// gone already) are the candidates, and the heuristic keeps at most MaxLinks
// (as hnswlib's repair and FreshDiskANN's consolidation do: keeping only as
// many as v had erodes degrees under churn, and recall with them). Uses
// ctx's marks; `pool` is scratch.
template <typename Gone>
void Relink(HnswGraph& g, std::uint32_t v, int level, const Gone& gone, SearchContext& ctx,
            std::vector<HeapItem>& pool) {
  const std::size_t dim = g.store->dim();
  const DistanceFn dist = g.store->distance_fn();
  const float* vv = g.store->Get(v);
  const std::uint32_t* l = g.Links(v, level);
  const std::uint8_t* stamps = g.Stamps(v, level);
  const std::uint32_t n = l[0];
  ctx.Reset(g.capacity);
  ctx.Visit(v);
  pool.clear();
  auto add = [&](std::uint32_t c) {
    if (ctx.Visited(c) || gone(c)) return;
    ctx.Visit(c);
    pool.push_back({dist(vv, g.store->Get(c), dim), c});
  };
  for (std::uint32_t i = 1; i <= n; ++i) {
    const std::uint32_t c = l[i];
    if (!g.Current(l, stamps, i)) continue;
    if (!gone(c)) {
      add(c);
    } else if (g.levels[c] >= level) {  // its links are still there to take
      const std::uint32_t* r = g.Links(c, level);
      const std::uint8_t* rs = g.Stamps(c, level);
      for (std::uint32_t j = 1; j <= r[0]; ++j) {
        if (g.Current(r, rs, j)) add(r[j]);
      }
    }
  }
  std::sort(pool.begin(), pool.end(),
            [](const HeapItem& a, const HeapItem& b) { return a.distance < b.distance; });
  g.SelectNeighbors(pool, g.MaxLinks(level));
  g.SetLinks(v, level, pool);
}

}  // namespace

void Hnsw::Remove(std::uint32_t id) {
  Graph& g = *graph_;
  if (id >= g.capacity || g.state[id].load() != HnswGraph::kLive) return;
  g.state[id].store(HnswGraph::kRemoved);
  g.SetLiveBit(id, false);
  g.live_count.fetch_sub(1);
  g.removed_count.fetch_add(1);
  g.MaybeRepair();
}

void Hnsw::Drop(std::uint32_t id) {
  graph_->Drop(id);
}

void HnswGraph::MaybeRepair() {
  const std::size_t removed = removed_count.load();
  if (8 * (removed + dropped) > live_count.load() + removed) Repair();
}

void HnswGraph::Repair() {
  // Tombstones go, and so do links that drops left: to free numbers, or
  // stale (to an earlier record under a number).
  auto gone = [&](std::uint32_t id) { return state[id].load() != kLive; };
  std::unique_ptr<SearchContext> ctx = AcquireContext();
  std::vector<HeapItem> candidates;
  for (std::uint32_t v = 0; v < capacity; ++v) {
    if (state[v].load() != kLive) continue;
    for (int level = 0; level <= levels[v]; ++level) {
      const std::uint32_t* l = Links(v, level);
      const std::uint8_t* stamps = Stamps(v, level);
      bool dirty = false;
      for (std::uint32_t j = 1; j <= l[0] && !dirty; ++j) {
        dirty = gone(l[j]) || !Current(l, stamps, j);
      }
      if (dirty) Relink(*this, v, level, gone, *ctx, candidates);
    }
  }
  ReleaseContext(std::move(ctx));
  // Drop the removed nodes, after every list that read theirs is rewritten.
  for (std::uint32_t v = 0; v < capacity; ++v) {
    if (state[v].load() == kRemoved) Free(v);
  }
  removed_count.store(0);
  dropped = 0;
  if (entry == kNoNode || state[entry].load() != kLive) PickEntry();
  ConnectLevel0();
}

void HnswGraph::Drop(std::uint32_t x) {
  if (x >= capacity || levels[x] < 0) return;
  const int top = levels[x];
  if (state[x].load() == kLive) {
    SetLiveBit(x, false);
    live_count.fetch_sub(1);
  } else {
    removed_count.fetch_sub(1);
  }
  // A removed state keeps x out of every result below and out of pools.
  state[x].store(kRemoved);
  auto gone = [&](std::uint32_t id) { return id == x || state[id].load() != kLive; };
  const float* q = store->Get(x);
  const DistanceFn dist = store->distance_fn();
  std::unique_ptr<SearchContext> ctx = AcquireContext();
  std::vector<HeapItem> candidates;
  std::vector<std::uint32_t> near;
  // Descend as an insert of x would; on each of x's levels, the nodes that
  // link to x are among its nearest there (links are chosen among near
  // nodes) and among those x links to (links are mostly mutual).
  if (entry != kNoNode) {
    HeapItem ep{dist(q, store->Get(entry), store->dim()), entry};
    ep = GreedyLocked(q, ep, max_level, top, *ctx);
    for (int level = std::min(top, max_level); level >= 0; --level) {
      SearchLayerLocked(q, ep, options.ef_construction, level, x, *ctx);
      near.clear();
      for (const HeapItem& h : ctx->top) near.push_back(h.id);
      if (!ctx->top.empty()) ep = ctx->top[0];
      const std::uint32_t* own = Links(x, level);
      near.insert(near.end(), own + 1, own + 1 + own[0]);
      for (std::uint32_t j = 1; j <= own[0]; ++j) {
        if (levels[own[j]] < level) continue;
        const std::uint32_t* two = Links(own[j], level);
        near.insert(near.end(), two + 1, two + 1 + two[0]);
      }
      for (const std::uint32_t v : near) {
        // (A tombstone's links go when it does.)
        if (v == x || levels[v] < level || state[v].load() != kLive) continue;
        const std::uint32_t* l = Links(v, level);
        if (std::find(l + 1, l + 1 + l[0], x) != l + 1 + l[0]) {
          Relink(*this, v, level, gone, *ctx, candidates);
        }
      }
    }
  }
  ReleaseContext(std::move(ctx));
  Free(x);
  ++dropped;
  if (entry == x) PickEntry();
  MaybeRepair();
}

void HnswGraph::Free(std::uint32_t id) {
  state[id].store(kAbsent);
  levels[id] = -1;
  std::vector<std::uint32_t>().swap(upper[id]);
  std::vector<std::uint8_t>().swap(stamps_upper[id]);
  level0[std::size_t{id} * stride0] = 0;
  ++incarnation[id];  // links still pointing here are stale from now on
}

void HnswGraph::PickEntry() {
  // Any present node on the top level keeps every node reachable from the
  // top (and images require the entry there); a live one is preferred.
  entry = kNoNode;
  max_level = -1;
  bool entry_live = false;
  for (std::uint32_t v = 0; v < capacity; ++v) {
    const std::uint8_t s = state[v].load();
    if (s == kAbsent) continue;
    const bool live = s == kLive;
    if (levels[v] > max_level || (levels[v] == max_level && live && !entry_live)) {
      entry = v;
      max_level = levels[v];
      entry_live = live;
    }
  }
}

std::size_t HnswGraph::ConnectLevel0() {
  unconnected_inserts = 0;
  if (entry == kNoNode) return 0;
  // Searches walk every link, stale ones and those to tombstones included.
  std::vector<std::uint64_t> reached((capacity + 63) / 64, 0);
  auto is_reached = [&](std::uint32_t v) { return TestBit(reached.data(), v); };
  auto mark = [&](std::uint32_t v) { reached[v >> 6] |= std::uint64_t{1} << (v & 63); };
  // Breadth first: a node's list is fetched ahead when it is queued, long
  // before it is read (a million lists are a million cache misses).
  std::vector<std::uint32_t> queue;
  auto walk = [&](std::uint32_t from) {
    mark(from);
    queue.assign(1, from);
    for (std::size_t head = 0; head < queue.size(); ++head) {
      const std::uint32_t* l = Links(queue[head], 0);
      for (std::uint32_t j = 1; j <= l[0]; ++j) {
        const std::uint32_t t = l[j];
        if (is_reached(t) || state[t].load(std::memory_order_relaxed) == kAbsent) continue;
        mark(t);
        PrefetchRead(Links(t, 0));
        queue.push_back(t);
      }
    }
  };
  walk(entry);
  const std::size_t dim = store->dim();
  const DistanceFn dist = store->distance_fn();
  std::unique_ptr<SearchContext> ctx;
  std::size_t added = 0;
  for (std::uint32_t u = 0; u < capacity; ++u) {
    if (is_reached(u) || state[u].load(std::memory_order_relaxed) != kLive) continue;
    if (!ctx) ctx = AcquireContext();
    // A search from the entry point returns reached nodes only, nearest
    // first; the first with a free place links to u. (Never in the place of
    // a current link: its target could be left out in turn.)
    const float* q = store->Get(u);
    HeapItem ep{dist(q, store->Get(entry), dim), entry};
    ep = GreedyLocked(q, ep, max_level, 0, *ctx);
    SearchLayerLocked(q, ep, options.ef_construction, 0, u, *ctx);
    for (const HeapItem& r : ctx->top) {
      if (!is_reached(r.id)) continue;
      Lock(r.id);
      const bool room = Links(r.id, 0)[0] < m0;
      if (room) AppendLink(r.id, 0, u);
      Unlock(r.id);
      if (room) {
        ++added;
        walk(u);
        break;
      }
    }
  }
  if (ctx) ReleaseContext(std::move(ctx));
  return added;
}

}  // namespace engram::vector
