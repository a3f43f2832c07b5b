// The inside of Hnsw, shared by hnsw.cc (insert, remove, repair),
// hnsw_search.cc and hnsw_serialize.cc. Layout after hnswlib: level-0 links in
// one flat array with a fixed stride (count, then up to 2M ids), upper-level
// links per node; per-node spinlocks for concurrent inserts, one mutex for the
// entry point; a pool of search contexts (visited marks with generations,
// heaps, a dense allowed bitset) so that a search allocates nothing once warm.
#ifndef ENGRAM_VECTOR_HNSW_HNSW_GRAPH_H_
#define ENGRAM_VECTOR_HNSW_HNSW_GRAPH_H_

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <thread>
#include <vector>

#include "base/prefetch.h"
#include "vector/hnsw/hnsw.h"

namespace engram::vector {

inline constexpr std::uint32_t kNoNode = UINT32_MAX;

// Bit `id` of a dense bitset of 64-bit words.
inline bool TestBit(const std::uint64_t* bits, std::uint32_t id) {
  return (bits[id >> 6] >> (id & 63)) & 1;
}
// Bounds on the options, applied by the constructor and checked by Load.
inline constexpr std::size_t kHnswMaxM = 256;
inline constexpr std::size_t kHnswMaxEf = 1 << 16;

// A (distance, node) pair for the search heaps; ordered by distance only,
// which is all a heap needs and is cheaper than Neighbor's tie-break.
struct HeapItem {
  float distance;
  std::uint32_t id;
};

struct MinFirst {
  bool operator()(const HeapItem& a, const HeapItem& b) const { return a.distance > b.distance; }
};
struct MaxFirst {
  bool operator()(const HeapItem& a, const HeapItem& b) const { return a.distance < b.distance; }
};
template <typename Order>
inline void HeapPush(std::vector<HeapItem>& h, HeapItem item, Order order) {
  h.push_back(item);
  std::push_heap(h.begin(), h.end(), order);
}
template <typename Order>
inline void HeapPop(std::vector<HeapItem>& h, Order order) {
  std::pop_heap(h.begin(), h.end(), order);
  h.pop_back();
}

// Per-search scratch, pooled: visited marks (a mark equal to `generation`
// means visited in this search), the two heaps, and a dense bitset of the
// allowed-set intersected with the live nodes.
struct SearchContext {
  std::vector<std::uint16_t> marks;
  std::uint16_t generation = 0;
  std::vector<HeapItem> candidates;  // min-heap on distance
  std::vector<HeapItem> top;         // max-heap on distance
  std::vector<std::uint64_t> allowed_bits;
  std::vector<std::uint32_t> links;      // a copy of one link list (inserts)
  std::vector<std::uint32_t> unvisited;  // of one link list (level 0's walk)

  // Starts a new search over `n` nodes: all unvisited.
  void Reset(std::size_t n);
  bool Visited(std::uint32_t id) const { return marks[id] == generation; }
  void Visit(std::uint32_t id) { marks[id] = generation; }
};

// The graph proper; Hnsw::Graph (the header's private type) is this under
// the header's name, so that helpers in the .cc files can name it.
struct HnswGraph {
  enum State : std::uint8_t { kAbsent = 0, kLive = 1, kRemoved = 2 };

  HnswGraph(const VectorStore* s, HnswOptions o);

  const VectorStore* store;
  HnswOptions options;
  std::size_t m;        // links per node on upper levels
  std::size_t m0;       // links per node on level 0 (2m)
  std::size_t stride0;  // 1 + m0
  double ml;            // 1 / ln(m): level multiplier (Malkov and Yashunin §4.1)

  // Node arrays, all `capacity` long. Growing them takes `resize_mutex`
  // exclusively; inserts hold it shared.
  std::size_t capacity = 0;
  std::vector<std::uint32_t> level0;              // capacity x stride0
  std::vector<std::vector<std::uint32_t>> upper;  // per node: level x (1 + m)
  std::vector<std::int8_t> levels;                // -1: not in the graph
  // A level read through a link while inserts run: the link may be a stale
  // one (Hnsw::Drop) to a number another insert is giving its level now.
  int LevelOf(std::uint32_t id) const {
    return std::atomic_ref<std::int8_t>(const_cast<std::int8_t&>(levels[id]))
        .load(std::memory_order_relaxed);
  }
  // Incarnations: a number may be dropped and taken by another record
  // (Hnsw::Drop). Each link carries the incarnation of its target when it
  // was made; one whose stamp is not its target's incarnation now was made
  // to an earlier record under the number (a drop's search missed it).
  // Searches may walk it (a long edge); writers treat it as gone, and the
  // next repair removes it, so none outlives an eighth of a turnover.
  std::vector<std::uint8_t> incarnation;                // per node
  std::vector<std::uint8_t> stamps0;                    // capacity x m0
  std::vector<std::vector<std::uint8_t>> stamps_upper;  // per node: level x m
  std::unique_ptr<std::atomic<std::uint8_t>[]> state;
  std::unique_ptr<std::atomic<std::uint8_t>[]> locks;
  // Bit per node: in the graph and not removed. Written with atomic_ref.
  std::vector<std::uint64_t> live_bits;
  std::shared_mutex resize_mutex;

  std::mutex entry_mutex;  // guards entry and max_level while inserting
  std::uint32_t entry = kNoNode;
  int max_level = -1;
  std::atomic<std::size_t> live_count{0};
  std::atomic<std::size_t> removed_count{0};
  // Drops since the last repair: links their searches missed may point at
  // free numbers (level 0: a node without links; upper levels: a node whose
  // level is below the link's, which walks step over).
  std::size_t dropped = 0;

  mutable std::mutex pool_mutex;
  mutable std::vector<std::unique_ptr<SearchContext>> pool;

  // Link lists: [count, id, id, ...].
  std::uint32_t* Links(std::uint32_t id, int level) {
    return level == 0 ? level0.data() + std::size_t{id} * stride0
                      : upper[id].data() + std::size_t(level - 1) * (m + 1);
  }
  const std::uint32_t* Links(std::uint32_t id, int level) const {
    return level == 0 ? level0.data() + std::size_t{id} * stride0
                      : upper[id].data() + std::size_t(level - 1) * (m + 1);
  }
  // The stamps of id's links on `level`: stamps[j] for link j + 1.
  std::uint8_t* Stamps(std::uint32_t id, int level) {
    return level == 0 ? stamps0.data() + std::size_t{id} * m0
                      : stamps_upper[id].data() + std::size_t(level - 1) * m;
  }
  const std::uint8_t* Stamps(std::uint32_t id, int level) const {
    return level == 0 ? stamps0.data() + std::size_t{id} * m0
                      : stamps_upper[id].data() + std::size_t(level - 1) * m;
  }
  // Whether link j (1-based) of a list with stamps `s` is to its target's
  // current record.
  bool Current(const std::uint32_t* l, const std::uint8_t* s, std::uint32_t j) const {
    return s[j - 1] == incarnation[l[j]];
  }
  // Sets id's links on `level` to `items` (stamped now).
  void SetLinks(std::uint32_t id, int level, const std::vector<HeapItem>& items) {
    std::uint32_t* l = Links(id, level);
    std::uint8_t* s = Stamps(id, level);
    l[0] = static_cast<std::uint32_t>(items.size());
    for (std::size_t i = 0; i < items.size(); ++i) {
      l[1 + i] = items[i].id;
      s[i] = incarnation[items[i].id];
    }
  }
  // Appends a link to id to v's list on `level`, which has room; the
  // caller holds v's lock. The link is written before the count: searches
  // read lists unlocked.
  void AppendLink(std::uint32_t v, int level, std::uint32_t id) {
    std::uint32_t* l = Links(v, level);
    const std::uint32_t n = l[0];
    l[1 + n] = id;
    Stamps(v, level)[n] = incarnation[id];
    l[0] = n + 1;
  }
  std::size_t MaxLinks(int level) const { return level == 0 ? m0 : m; }
  bool IsLive(std::uint32_t id) const { return TestBit(live_bits.data(), id); }

  // Grows the node arrays to hold `n` nodes; caller holds resize_mutex
  // exclusively (or is the only user).
  void Grow(std::size_t n);
  void SetLiveBit(std::uint32_t id, bool live);

  std::unique_ptr<SearchContext> AcquireContext() const;
  void ReleaseContext(std::unique_ptr<SearchContext> ctx) const;

  // hnsw.cc: building.
  int RandomLevel(std::uint32_t id) const;
  // Keeps at most `max` of `sorted` (nearest first) by the heuristic.
  void SelectNeighbors(std::vector<HeapItem>& sorted, std::size_t max) const;
  void CopyLinks(std::uint32_t id, int level, std::vector<std::uint32_t>& out);
  HeapItem GreedyLocked(const float* q, HeapItem cur, int from, int to, SearchContext& ctx);
  void SearchLayerLocked(const float* q, HeapItem ep, std::size_t ef, int level, std::uint32_t self,
                         SearchContext& ctx);
  void LinkBack(std::uint32_t id, int level, const std::vector<HeapItem>& selected,
                std::vector<HeapItem>& scratch);
  // Insert with resize_mutex held shared and capacity > id.
  void InsertNode(std::uint32_t id);
  // hnsw_repair.cc: re-links the neighbours of removed nodes, drops them.
  void Repair();
  // Repairs when tombstones and drops pass an eighth of the nodes.
  void MaybeRepair();
  // Links every live node into level 0's reach from the entry point. The
  // heuristic can prune a node, or a whole cluster, from every list that
  // led to it, and then no search finds it at any ef. A walk from the entry
  // marks what it reaches; each live node left out gets a link from the
  // nearest reached node (by a search for its vector) with a free place,
  // and what it reaches is marked in turn. O(the graph's links), plus a
  // search per node left out; returns the links added.
  std::size_t ConnectLevel0();
  // Inserts since ConnectLevel0 last ran: InsertBatch runs it once they
  // pass an eighth of the live nodes, so that its cost is amortised O(1)
  // walks a node.
  std::size_t unconnected_inserts = 0;
  // Unlinks node id at once (Hnsw::Drop).
  void Drop(std::uint32_t id);
  // Frees node id's links and number.
  void Free(std::uint32_t id);
  // The entry point: a node on the highest level, live if one is there.
  void PickEntry();

  void Lock(std::uint32_t id) {
    while (locks[id].exchange(1, std::memory_order_acquire) != 0) {
      while (locks[id].load(std::memory_order_relaxed) != 0) std::this_thread::yield();
    }
  }
  void Unlock(std::uint32_t id) { locks[id].store(0, std::memory_order_release); }
};

// Starts fetching what a distance to node `id` reads: its 8-bit row when
// `codes` is set (all of it: 144 bytes at 128-d span three lines), else the
// first two lines of its floats, which the hardware follows with the rest.
// A walk prefetches every neighbour it will measure before measuring any, so
// that their misses overlap (at 1M nodes each is a trip to memory).
inline void PrefetchVector(const HnswGraph& g, const Sq8Codes* codes, std::uint32_t id) {
  if (codes != nullptr) {
    PrefetchBytes(codes->Row(id), codes->stride());
  } else {
    PrefetchBytes(g.store->Get(id), std::min<std::size_t>(g.store->dim() * 4, 2 * kCacheLine));
  }
}

// The descent of a search (hnsw_descent.cc): from the entry point down the
// upper levels to the node level 0's walk starts from (the graph is not
// empty). GreedyDescent moves from the entry point to its nearest neighbour
// while that is nearer, level by level down to level `to` (>= 1), with float
// distances. Descend goes greedily to level 1, there with a beam of
// `width` nodes (1: greedily) whose distances are `codes`' when set. The
// node returned carries its distance in level 0's walk's terms: `codes`'
// when set, else the floats'.
HeapItem GreedyDescent(const HnswGraph& g, const float* q, int to, HnswSearchStats& stats);
HeapItem Descend(const HnswGraph& g, const float* q, std::size_t width, const Sq8Codes* codes,
                 const Sq8Query& coded, SearchContext& ctx, HnswSearchStats& stats);

struct Hnsw::Graph : HnswGraph {
  using HnswGraph::HnswGraph;
};

}  // namespace engram::vector

#endif  // ENGRAM_VECTOR_HNSW_HNSW_GRAPH_H_
