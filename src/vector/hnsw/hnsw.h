// Hnsw: a Hierarchical Navigable Small World graph over the live records of a
// VectorStore (Malkov and Yashunin, "Efficient and robust approximate nearest
// neighbor search using HNSW graphs", TPAMI 2018), with a filtered search that
// stays navigable when most records are not allowed (ACORN-1 style two-hop
// expansion: Patel et al., SIGMOD 2024). Node numbers are record numbers; the
// graph holds links only and reads vectors from the store, which must outlive
// it. A number may be reused for another record: Drop it while its old vector
// is still in the store, then store the new vector and Insert. Insert may run
// on several threads at once; Search is const and safe concurrently with
// other Searches, not with writes.
#ifndef ENGRAM_VECTOR_HNSW_HNSW_H_
#define ENGRAM_VECTOR_HNSW_HNSW_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/deadline.h"
#include "base/roaring.h"
#include "engram/status.h"
#include "vector/doc_filter.h"
#include "vector/neighbor.h"
#include "vector/vector_store.h"

namespace engram::vector {

struct HnswOptions {
  std::size_t m = 16;                 // links per node on upper levels; 2m on level 0
  std::size_t ef_construction = 200;  // candidate list size while inserting
  std::uint64_t seed = 42;            // level assignment
};

// How a filtered search treats records outside the allowed-set.
enum class HnswFilter {
  // Walk every node, return only allowed ones (hnswlib / FAISS IDSelector
  // behaviour): right when most records are allowed.
  kWalkAll,
  // Walk mostly the allowed subgraph: a disallowed neighbour is not queued,
  // its own neighbours are looked at instead (two hops), so the walk reaches
  // allowed records the one-hop graph does not link directly.
  kTwoHop,
};

// `out` = `set` as a dense bitset of `words` words (members past the end
// left out); returns the members kept.
std::size_t DenseBits(const roaring::Roaring& set, std::size_t words,
                      std::vector<std::uint64_t>& out);

struct HnswSearchParams {
  std::size_t ef = 64;  // candidate list size on level 0 (at least k is used)
  HnswFilter filter = HnswFilter::kWalkAll;
  // Filtered walk-all: stop once the first HnswSearchStats::kNear expansions
  // met no allowed node (the caller scans instead; VectorIndex's planner).
  bool give_up_beyond = false;
  // When it passes, the walk stops with what it has (the caller reports it).
  const Deadline* deadline = nullptr;
  // Set: the allowed nodes are those the filter passes (a walk-all walk);
  // Search's `allowed` must then be null.
  const DocFilter* by_doc = nullptr;
  // The level-0 walk computes distances on the store's 8-bit copy when it
  // has one (VectorStore::EnableCodes) and re-ranks what it keeps with the
  // floats; false: floats throughout.
  bool codes = true;
  // The width of the search on level 1, which picks the node level 0's walk
  // starts from (FAISS's upper_beam): 1 descends greedily, as hnswlib does;
  // a few nodes end the descent nearer the query where a greedy path stops
  // in a cluster next to the query's, for a few more distances. 0: the
  // graph's default for its size (DefaultUpperBeam).
  std::size_t upper_beam = 0;
};

// The level-1 width a search of a graph of `live` nodes with `m` links per
// upper node uses when not told: one per 4,096 nodes expected on level 1
// (live / m), at least 1 and at most 8. Fitted on synthetic-1m of seed 1 (a
// Gaussian mixture of 1,000 clusters; bench/RESULTS.md): at 1M nodes a width
// of 8 reached recall@10 0.960 at ef 48 where greedy descents reached 0.933
// (78 of 300 ended level 1 in another cluster than the query's nearest
// neighbours'); at 300k a width of 4 cost about nothing; at 100k and below
// no width gained recall and each cost up to a fifth of the speed.
std::size_t DefaultUpperBeam(std::size_t live, std::size_t m);

struct HnswSearchStats {
  std::size_t distances = 0;  // distance computations
  std::size_t visited = 0;    // nodes whose links were read on level 0
  // The distance to the node level 0's walk started from, in the walk's
  // distances (the 8-bit copy's when it walks the codes).
  float entry_distance = 0;
  // Filtered walk-all only: of its first kNear expansions on level 0 (nearest
  // first, allowed or not: the query's neighbourhood as the walk met it),
  // how many there were and how many were allowed.
  static constexpr std::size_t kNear = 32;
  std::size_t near_expanded = 0;
  std::size_t near_allowed = 0;
  // The walk stopped there, none of them allowed (give_up_beyond).
  bool gave_up = false;
};

class Hnsw {
 public:
  Hnsw(const VectorStore* store, HnswOptions options);
  Hnsw(Hnsw&&) noexcept;
  Hnsw& operator=(Hnsw&&) noexcept;
  ~Hnsw();

  // Links record `id` (live in the store) into the graph; re-links it when it
  // is already there (its vector was replaced). Safe to call from several
  // threads at once for different ids.
  void Insert(std::uint32_t id);
  // Inserts `ids` on `threads` threads (1 = in order on this thread).
  // `progress`, when set, is called now and then with the count done. Once
  // the nodes inserted by batches since the last check pass an eighth of the
  // live nodes (and at every repair), each live node that no level-0 walk
  // from the entry point reaches is linked in (the heuristic can prune a
  // node from every list that led to it): amortised, a walk of the links.
  void InsertBatch(std::span<const std::uint32_t> ids, std::size_t threads,
                   const std::function<void(std::size_t)>& progress = {});
  // Tombstones record `id`: searches walk through it but never return it.
  // When tombstones (and nodes dropped since the last repair) pass an eighth
  // of the nodes the graph repairs itself: every node linking to one is
  // re-linked (FreshDiskANN's consolidation), the tombstones are dropped. The
  // amortised cost per removal is about one insert's.
  void Remove(std::uint32_t id);
  // Unlinks record `id` (live or tombstoned; no-op when not in the graph) at
  // once, so that its number can take another vector: the nodes that link to
  // it, found by a search for its vector (which must still be in the store),
  // are re-linked without it, then its node is freed. A link the search
  // missed is left pointing at the free number (searches step over it, the
  // next repair removes it, a new record under the number takes it over).
  // Writers only: not concurrent with Insert or Search. Costs about two
  // inserts.
  void Drop(std::uint32_t id);

  // The best k allowed live records for a prepared query (nullptr allowed:
  // all live records), nearest first. Approximate: recall depends on ef.
  std::vector<Neighbor> Search(const float* query, std::size_t k, const HnswSearchParams& params,
                               const roaring::Roaring* allowed = nullptr,
                               HnswSearchStats* stats = nullptr) const;

  // The distance to the node a greedy descent of the upper levels ends on
  // (the node level 0's search would start from): a cheap measure of how
  // near the graph comes to the query. Infinity for an empty graph.
  float Probe(const float* query, HnswSearchStats* stats = nullptr) const;

  std::size_t size() const;               // live nodes
  std::size_t tombstones() const;         // removed nodes still linked
  roaring::Roaring Tombstones() const;    // their numbers
  bool Contains(std::uint32_t id) const;  // linked (live or tombstoned)
  const HnswOptions& options() const;
  // Bytes held by the links and per-node bookkeeping (not the vectors).
  std::size_t MemoryBytes() const;

  // A versioned, checksummed byte image of the links (options included).
  std::string Serialize() const;
  // Corruption for bytes that are not such an image, or links to records the
  // store does not hold; never UB. Allocates per record number below the
  // store's limit (2M + 1) x 4 bytes and a few more, plus the upper levels'
  // links, whose levels must be the ones Insert draws for each number, and
  // so add (M + 1) x 4 / (M - 1) bytes per node in expectation.
  static StatusOr<Hnsw> Load(std::string_view bytes, const VectorStore* store);

 private:
  struct Graph;
  std::unique_ptr<Graph> graph_;
};

}  // namespace engram::vector

#endif  // ENGRAM_VECTOR_HNSW_HNSW_H_
