// Hnsw: building the graph. Insert follows Malkov and Yashunin (TPAMI 2018)
// Algorithm 1: a level drawn with mL = 1/ln M, greedy descent above it, an
// ef_construction beam search on each level below, links chosen with the
// neighbour-selection heuristic (Algorithm 4), and neighbour lists that
// overflow shrunk with the same heuristic. Locking after hnswlib: each link
// list is read and written under its node's spinlock, only one held at a
// time (so no lock order can deadlock); the entry-point mutex is held for a
// whole insert only by a node that will become the new top. Where hnswlib
// holds a new node's lock for its whole insert, here the node sets its own
// lists on every level before any node links back to it (InsertNode).
#include "vector/hnsw/hnsw.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <thread>

#include "vector/hnsw/hnsw_graph.h"

namespace engram::vector {
namespace {

// splitmix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number
// generators", OOPSLA 2014): the level of a node is a function of the seed and
// its id, so builds are deterministic whatever the thread interleaving.
std::uint64_t SplitMix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Levels are capped here (one above 32 has probability M^-32 anyway), so an
// image's levels are too (Load checks each against RandomLevel).
constexpr int kMaxDrawnLevel = 32;

}  // namespace

void SearchContext::Reset(std::size_t n) {
  if (marks.size() < n) marks.resize(n, 0);
  if (++generation == 0) {
    std::fill(marks.begin(), marks.end(), 0);
    generation = 1;
  }
  candidates.clear();
  top.clear();
}

HnswGraph::HnswGraph(const VectorStore* s, HnswOptions o) : store(s), options(o) {
  options.m = std::clamp<std::size_t>(options.m, 2, kHnswMaxM);
  options.ef_construction = std::clamp<std::size_t>(options.ef_construction, 1, kHnswMaxEf);
  m = options.m;
  m0 = 2 * m;
  stride0 = 1 + m0;
  ml = 1 / std::log(static_cast<double>(m));
}

void HnswGraph::Grow(std::size_t n) {
  if (n <= capacity) return;
  const std::size_t cap = std::max<std::size_t>({n, capacity + capacity / 2, 64});
  level0.resize(cap * stride0, 0);
  upper.resize(cap);
  levels.resize(cap, -1);
  incarnation.resize(cap, 0);
  stamps0.resize(cap * m0, 0);
  stamps_upper.resize(cap);
  auto grow_atomic = [&](std::unique_ptr<std::atomic<std::uint8_t>[]>& a) {
    auto b = std::make_unique<std::atomic<std::uint8_t>[]>(cap);
    for (std::size_t i = 0; i < capacity; ++i) b[i].store(a[i].load());
    for (std::size_t i = capacity; i < cap; ++i) b[i].store(0);
    a = std::move(b);
  };
  grow_atomic(state);
  grow_atomic(locks);
  live_bits.resize((cap + 63) / 64, 0);
  capacity = cap;
}

void HnswGraph::SetLiveBit(std::uint32_t id, bool live) {
  std::atomic_ref<std::uint64_t> word(live_bits[id >> 6]);
  const std::uint64_t bit = std::uint64_t{1} << (id & 63);
  if (live) {
    word.fetch_or(bit, std::memory_order_relaxed);
  } else {
    word.fetch_and(~bit, std::memory_order_relaxed);
  }
}

std::unique_ptr<SearchContext> HnswGraph::AcquireContext() const {
  {
    std::lock_guard<std::mutex> lock(pool_mutex);
    if (!pool.empty()) {
      std::unique_ptr<SearchContext> ctx = std::move(pool.back());
      pool.pop_back();
      return ctx;
    }
  }
  return std::make_unique<SearchContext>();
}

void HnswGraph::ReleaseContext(std::unique_ptr<SearchContext> ctx) const {
  std::lock_guard<std::mutex> lock(pool_mutex);
  pool.push_back(std::move(ctx));
}

int HnswGraph::RandomLevel(std::uint32_t id) const {
  const std::uint64_t x = SplitMix64(options.seed ^ SplitMix64(id));
  const double u = static_cast<double>((x >> 11) + 1) * 0x1.0p-53;  // (0, 1]
  return std::min(static_cast<int>(-std::log(u) * ml), kMaxDrawnLevel);
}

// Algorithm 4 of Malkov and Yashunin without the extension and pruned-link
// options (as hnswlib and FAISS): walking the candidates nearest first, keep
// one unless it is nearer to an already kept node than to the base.
void HnswGraph::SelectNeighbors(std::vector<HeapItem>& sorted, std::size_t max) const {
  if (sorted.size() <= max) return;
  const std::size_t dim = store->dim();
  const DistanceFn dist = store->distance_fn();
  std::size_t kept = 0;
  for (std::size_t i = 0; i < sorted.size() && kept < max; ++i) {
    const float* v = store->Get(sorted[i].id);
    bool good = true;
    for (std::size_t j = 0; j < kept; ++j) {
      if (dist(v, store->Get(sorted[j].id), dim) < sorted[i].distance) {
        good = false;
        break;
      }
    }
    if (good) sorted[kept++] = sorted[i];
  }
  sorted.resize(kept);
}

HeapItem HnswGraph::GreedyLocked(const float* q, HeapItem cur, int from, int to,
                                 SearchContext& ctx) {
  const std::size_t dim = store->dim();
  const DistanceFn dist = store->distance_fn();
  for (int level = from; level > to; --level) {
    for (bool changed = true; changed;) {
      changed = false;
      CopyLinks(cur.id, level, ctx.links);
      for (std::uint32_t nb : ctx.links) {
        if (LevelOf(nb) < level) continue;  // a link left by a drop (Hnsw::Drop)
        const float d = dist(q, store->Get(nb), dim);
        if (d < cur.distance) {
          cur = {d, nb};
          changed = true;
        }
      }
    }
  }
  return cur;
}

void HnswGraph::CopyLinks(std::uint32_t id, int level, std::vector<std::uint32_t>& out) {
  Lock(id);
  const std::uint32_t* l = Links(id, level);
  out.assign(l + 1, l + 1 + l[0]);
  Unlock(id);
}

// The beam search of Algorithm 2 while inserting (or dropping) `self`: link
// lists are read under their locks, `self` and nodes not live are walked
// through but never kept. Leaves the ef nearest in ctx.top, sorted nearest
// first.
void HnswGraph::SearchLayerLocked(const float* q, HeapItem ep, std::size_t ef, int level,
                                  std::uint32_t self, SearchContext& ctx) {
  const std::size_t dim = store->dim();
  const DistanceFn dist = store->distance_fn();
  auto keep = [&](std::uint32_t id) {
    return id != self && state[id].load(std::memory_order_relaxed) == kLive;
  };
  ctx.Reset(capacity);
  ctx.Visit(ep.id);
  HeapPush(ctx.candidates, ep, MinFirst{});
  if (keep(ep.id)) HeapPush(ctx.top, ep, MaxFirst{});
  float lower = ctx.top.empty() ? std::numeric_limits<float>::infinity() : ctx.top[0].distance;
  while (!ctx.candidates.empty()) {
    const HeapItem c = ctx.candidates[0];
    if (ctx.top.size() >= ef && c.distance > lower) break;
    HeapPop(ctx.candidates, MinFirst{});
    // As the search's walk (hnsw_search.cc): the next candidate's links are
    // fetched ahead (level 0 only: an upper list's address is read from its
    // node, which needs the lock), and the neighbours not visited yet are
    // gathered, in place, with their vectors fetched, then measured.
    if (level == 0 && !ctx.candidates.empty()) PrefetchRead(Links(ctx.candidates[0].id, 0));
    CopyLinks(c.id, level, ctx.links);
    for (const std::uint32_t nb : ctx.links) PrefetchRead(&ctx.marks[nb]);
    std::size_t count = 0;
    for (const std::uint32_t nb : ctx.links) {
      if (ctx.Visited(nb) || LevelOf(nb) < level) continue;  // levels: see GreedyLocked
      ctx.Visit(nb);
      PrefetchVector(*this, nullptr, nb);
      ctx.links[count++] = nb;
    }
    for (std::size_t j = 0; j < count; ++j) {
      const std::uint32_t nb = ctx.links[j];
      const float d = dist(q, store->Get(nb), dim);
      if (ctx.top.size() < ef || d < lower) {
        HeapPush(ctx.candidates, {d, nb}, MinFirst{});
        if (keep(nb)) {
          HeapPush(ctx.top, {d, nb}, MaxFirst{});
          if (ctx.top.size() > ef) HeapPop(ctx.top, MaxFirst{});
        }
        if (!ctx.top.empty()) lower = ctx.top[0].distance;
      }
    }
  }
  std::sort(ctx.top.begin(), ctx.top.end(),
            [](const HeapItem& a, const HeapItem& b) { return a.distance < b.distance; });
}

// Adds `id` to the links on `level` of each of `selected` (its own links
// there, already set), shrinking a full list with the heuristic.
void HnswGraph::LinkBack(std::uint32_t id, int level, const std::vector<HeapItem>& selected,
                         std::vector<HeapItem>& scratch) {
  const std::size_t dim = store->dim();
  const DistanceFn dist = store->distance_fn();
  const std::size_t max = MaxLinks(level);
  for (const HeapItem& s : selected) {
    Lock(s.id);
    std::uint32_t* l = Links(s.id, level);
    std::uint8_t* stamps = Stamps(s.id, level);
    const std::uint32_t n = l[0];
    const std::uint32_t at = static_cast<std::uint32_t>(std::find(l + 1, l + 1 + n, id) - l);
    if (at <= n) {
      stamps[at - 1] = incarnation[id];  // (a stale link to the number: now to this record)
    } else if (n < max) {
      AppendLink(s.id, level, id);
    } else {
      // Full: the heuristic chooses among the current links (stale ones go)
      // and the new node.
      const float* sv = store->Get(s.id);
      scratch.clear();
      scratch.push_back({s.distance, id});
      for (std::uint32_t i = 1; i <= n; ++i) {
        if (Current(l, stamps, i)) scratch.push_back({dist(sv, store->Get(l[i]), dim), l[i]});
      }
      std::sort(scratch.begin(), scratch.end(),
                [](const HeapItem& a, const HeapItem& b) { return a.distance < b.distance; });
      SelectNeighbors(scratch, max);
      SetLinks(s.id, level, scratch);
    }
    Unlock(s.id);
  }
}

Hnsw::Hnsw(const VectorStore* store, HnswOptions options)
    : graph_(std::make_unique<Graph>(store, options)) {}
Hnsw::Hnsw(Hnsw&&) noexcept = default;
Hnsw& Hnsw::operator=(Hnsw&&) noexcept = default;
Hnsw::~Hnsw() = default;

void Hnsw::Insert(std::uint32_t id) {
  Graph& g = *graph_;
  {
    std::shared_lock<std::shared_mutex> shared(g.resize_mutex);
    if (id < g.capacity) {
      g.InsertNode(id);
      return;
    }
  }
  {
    std::unique_lock<std::shared_mutex> exclusive(g.resize_mutex);
    g.Grow(std::max<std::size_t>(std::size_t{id} + 1, g.store->limit()));
  }
  std::shared_lock<std::shared_mutex> shared(g.resize_mutex);
  g.InsertNode(id);
}

void HnswGraph::InsertNode(std::uint32_t id) {
  HnswGraph& g = *this;
  const float* q = g.store->Get(id);
  const std::size_t dim = g.store->dim();
  const DistanceFn dist = g.store->distance_fn();

  // A node already in the graph keeps its level (a function of its id) and
  // its upper storage; its lists are rewritten below. In-links from its old
  // neighbourhood stay: still valid edges, only longer.
  const std::uint8_t was = g.state[id].load(std::memory_order_relaxed);
  int level;
  if (was == HnswGraph::kAbsent) {
    level = g.RandomLevel(id);
    g.Lock(id);
    std::atomic_ref<std::int8_t>(g.levels[id])
        .store(static_cast<std::int8_t>(level), std::memory_order_relaxed);
    g.upper[id].assign(std::size_t(level) * (g.m + 1), 0);
    g.stamps_upper[id].assign(std::size_t(level) * g.m, 0);
    g.level0[std::size_t{id} * g.stride0] = 0;
    g.Unlock(id);
  } else {
    level = g.levels[id];
    if (was == HnswGraph::kRemoved) g.removed_count.fetch_sub(1, std::memory_order_relaxed);
  }
  if (was != HnswGraph::kLive) {
    g.state[id].store(HnswGraph::kLive, std::memory_order_relaxed);
    g.SetLiveBit(id, true);
    g.live_count.fetch_add(1, std::memory_order_relaxed);
  }

  std::unique_lock<std::mutex> top_lock(g.entry_mutex);
  const std::uint32_t top_node = g.entry;
  const int top_level = g.max_level;
  if (top_node == kNoNode) {
    g.entry = id;
    g.max_level = level;
    return;
  }
  if (level <= top_level) top_lock.unlock();

  std::unique_ptr<SearchContext> ctx = g.AcquireContext();
  HeapItem ep{dist(q, g.store->Get(top_node), dim), top_node};
  ep = g.GreedyLocked(q, ep, top_level, level, *ctx);
  // The node's own links are set on every level before any other node links
  // to it: a new node is reached only through those links, so another
  // insert never starts a level's search from it while its list there is
  // still empty (it would keep the node as its only neighbour, and then lose
  // its own link back when the list is set: a node no walk reaches).
  const int linked_levels = std::min(level, top_level) + 1;
  std::vector<std::vector<HeapItem>> selected(static_cast<std::size_t>(linked_levels));
  for (int lc = linked_levels - 1; lc >= 0; --lc) {
    g.SearchLayerLocked(q, ep, g.options.ef_construction, lc, id, *ctx);
    if (ctx->top.empty()) continue;
    ep = ctx->top[0];
    std::vector<HeapItem>& chosen = selected[static_cast<std::size_t>(lc)];
    chosen = ctx->top;
    g.SelectNeighbors(chosen, g.m);
    g.Lock(id);
    g.SetLinks(id, lc, chosen);
    g.Unlock(id);
  }
  std::vector<HeapItem> scratch;
  for (int lc = linked_levels - 1; lc >= 0; --lc) {
    g.LinkBack(id, lc, selected[static_cast<std::size_t>(lc)], scratch);
  }
  g.ReleaseContext(std::move(ctx));
  if (level > top_level) {
    g.entry = id;
    g.max_level = level;
  }
}

void Hnsw::InsertBatch(std::span<const std::uint32_t> ids, std::size_t threads,
                       const std::function<void(std::size_t)>& progress) {
  Graph& g = *graph_;
  if (ids.empty()) return;
  const std::uint32_t max_id = *std::max_element(ids.begin(), ids.end());
  g.Grow(std::max<std::size_t>(std::size_t{max_id} + 1, g.store->limit()));
  constexpr std::size_t kProgressEvery = 4096;
  std::atomic<std::size_t> next{0};
  std::atomic<std::size_t> done{0};
  auto work = [&](bool report) {
    for (std::size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < ids.size();) {
      Insert(ids[i]);
      const std::size_t d = done.fetch_add(1, std::memory_order_relaxed) + 1;
      if (report && progress && d % kProgressEvery == 0) progress(d);
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < std::max<std::size_t>(threads, 1); ++t)
    pool.emplace_back(work, false);
  work(true);
  for (std::thread& t : pool) t.join();
  g.unconnected_inserts += ids.size();
  if (g.unconnected_inserts * 8 >= g.live_count.load()) g.ConnectLevel0();
  if (progress) progress(ids.size());
}

std::size_t Hnsw::size() const {
  return graph_->live_count.load();
}
bool Hnsw::Contains(std::uint32_t id) const {
  return id < graph_->levels.size() && graph_->levels[id] >= 0;
}
std::size_t Hnsw::tombstones() const {
  return graph_->removed_count.load();
}
roaring::Roaring Hnsw::Tombstones() const {
  const Graph& g = *graph_;
  roaring::Roaring out;
  if (g.removed_count.load() == 0) return out;
  for (std::uint32_t id = 0; id < g.capacity; ++id) {
    if (g.state[id].load() == HnswGraph::kRemoved) out.add(id);
  }
  return out;
}
const HnswOptions& Hnsw::options() const {
  return graph_->options;
}

std::size_t Hnsw::MemoryBytes() const {
  const Graph& g = *graph_;
  std::size_t bytes = g.level0.capacity() * sizeof(std::uint32_t) +
                      g.upper.capacity() * sizeof(std::vector<std::uint32_t>) +
                      g.levels.capacity() + 2 * g.capacity + g.live_bits.capacity() * 8 +
                      g.incarnation.capacity() + g.stamps0.capacity() +
                      g.stamps_upper.capacity() * sizeof(std::vector<std::uint8_t>);
  for (const auto& u : g.upper) bytes += u.capacity() * sizeof(std::uint32_t);
  for (const auto& u : g.stamps_upper) bytes += u.capacity();
  return bytes;
}

}  // namespace engram::vector
