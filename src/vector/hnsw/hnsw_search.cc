// Hnsw::Search: the descent of the upper levels (hnsw_descent.cc), then an
// ef-bounded beam search on level 0 (Malkov and Yashunin, Algorithms 2 and
// 5), in one of three forms: unfiltered (no membership test at all),
// walk-all (every node walked, only allowed live ones kept: hnswlib's
// filtered search), or two-hop (ACORN-1, Patel et al., SIGMOD 2024 §5: a
// disallowed neighbour is not queued, its allowed neighbours are, up to 2M
// per expansion). The allowed-set is first turned into a dense bitset ANDed
// with the live nodes: a test is then one load and a shift, where a roaring
// lookup costs a binary search.
#include <algorithm>
#include <cstring>
#include <limits>
#include <utility>

#include "vector/hnsw/hnsw.h"
#include "vector/hnsw/hnsw_graph.h"

namespace engram::vector {
namespace {

inline void SetRange(std::uint64_t* bits, std::size_t words, std::uint64_t from,
                     std::uint64_t to) {  // [from, to)
  to = std::min<std::uint64_t>(to, words * 64);
  if (from >= to) return;
  const std::uint64_t first = from >> 6;
  const std::uint64_t last = (to - 1) >> 6;
  const std::uint64_t head = ~std::uint64_t{0} << (from & 63);
  const std::uint64_t tail = ~std::uint64_t{0} >> (63 - ((to - 1) & 63));
  if (first == last) {
    bits[first] |= head & tail;
    return;
  }
  bits[first] |= head;
  for (std::uint64_t w = first + 1; w < last; ++w) bits[w] = ~std::uint64_t{0};
  bits[last] |= tail;
}

}  // namespace

std::size_t DenseBits(const roaring::Roaring& set, std::size_t words,
                      std::vector<std::uint64_t>& out) {
  out.resize(words);
  std::memset(out.data(), 0, words * 8);
  std::uint64_t* bits = out.data();
#if !defined(ROARING_VERSION_MAJOR)
  // CRoaring 0.2.x (Debian 12): copy containers directly, 8 KiB at a time for
  // dense chunks. Later releases hide these internals; the loop below serves.
  const roaring_array_t& ra = set.roaring.high_low_container;
  for (std::int32_t i = 0; i < ra.size; ++i) {
    const std::uint64_t base = std::uint64_t{ra.keys[i]} << 16;
    if (base >= words * 64) break;
    std::uint8_t type = ra.typecodes[i];
    const void* c = container_unwrap_shared(ra.containers[i], &type);
    const std::size_t first_word = base >> 6;
    if (type == BITSET_CONTAINER_TYPE_CODE) {
      const auto* b = static_cast<const bitset_container_t*>(c);
      const std::size_t n = std::min<std::size_t>(1024, words - first_word);
      std::memcpy(bits + first_word, b->array, n * 8);
    } else if (type == ARRAY_CONTAINER_TYPE_CODE) {
      const auto* a = static_cast<const array_container_t*>(c);
      for (std::int32_t j = 0; j < a->cardinality; ++j) {
        const std::uint64_t id = base | a->array[j];
        if (id < words * 64) bits[id >> 6] |= std::uint64_t{1} << (id & 63);
      }
    } else {
      const auto* r = static_cast<const run_container_t*>(c);
      for (std::int32_t j = 0; j < r->n_runs; ++j) {
        const std::uint64_t from = base + r->runs[j].value;
        SetRange(bits, words, from, from + r->runs[j].length + 1);
      }
    }
  }
#else
  for (std::uint32_t id : set) {
    if (id >= words * 64) break;
    bits[id >> 6] |= std::uint64_t{1} << (id & 63);
  }
#endif
  std::size_t count = 0;
  for (std::size_t w = 0; w < words; ++w)
    count += static_cast<std::size_t>(__builtin_popcountll(bits[w]));
  return count;
}

namespace {

// `out` = allowed AND live, one bit per node; returns its popcount.
std::size_t BuildAllowedBits(const roaring::Roaring& allowed,
                             const std::vector<std::uint64_t>& live,
                             std::vector<std::uint64_t>& out) {
  const std::size_t words = live.size();
  DenseBits(allowed, words, out);
  std::size_t count = 0;
  for (std::size_t w = 0; w < words; ++w) {
    out[w] &= live[w];
    count += static_cast<std::size_t>(__builtin_popcountll(out[w]));
  }
  return count;
}

// The level-0 searches share this frame: the graph, the query, the scratch.
struct Level0 {
  const HnswGraph& g;
  SearchContext& ctx;
  const float* q;
  std::size_t ef;
  std::size_t allowed_count;
  const std::uint64_t* bits;  // allowed and live; nullptr: every node
  HnswSearchStats& stats;
  // Set: `bits` are the live nodes, and a node is allowed when its record
  // also passes this (HnswSearchParams::by_doc).
  const DocFilter* by_doc = nullptr;
  const float* base = g.store->Get(0);
  std::size_t dim = g.store->dim();
  DistanceFn dist = g.store->distance_fn();
  // Set: distances are the 8-bit copy's (re-ranked with floats at the end).
  const Sq8Codes* codes = nullptr;
  Sq8Query coded = {};
  float lower = std::numeric_limits<float>::infinity();
  bool give_up_beyond = false;  // HnswSearchParams::give_up_beyond
  DeadlinePoll poll{nullptr};   // HnswSearchParams::deadline, read every 64 expansions

  const float* Vec(std::uint32_t id) const { return base + std::size_t{id} * dim; }
  float Dist(std::uint32_t id) const {
    return codes != nullptr ? codes->Distance(coded, id) : dist(q, Vec(id), dim);
  }
  bool Allowed(std::uint32_t id) const {
    if (by_doc == nullptr) return TestBit(bits, id);
    return TestBit(bits, id) && by_doc->Passes(id);
  }
  // Queues `id` at distance d and keeps it when allowed (kCheck) and near.
  template <bool kCheck>
  void Offer(float d, std::uint32_t id) {
    if (ctx.top.size() < ef || d < lower) {
      HeapPush(ctx.candidates, {d, id}, MinFirst{});
      // The nearest candidate is likely the next expanded: its link list is
      // fetched ahead (WalkAll does so after each pop too).
      PrefetchRead(g.Links(ctx.candidates[0].id, 0));
      if (!kCheck || Allowed(id)) {
        HeapPush(ctx.top, {d, id}, MaxFirst{});
        if (ctx.top.size() > ef) HeapPop(ctx.top, MaxFirst{});
        lower = ctx.top[0].distance;
      }
    }
  }

  // One expansion gathers the neighbours it will measure (ctx.unvisited),
  // each marked visited and its vector fetched (PrefetchVector), then
  // measures them: their misses overlap instead of following one another.
  void Gather(std::uint32_t id, std::uint32_t& count) {
    ctx.Visit(id);
    PrefetchVector(g, codes, id);
    ctx.unvisited[count++] = id;
  }
  template <bool kCheck>
  void MeasureGathered(std::uint32_t count) {
    for (std::uint32_t i = 0; i < count; ++i) {
      const std::uint32_t id = ctx.unvisited[i];
      const float d = Dist(id);
      ++stats.distances;
      Offer<kCheck>(d, id);
    }
  }

  // Walks every node; keeps allowed ones when kFiltered. Runs on until ef
  // nodes are kept or the reachable graph is exhausted, as hnswlib does, so
  // a sparse filter costs time rather than recall.
  template <bool kFiltered>
  void WalkAll(HeapItem ep) {
    ctx.unvisited.resize(g.m0);
    ctx.Visit(ep.id);
    HeapPush(ctx.candidates, ep, MinFirst{});
    if (!kFiltered || Allowed(ep.id)) {
      HeapPush(ctx.top, ep, MaxFirst{});
      lower = ep.distance;
    }
    while (!ctx.candidates.empty() && !poll.Passed()) {
      const HeapItem c = ctx.candidates[0];
      if (c.distance > lower && ctx.top.size() >= ef) break;
      HeapPop(ctx.candidates, MinFirst{});
      // The next nearest is likely expanded next: its link list is fetched
      // while this one's neighbours are (hnswlib prefetches it too).
      if (!ctx.candidates.empty()) PrefetchRead(g.Links(ctx.candidates[0].id, 0));
      ++stats.visited;
      if (kFiltered && stats.near_expanded < HnswSearchStats::kNear) {
        ++stats.near_expanded;
        stats.near_allowed += Allowed(c.id) ? 1 : 0;
        if (give_up_beyond && stats.near_expanded == HnswSearchStats::kNear &&
            stats.near_allowed == 0) {
          stats.gave_up = true;
          return;
        }
      }
      const std::uint32_t* l = g.Links(c.id, 0);
      const std::uint32_t n = l[0];
      for (std::uint32_t j = 1; j <= n; ++j) PrefetchRead(&ctx.marks[l[j]]);
      std::uint32_t count = 0;
      for (std::uint32_t j = 1; j <= n; ++j) {
        if (!ctx.Visited(l[j])) Gather(l[j], count);
      }
      MeasureGathered<kFiltered>(count);
    }
  }

  // ACORN-1 expansion: only allowed nodes are queued (bar a disallowed entry
  // point, which seeds the walk). A disallowed neighbour is looked through:
  // its allowed neighbours are offered instead, until 2M are gathered for
  // this expansion (ACORN truncates to the list size the same way). If the
  // queue runs dry before ef nodes are kept while more are allowed (the
  // allowed nodes two hops out are exhausted: a sparse or fragmented allowed
  // subgraph), the disallowed nodes looked through are queued as stepping
  // stones, nearest first, so the walk goes on towards every allowed node
  // connected to the graph: the result is never short when the graph has
  // more allowed nodes to give. With fewer than ef allowed nodes this walks
  // the graph; the planner scans those exactly instead.
  void TwoHop(HeapItem ep) {
    const std::size_t budget = g.m0;
    ctx.unvisited.resize(budget);
    std::vector<std::uint32_t>& spill = ctx.links;
    spill.clear();
    ctx.Visit(ep.id);
    HeapPush(ctx.candidates, ep, MinFirst{});
    if (TestBit(bits, ep.id)) {
      HeapPush(ctx.top, ep, MaxFirst{});
      lower = ep.distance;
    }
    for (;;) {
      while (!ctx.candidates.empty()) {
        if (poll.Passed()) return;
        const HeapItem c = ctx.candidates[0];
        if (c.distance > lower && ctx.top.size() >= ef) return;
        HeapPop(ctx.candidates, MinFirst{});
        Expand(c.id, budget, spill);
      }
      if (ctx.top.size() >= std::min(ef, allowed_count) || spill.empty()) return;
      for (std::uint32_t s : spill) {
        if (ctx.Visited(s)) continue;
        ctx.Visit(s);
        ++stats.distances;
        HeapPush(ctx.candidates, {Dist(s), s}, MinFirst{});
      }
      spill.clear();
    }
  }

  // Gathers, then measures, as WalkAll does; the lists of the disallowed
  // neighbours, looked through, are fetched ahead too.
  void Expand(std::uint32_t c, std::size_t budget, std::vector<std::uint32_t>& spill) {
    ++stats.visited;
    const std::uint32_t* l = g.Links(c, 0);
    const std::uint32_t n = l[0];
    for (std::uint32_t j = 1; j <= n; ++j) {
      if (!TestBit(bits, l[j])) PrefetchRead(g.Links(l[j], 0));
    }
    std::uint32_t count = 0;
    for (std::uint32_t j = 1; j <= n && count < budget; ++j) {
      const std::uint32_t nb = l[j];
      if (ctx.Visited(nb)) continue;
      if (TestBit(bits, nb)) {
        Gather(nb, count);
        continue;
      }
      spill.push_back(nb);
      const std::uint32_t* l2 = g.Links(nb, 0);
      const std::uint32_t n2 = l2[0];
      for (std::uint32_t i = 1; i <= n2 && count < budget; ++i) {
        const std::uint32_t nn = l2[i];
        if (!ctx.Visited(nn) && TestBit(bits, nn)) Gather(nn, count);
      }
    }
    MeasureGathered<false>(count);
  }
};

}  // namespace

float Hnsw::Probe(const float* query, HnswSearchStats* stats) const {
  const Graph& g = *graph_;
  HnswSearchStats local;
  HnswSearchStats& st = stats ? *stats : local;
  if (g.entry == kNoNode) return std::numeric_limits<float>::infinity();
  return GreedyDescent(g, query, 1, st).distance;
}

std::vector<Neighbor> Hnsw::Search(const float* query, std::size_t k,
                                   const HnswSearchParams& params, const roaring::Roaring* allowed,
                                   HnswSearchStats* stats) const {
  const Graph& g = *graph_;
  HnswSearchStats local;
  HnswSearchStats& st = stats ? *stats : local;
  if (k == 0 || g.entry == kNoNode || g.live_count.load(std::memory_order_relaxed) == 0) return {};
  std::unique_ptr<SearchContext> ctx = g.AcquireContext();
  const std::uint64_t* bits = nullptr;
  std::size_t allowed_count = g.live_count.load(std::memory_order_relaxed);
  if (params.by_doc != nullptr) {
    bits = g.live_bits.data();
  } else if (allowed != nullptr) {
    allowed_count = BuildAllowedBits(*allowed, g.live_bits, ctx->allowed_bits);
    if (allowed_count == 0) {
      g.ReleaseContext(std::move(ctx));
      return {};
    }
    bits = ctx->allowed_bits.data();
  } else if (g.removed_count.load(std::memory_order_relaxed) > 0 || g.dropped > 0) {
    bits = g.live_bits.data();  // tombstones, or free numbers a drop left linked
  }
  const Sq8Codes* codes = params.codes ? g.store->codes() : nullptr;
  Sq8Query coded = codes != nullptr ? codes->Prepare(query) : Sq8Query{};
  const std::size_t width =
      params.upper_beam != 0 ? params.upper_beam
                             : DefaultUpperBeam(g.live_count.load(std::memory_order_relaxed), g.m);
  const HeapItem ep = Descend(g, query, width, codes, coded, *ctx, st);
  st.entry_distance = ep.distance;

  const std::size_t ef = std::max(params.ef, k);
  ctx->Reset(g.capacity);
  Level0 walk{g, *ctx, query, ef, allowed_count, bits, st};
  walk.codes = codes;
  walk.coded = std::move(coded);
  walk.give_up_beyond = params.give_up_beyond && allowed != nullptr;
  walk.poll = DeadlinePoll(params.deadline, 64);
  walk.by_doc = params.by_doc;
  if (bits == nullptr) {
    walk.WalkAll<false>(ep);
  } else if (params.filter == HnswFilter::kTwoHop && allowed != nullptr &&
             params.by_doc == nullptr) {
    walk.TwoHop(ep);
  } else {
    walk.WalkAll<true>(ep);
  }
  std::vector<Neighbor> out;
  out.reserve(ctx->top.size());
  for (const HeapItem& h : ctx->top) out.push_back({h.id, h.distance});
  g.ReleaseContext(std::move(ctx));
  if (codes != nullptr) {
    g.store->Rerank(query, k, &out);  // the kept candidates measured on the floats
    return out;
  }
  std::sort(out.begin(), out.end());
  if (out.size() > k) out.resize(k);
  return out;
}

}  // namespace engram::vector
