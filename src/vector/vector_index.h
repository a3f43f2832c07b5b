// VectorIndex: the vectors of one collection with their HNSW graph, and the
// planner that answers "the best k among the allowed records" (SEARCH.md §2)
// by choosing, per query, between an exact scan of the allowed-set and a walk
// of the graph, from the allowed-set's size and a sample of how the filter
// correlates with the query. For the dot metric the graph walks a Euclidean
// copy of the vectors in which nearness is exactly inner-product order, since
// HNSW needs a metric space; vectors whose norms lie outside the copy's range
// are searched exactly beside the graph (vector_index.cc). Record numbers may
// be reused: Put (or Stage) of a number that is live or was removed unlinks
// its old node first. Writes are not thread-safe; concurrent Searches are.
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
#include "vector/plan_costs.h"
#include "vector/value_graphs.h"
#include "vector/vector_store.h"

namespace engram::vector {

struct VectorIndexOptions {
  std::size_t dim = 0;
  Metric metric = Metric::kCosine;
  HnswOptions hnsw;
  // Keys (SetKeys) with at least this many records get their own graph
  // (value_graphs.h).
  std::size_t value_graph_min = 5000;
  // Graph walks compute distances on an 8-bit copy of the vectors
  // (quantize/sq8.h) and re-rank what they keep with the floats: a quarter
  // of the bytes read per distance, dim + 16 more bytes held per record (and
  // per value-graph member, whose scans read the copy too).
  bool quantize = false;
};

enum class VectorPlan {
  kExact,        // scan the allowed records
  kGraph,        // walk the graph, keep allowed records (HnswFilter::kWalkAll)
  kGraphTwoHop,  // walk the allowed subgraph (HnswFilter::kTwoHop)
  kValueGraphs,  // walk the graphs of the filter's values (VectorSearchOptions::cover)
};
std::string_view VectorPlanName(VectorPlan plan);

// The planner's fitted constants (vector_index.cc's file comment). The
// defaults were fitted by `vector_benchmark --fit` on one benchmark set and
// seed and are reported on the others (bench/RESULTS.md says which); only
// that fit sets them.
struct PlannerConstants {
  double walk_cost = 18;        // one graph distance, in exact-scan distances
  std::size_t default_ef = 64;  // graph plans' ef when the caller gives none (at least 2k)
  // kValueGraphs over many keys: a key not searched yet may lie this many
  // times further below its estimate than any searched key's best did.
  double cover_slack = 2;
  // Scale the value graphs' and the sample's estimates by their time per
  // unit over the exact scan's as measured on this index, and sample only
  // where samples have saved more than they cost (plan_costs.h); false: the
  // estimates as fitted (tests that check which plan is chosen).
  bool measured = true;
};

struct VectorSearchOptions {
  std::size_t k = 10;
  std::size_t ef = 0;              // 0: the planner's choice for k
  std::optional<VectorPlan> plan;  // set: skip the planner (benchmarks, tests)
  PlannerConstants planner;
  // When it passes, the scan or walk stops with what it has; the caller,
  // which owns the deadline, reports it.
  const Deadline* deadline = nullptr;
  // Keys (SetKeys) whose records together hold every allowed record, as a
  // filter on the keys' values implies (null: none known). With it the
  // planner may search the keys' value graphs and scan the small keys.
  const std::vector<std::string>* cover = nullptr;
  // Graph walks use the 8-bit copy when the index keeps one (quantize);
  // false: the floats (benchmarks compare both on one graph).
  bool quantized = true;
  // Graph walks' width on level 1 (HnswSearchParams::upper_beam; 0: the
  // graph's default for its size).
  std::size_t upper_beam = 0;
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
  std::size_t ef = 0;             // ef used by a graph plan
  std::size_t distances = 0;      // distance computations made
  std::size_t value_graphs = 0;   // kValueGraphs: keys searched (walked or scanned)
  std::size_t value_scanned = 0;  // kValueGraphs: records scanned (in keys or beside them)
  // Graph walks use the 8-bit copy, re-ranked with the floats (quantize).
  bool quantized = false;
  std::string reason;  // one sentence: why this plan
};

class VectorIndex {
 public:
  explicit VectorIndex(const VectorIndexOptions& options);

  // Stores the vector of record `id` and links it into the graph (replacing
  // an earlier vector: its node is unlinked first, Hnsw::Drop). Ids may be
  // live, removed, or new. InvalidArgument as VectorStore::Put.
  Status Put(std::uint32_t id, std::span<const float> vector);
  // Stores many vectors (row-major, ids.size() x dim) and links them on
  // `threads` threads. Validates every vector first: a bad one rejects the
  // batch with its position named, and nothing is stored.
  Status PutBatch(std::span<const std::uint32_t> ids, std::span<const float> vectors,
                  std::size_t threads, const std::function<void(std::size_t)>& progress = {});
  // Stores the vectors (validated as PutBatch) without linking them into the
  // graph (records already linked are unlinked first): they are searched
  // exactly, beside the graph, until LinkPending links them. This lets a
  // writer acknowledge a durable batch before the graph work.
  Status Stage(std::span<const std::uint32_t> ids, std::span<const float> vectors,
               std::size_t threads);
  // Links up to `max` staged records on `threads` threads; returns how many.
  std::size_t LinkPending(std::size_t max, std::size_t threads);
  std::size_t pending() const { return pending_.cardinality(); }
  // Forgets record `id` (no-op when absent) and its keys; its number may be
  // put again. The graph keeps a tombstone until its next repair
  // (Hnsw::Remove).
  void Remove(std::uint32_t id);
  // The filter values record `id` carries, as keys (value_graphs.h: opaque
  // strings, each one field's value), replacing those it carried. May come
  // before or after its vector; a record without a vector is in no graph.
  // InvalidArgument as ValueGraphs::SetKeys.
  Status SetKeys(std::uint32_t id, std::span<const std::string> keys);
  const ValueGraphs& values() const { return values_; }

  // dot only: records linked outside the graph because their norms lie
  // outside the Euclidean copy's range (searched exactly), and how many
  // records the copy's rebuilds have linked again in all. Rebuilds happen
  // only after an eighth of the records have been linked since the last, so
  // relinks stay below 8 per record linked (vector_index.cc).
  std::size_t outside() const { return side_.cardinality(); }
  std::uint64_t relinked() const { return relinked_; }

  // The best k live records among `allowed` (nullptr: all), nearest first,
  // distances internal (metric.h). InvalidArgument for a query of the wrong
  // size or with non-finite components.
  StatusOr<std::vector<Neighbor>> Search(std::span<const float> query,
                                         const VectorSearchOptions& options,
                                         const roaring::Roaring* allowed = nullptr,
                                         VectorExplain* explain = nullptr) const;

  const VectorStore& store() const { return *store_; }
  // From now on graph walks, the value graphs' included, use an 8-bit copy
  // of the walked vectors (VectorIndexOptions::quantize), and the value
  // graphs' scans read it too; built here, kept by every later Put.
  // Idempotent. A loaded index starts without it (it is not in the image).
  void Quantize() {
    (nav_ ? *nav_ : *store_).EnableCodes();
    values_.EnableCodes();
  }
  bool quantized() const { return (nav_ ? *nav_ : *store_).codes() != nullptr; }
  const Hnsw& graph() const { return graph_; }
  std::size_t size() const { return store_->size(); }
  std::size_t MemoryBytes() const {
    return store_->MemoryBytes() + (nav_ ? nav_->MemoryBytes() : 0) + graph_.MemoryBytes() +
           values_.MemoryBytes();
  }

  // A versioned, checksummed image: the store (with the tombstones' vectors),
  // the dot copy's norm bound, the graph, the value graphs.
  std::string Serialize() const;
  // Corruption for bytes that are not such an image (version 1 included: the
  // caller rebuilds from its records) or that name a record >= id_limit (the
  // caller's bound on its record numbers). Allocates as VectorStore::Load
  // and Hnsw::Load do, plus the dot copy: (dim + 1) x 4 bytes per record
  // number below the largest.
  static StatusOr<VectorIndex> Load(std::string_view bytes, std::uint32_t id_limit);

 private:
  VectorIndex(std::unique_ptr<VectorStore> store, std::unique_ptr<VectorStore> nav, double phi2,
              Hnsw graph, std::size_t value_graph_min);
  // Whether record `id` is linked in the graph now (ValueGraphs::Linked).
  ValueGraphs::Linked Linked() const;
  // The kValueGraphs plan (vector_index_cover.cc): the keys it searches and
  // the records it scans, and its cost to beat, in exact-scan distances.
  struct CoverPlan {
    struct Part {
      ValueGraphs::KeyView key;
      bool scan = false;    // its kept records are scanned, not walked
      double estimate = 0;  // ValueGraphs::Estimate, set when run
    };
    std::vector<Part> parts;
    // Keys' records scanned exactly, beside the allowed records not linked
    // (RunCover answers with allowed ones only: tested, or when whole,
    // checked).
    std::vector<const roaring::Roaring*> scan_sets;
    bool whole = false;  // the keys hold exactly the allowed records
    std::size_t ef = 0;
    double units = 0;  // estimated cost
    double cost = 0;   // to beat: units times the margin it must win by
  };
  // nullopt when the cover has no graph to search, or costs `bound` or more
  // (planning stops as soon as it knows).
  std::optional<CoverPlan> PlanCover(std::size_t ef, const VectorSearchOptions& options,
                                     const roaring::Roaring& allowed, double bound) const;
  // The best k allowed records by `plan`. With `why`, the explain reason
  // gets it and what the plan did.
  std::vector<Neighbor> RunCover(CoverPlan& plan, const std::vector<float>& q, std::size_t k,
                                 const VectorSearchOptions& options,
                                 const roaring::Roaring& allowed, VectorExplain& ex,
                                 const char* why) const;
  // dot only: the Euclidean copy the graph walks (vector_index.cc).
  static std::unique_ptr<VectorStore> MakeNav(const VectorStore& store);
  Status PutNav(std::uint32_t id);
  // Whether a squared norm lies in the copy's range for bound phi2.
  static bool InRange(double norm2, double phi2);
  // The bound whose range holds the most of `norms2` (squared norms).
  static double ChooseBound(std::vector<double> norms2);
  // Relinks every linked record under a better bound when the records
  // outside the range have grown and enough were linked since the last time.
  void MaybeRebuild(std::size_t threads);
  // Validates and stores a batch; the distinct ids, last vector winning.
  // Ids linked in the graph are unlinked first (their old vectors needed).
  StatusOr<std::vector<std::uint32_t>> StoreBatch(std::span<const std::uint32_t> ids,
                                                  std::span<const float> vectors);
  // Links stored records into the graph (dot: those in range; the others
  // join side_).
  void Link(const std::vector<std::uint32_t>& ids, std::size_t threads,
            const std::function<void(std::size_t)>& progress);
  // The query in the graph's space (dot: the Euclidean copy's form).
  std::vector<float> WalkQuery(const std::vector<float>& query) const;
  std::vector<Neighbor> GraphSearch(const std::vector<float>& query, std::size_t k,
                                    const HnswSearchParams& params, const roaring::Roaring* allowed,
                                    HnswSearchStats* stats) const;

  // On the heap so that the graph's pointer to them survives moves.
  std::unique_ptr<VectorStore> store_;
  std::unique_ptr<VectorStore> nav_;  // dot only, else null: the graph walks store_
  double phi2_ = 0;                   // dot only: the squared norm bound of nav_ (0: none yet)
  Hnsw graph_;
  ValueGraphs values_;
  roaring::Roaring pending_;         // stored, not yet in the graph (Stage)
  roaring::Roaring side_;            // dot only: linked outside the graph (out of range)
  std::uint64_t since_rebuild_ = 0;  // dot only: records linked since the last rebuild
  std::uint64_t relinked_ = 0;       // dot only: records relinked by rebuilds
  // The plans' measured costs (searches note them; on the heap, as it
  // holds atomics and the index moves).
  std::unique_ptr<PlanCosts> costs_ = std::make_unique<PlanCosts>();
};

}  // namespace engram::vector

#endif  // ENGRAM_VECTOR_VECTOR_INDEX_H_
