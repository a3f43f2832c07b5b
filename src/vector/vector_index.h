// VectorIndex: the vectors of one collection with their HNSW graph, and the
// planner that answers "the best k among the allowed records" (SEARCH.md §2)
// by choosing, per query, between an exact scan of the allowed-set and a walk
// of the graph, from the allowed-set's size and a sample of how the filter
// correlates with the query. For the dot metric the graph walks a Euclidean
// copy of the vectors in which nearness is exactly inner-product order, since
// HNSW needs a metric space. Writes are not thread-safe; concurrent Searches
// are.
#ifndef ENGRAM_VECTOR_VECTOR_INDEX_H_
#define ENGRAM_VECTOR_VECTOR_INDEX_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/roaring.h"
#include "engram/status.h"
#include "vector/hnsw/hnsw.h"
#include "vector/metric.h"
#include "vector/neighbor.h"
#include "vector/vector_store.h"

namespace engram::vector {

struct VectorIndexOptions {
  std::size_t dim = 0;
  Metric metric = Metric::kCosine;
  HnswOptions hnsw;
};

enum class VectorPlan {
  kExact,        // scan the allowed records
  kGraph,        // walk the graph, keep allowed records (HnswFilter::kWalkAll)
  kGraphTwoHop,  // walk the allowed subgraph (HnswFilter::kTwoHop)
};
std::string_view VectorPlanName(VectorPlan plan);

struct VectorSearchOptions {
  std::size_t k = 10;
  std::size_t ef = 0;              // 0: the planner's choice for k
  std::optional<VectorPlan> plan;  // set: skip the planner (benchmarks, tests)
  // When it passes, the scan or walk stops with what it has; the caller,
  // which owns the deadline, reports it.
  const Deadline* deadline = nullptr;
};

// What the planner saw and chose, for explain.
struct VectorExplain {
  VectorPlan plan = VectorPlan::kExact;
  std::size_t live = 0;     // live records
  std::size_t allowed = 0;  // live records in the allowed-set
  double selectivity = 1;   // allowed / live
  // The allowed share of the query's neighbourhood, sampled or as the walk met
  // it (-1: neither).
  double local_selectivity = -1;
  std::size_t ef = 0;         // ef used by a graph plan
  std::size_t distances = 0;  // distance computations made
  std::string reason;         // one sentence: why this plan
};

class VectorIndex {
 public:
  explicit VectorIndex(const VectorIndexOptions& options);

  // Stores the vector of record `id` and links it into the graph (replacing
  // an earlier vector). InvalidArgument as VectorStore::Put.
  Status Put(std::uint32_t id, std::span<const float> vector);
  // Stores many vectors (row-major, ids.size() x dim) and links them on
  // `threads` threads. Validates every vector first: a bad one rejects the
  // batch with its position named, and nothing is stored.
  Status PutBatch(std::span<const std::uint32_t> ids, std::span<const float> vectors,
                  std::size_t threads, const std::function<void(std::size_t)>& progress = {});
  // Stores the vectors (validated as PutBatch) without linking new records
  // into the graph: they are searched exactly, beside the graph, until
  // LinkPending links them. Records already linked are re-linked at once.
  // This lets a writer acknowledge a durable batch before the graph work.
  Status Stage(std::span<const std::uint32_t> ids, std::span<const float> vectors,
               std::size_t threads);
  // Links up to `max` staged records on `threads` threads; returns how many.
  std::size_t LinkPending(std::size_t max, std::size_t threads);
  std::size_t pending() const { return pending_.cardinality(); }
  void Remove(std::uint32_t id);

  // The best k live records among `allowed` (nullptr: all), nearest first,
  // distances internal (metric.h). InvalidArgument for a query of the wrong
  // size or with non-finite components.
  StatusOr<std::vector<Neighbor>> Search(std::span<const float> query,
                                         const VectorSearchOptions& options,
                                         const roaring::Roaring* allowed = nullptr,
                                         VectorExplain* explain = nullptr) const;

  const VectorStore& store() const { return *store_; }
  const Hnsw& graph() const { return graph_; }
  std::size_t size() const { return store_->size(); }
  std::size_t MemoryBytes() const {
    return store_->MemoryBytes() + (nav_ ? nav_->MemoryBytes() : 0) + graph_.MemoryBytes();
  }

  std::string Serialize() const;
  static StatusOr<VectorIndex> Load(std::string_view bytes);

 private:
  VectorIndex(std::unique_ptr<VectorStore> store, std::unique_ptr<VectorStore> nav, float phi2,
              Hnsw graph);
  // dot only: the Euclidean copy the graph walks (vector_index.cc).
  static std::unique_ptr<VectorStore> MakeNav(const VectorStore& store);
  Status PutNav(std::uint32_t id);
  float NavPhi2(float norm2) const;
  void Relink(std::size_t threads);
  StatusOr<std::vector<float>> NavQuery(const std::vector<float>& query) const;
  // Validates and stores a batch; the distinct ids, last vector winning.
  StatusOr<std::vector<std::uint32_t>> StoreBatch(std::span<const std::uint32_t> ids,
                                                  std::span<const float> vectors);
  // The largest squared norm among stored records `ids`.
  double LongestNorm2(const std::vector<std::uint32_t>& ids) const;
  // Links stored records into the graph (the dot copy first).
  Status Link(const std::vector<std::uint32_t>& ids, std::size_t threads,
              const std::function<void(std::size_t)>& progress);
  std::vector<Neighbor> GraphSearch(const std::vector<float>& query, std::size_t k,
                                    const HnswSearchParams& params, const roaring::Roaring* allowed,
                                    HnswSearchStats* stats) const;

  // On the heap so that the graph's pointer to them survives moves.
  std::unique_ptr<VectorStore> store_;
  std::unique_ptr<VectorStore> nav_;  // dot only, else null: the graph walks store_
  float phi2_ = 0;                    // dot only: the squared norm bound of nav_
  Hnsw graph_;
  roaring::Roaring pending_;  // stored, not yet in the graph (Stage)
};

}  // namespace engram::vector

#endif  // ENGRAM_VECTOR_VECTOR_INDEX_H_
