// VectorIndex: storage, graph upkeep and the planner. The planner compares
// the estimated cost of two plans, in units of one exact-scan distance (a
// sequential, prefetched read):
//   exact           = the allowed records;
//   graph, walk all = kWalkCost * ef / s: a walk that keeps only allowed
//                     records visits about 1/s nodes per kept one, and a graph
//                     distance (a random read plus heap work) costs more;
// where s is the selectivity the walk meets near the query. A filter
// anti-correlated with the query leaves few allowed records there and one
// correlated with it keeps many, so the global share can mislead both ways:
//  - the walk looks cheaper at the global share: it runs, and its first
//    HnswSearchStats::kNear expansions (the query's neighbourhood, allowed or
//    not) are checked; none allowed means the allowed records lie beyond the
//    neighbourhood, where a walk that keeps ef candidates does not reach
//    (measured on 1M x 128: recall 0.2-0.3 at 10-50 % kept), so the answer
//    is the exact scan's instead;
//  - the scan looks cheaper, but a walk meeting only allowed records (s = 1)
//    plus a sample would beat it: the query's unfiltered neighbourhood is
//    sampled (kSampleEf nearest) and s is the allowed share there. At 1 %
//    kept on 1M vectors the global share always says "scan", yet a
//    correlated filter's walk is 3.5x faster.
// A walk that runs first costs no sample: on 4,800 SIFT vectors at 50 %
// kept, the sample cost a third of the graph plan's speed. kWalkCost was
// fitted on bench/vector (RESULTS.md).
//
// The two-hop walk (ACORN-1) is measured there too but never chosen: on the
// clustered sets it lost recall at 1 % and under anti-correlated filters
// (0.3-0.6 at any ef) where exact scans win anyway, and it did not beat the
// walk-all plan at 10 %. It stays available as a forced plan.
//
// dot: inner product is not a metric, and HNSW walks it poorly (recall 0.76
// on the clustered data of vector_index_test). The graph walks a Euclidean
// copy instead: x' = [x / r, sqrt(1 - |x|^2 / r^2)] with r^2 >= every |x|^2,
// and the query q' = [q, 0]. Then |q' - x'|^2 = |q|^2 + 1 - 2 q.x / r, so
// Euclidean order is exactly inner-product order (Bachrach et al., "Speeding
// up the Xbox recommender system using a Euclidean transformation for
// inner-product spaces", RecSys 2014). A vector longer than r raises r^2 (with
// headroom, so that this is rare) and relinks the whole graph.
#include "vector/vector_index.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <limits>
#include <unordered_map>

#include <fmt/core.h>

#include "base/bytes.h"
#include "base/status.h"
#include "vector/exact/exact_search.h"

namespace engram::vector {
namespace {

constexpr char kMagic[8] = {'E', 'N', 'G', 'R', 'M', 'V', 'I', 'X'};
constexpr std::uint32_t kVersion = 1;

// Cost model (see the file comment); fitted in bench/vector.
constexpr double kWalkCost = 18;
// Sampling the neighbourhood costs one small unfiltered search.
constexpr std::size_t kSampleEf = 32;
constexpr double kPrior = 8;
// Default ef for graph plans: met recall@10 >= 0.95 on every benchmark set,
// and at least 2k for larger k.
constexpr std::size_t kDefaultEf = 64;

// Headroom of the dot copy's norm bound: r^2 = 1.5625 |x|^2 (r = 1.25 |x|).
constexpr double kNavHeadroom = 1.5625;

double Norm2(const float* x, std::size_t dim) {
  double n = 0;
  for (std::size_t i = 0; i < dim; ++i) n += double{x[i]} * x[i];
  return n;
}

std::size_t PlanEf(std::size_t k, std::size_t requested) {
  return requested != 0 ? std::max(requested, k) : std::max(kDefaultEf, 2 * k);
}

}  // namespace

std::string_view VectorPlanName(VectorPlan plan) {
  switch (plan) {
    case VectorPlan::kExact:
      return "exact";
    case VectorPlan::kGraph:
      return "graph";
    case VectorPlan::kGraphTwoHop:
      return "graph_two_hop";
  }
  return "exact";
}

VectorIndex::VectorIndex(const VectorIndexOptions& options)
    : store_(std::make_unique<VectorStore>(options.dim, options.metric)),
      nav_(options.metric == Metric::kDot ? MakeNav(*store_) : nullptr),
      graph_(nav_ ? nav_.get() : store_.get(), options.hnsw) {}

VectorIndex::VectorIndex(std::unique_ptr<VectorStore> store, std::unique_ptr<VectorStore> nav,
                         float phi2, Hnsw graph)
    : store_(std::move(store)), nav_(std::move(nav)), phi2_(phi2), graph_(std::move(graph)) {}

std::unique_ptr<VectorStore> VectorIndex::MakeNav(const VectorStore& store) {
  return std::make_unique<VectorStore>(store.dim() + 1, Metric::kL2);
}

// Writes record `id`'s Euclidean copy (file comment); |x|^2 <= phi2_.
Status VectorIndex::PutNav(std::uint32_t id) {
  const std::size_t dim = store_->dim();
  const float* x = store_->Get(id);
  const double r = std::sqrt(static_cast<double>(phi2_));
  std::vector<float> nav(dim + 1);
  for (std::size_t i = 0; i < dim; ++i) nav[i] = static_cast<float>(x[i] / r);
  nav[dim] = static_cast<float>(std::sqrt(std::max(0.0, 1 - Norm2(x, dim) / phi2_)));
  return nav_->Put(id, nav);
}

// Recomputes every Euclidean copy under a new bound and links the graph anew.
void VectorIndex::Relink(std::size_t threads) {
  std::vector<std::uint32_t> ids;
  ids.reserve(store_->size());
  for (std::uint32_t id : store_->live()) {
    ids.push_back(id);
    // Cannot fail: the copy is finite with components in [-1, 1].
    [[maybe_unused]] const Status status = PutNav(id);
    assert(status.ok());
  }
  graph_ = Hnsw(nav_.get(), graph_.options());
  graph_.InsertBatch(ids, threads);
}

Status VectorIndex::Put(std::uint32_t id, std::span<const float> vector) {
  RETURN_IF_ERROR(store_->Put(id, vector));
  pending_.remove(id);
  return Link({id}, 1, {});
}

StatusOr<std::vector<std::uint32_t>> VectorIndex::StoreBatch(std::span<const std::uint32_t> ids,
                                                             std::span<const float> vectors) {
  const std::size_t dim = store_->dim();
  if (vectors.size() != ids.size() * dim) {
    return Status::InvalidArgument(fmt::format("{} vectors of dimension {} need {} numbers, got {}",
                                               ids.size(), dim, ids.size() * dim, vectors.size()));
  }
  // Validate everything before storing anything: a bad vector rejects the batch.
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const Status checked = store_->Validate(vectors.subspan(i * dim, dim));
    if (!checked.ok()) return checked.WithContext(fmt::format("vectors[{}]", i));
  }
  // A repeated id keeps its last vector and is linked once.
  std::unordered_map<std::uint32_t, std::size_t> last;
  last.reserve(ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) last[ids[i]] = i;
  std::vector<std::uint32_t> stored;
  stored.reserve(last.size());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (last[ids[i]] != i) continue;
    RETURN_IF_ERROR(store_->Put(ids[i], vectors.subspan(i * dim, dim)));
    stored.push_back(ids[i]);
  }
  return stored;
}

double VectorIndex::LongestNorm2(const std::vector<std::uint32_t>& ids) const {
  double longest = 0;
  for (std::uint32_t id : ids) longest = std::max(longest, Norm2(store_->Get(id), store_->dim()));
  return longest;
}

Status VectorIndex::Link(const std::vector<std::uint32_t>& ids, std::size_t threads,
                         const std::function<void(std::size_t)>& progress) {
  if (nav_) {
    const double longest = LongestNorm2(ids);
    if (longest > phi2_) {
      phi2_ = static_cast<float>(longest * kNavHeadroom);
      pending_ = roaring::Roaring();  // Relink links every stored record
      Relink(threads);
      if (progress) progress(ids.size());
      return Status::Ok();
    }
    for (std::uint32_t id : ids) RETURN_IF_ERROR(PutNav(id));
  }
  graph_.InsertBatch(ids, threads, progress);
  return Status::Ok();
}

Status VectorIndex::PutBatch(std::span<const std::uint32_t> ids, std::span<const float> vectors,
                             std::size_t threads,
                             const std::function<void(std::size_t)>& progress) {
  ASSIGN_OR_RETURN(std::vector<std::uint32_t> stored, StoreBatch(ids, vectors));
  for (std::uint32_t id : stored) pending_.remove(id);
  return Link(stored, threads, progress);
}

Status VectorIndex::Stage(std::span<const std::uint32_t> ids, std::span<const float> vectors,
                          std::size_t threads) {
  ASSIGN_OR_RETURN(std::vector<std::uint32_t> stored, StoreBatch(ids, vectors));
  if (nav_ && LongestNorm2(stored) > phi2_) {
    // Beyond the dot copy's norm bound: Link relinks everything now, so
    // that a staged record always fits the bound (images rely on it).
    for (std::uint32_t id : stored) pending_.remove(id);
    return Link(stored, threads, {});
  }
  std::vector<std::uint32_t> relink;
  for (std::uint32_t id : stored) {
    if (graph_.Contains(id)) {
      relink.push_back(id);
    } else {
      pending_.add(id);
    }
  }
  return Link(relink, threads, {});
}

std::size_t VectorIndex::LinkPending(std::size_t max, std::size_t threads) {
  std::vector<std::uint32_t> ids;
  for (std::uint32_t id : pending_) {
    if (ids.size() == max) break;
    ids.push_back(id);
  }
  for (std::uint32_t id : ids) pending_.remove(id);
  // Cannot fail: the vectors were validated when they were stored.
  [[maybe_unused]] const Status linked = Link(ids, threads, {});
  assert(linked.ok());
  return ids.size();
}

void VectorIndex::Remove(std::uint32_t id) {
  if (!store_->Contains(id)) return;
  pending_.remove(id);
  graph_.Remove(id);
  store_->Remove(id);
  if (nav_) nav_->Remove(id);
}

std::vector<Neighbor> VectorIndex::GraphSearch(const std::vector<float>& query, std::size_t k,
                                               const HnswSearchParams& params,
                                               const roaring::Roaring* allowed,
                                               HnswSearchStats* stats) const {
  if (!nav_) return graph_.Search(query.data(), k, params, allowed, stats);
  // [q / |q|, 0]: the same order as [q, 0], and on the unit sphere where the
  // copies are, which the graph walks better than from far away.
  const double norm = std::sqrt(Norm2(query.data(), query.size()));
  std::vector<float> q(query.size() + 1, 0.0f);
  if (norm > 0) {
    for (std::size_t i = 0; i < query.size(); ++i) q[i] = static_cast<float>(query[i] / norm);
  }
  std::vector<Neighbor> hits = graph_.Search(q.data(), k, params, allowed, stats);
  // Same order; report the metric's own distance (-dot).
  for (Neighbor& h : hits) h.distance = store_->Distance(query.data(), h.id);
  std::sort(hits.begin(), hits.end());
  return hits;
}

StatusOr<std::vector<Neighbor>> VectorIndex::Search(std::span<const float> query,
                                                    const VectorSearchOptions& options,
                                                    const roaring::Roaring* allowed,
                                                    VectorExplain* explain) const {
  ASSIGN_OR_RETURN(std::vector<float> q, store_->PrepareQuery(query));
  VectorExplain local;
  VectorExplain& ex = explain != nullptr ? *explain : local;
  ex = VectorExplain{};
  ex.live = store_->size();
  ex.allowed = allowed == nullptr ? ex.live : allowed->and_cardinality(store_->live());
  ex.selectivity = ex.live == 0 ? 0 : static_cast<double>(ex.allowed) / ex.live;
  const std::size_t k = std::min(options.k, ex.allowed);
  if (k == 0) {
    ex.reason = ex.allowed == 0 ? "no live record is allowed" : "k is 0";
    return std::vector<Neighbor>{};
  }

  if (options.plan) {
    ex.plan = *options.plan;
    ex.reason = "plan forced by the caller";
  } else {
    // Estimated costs (file comment), in exact-scan distances.
    const double exact_cost = static_cast<double>(ex.allowed);
    const double ef = static_cast<double>(PlanEf(k, options.ef));
    double walk_cost = kWalkCost * ef / ex.selectivity;
    const bool walk_may_win = kWalkCost * (ef + kSampleEf) < exact_cost;
    if (ex.selectivity < 1 && walk_cost >= exact_cost && walk_may_win) {
      // Whether the filter keeps more near the query than overall.
      HnswSearchStats sample_stats;
      const auto sample =
          GraphSearch(q, kSampleEf, HnswSearchParams{kSampleEf}, nullptr, &sample_stats);
      ex.distances += sample_stats.distances;
      if (!sample.empty()) {
        std::size_t in = 0;
        for (const Neighbor& n : sample) in += allowed->contains(n.id) ? 1 : 0;
        ex.local_selectivity = static_cast<double>(in) / sample.size();
        // The share near the query, with the global share as a prior worth
        // kPrior samples (so that 0 of 32 at 5 % is not read as "none").
        const double near = (static_cast<double>(in) + kPrior * ex.selectivity) /
                            (static_cast<double>(sample.size()) + kPrior);
        walk_cost = kWalkCost * ef / near;
        if (in == 0 && sample.size() >= kSampleEf / 2) walk_cost = exact_cost;
      }
    }
    ex.plan = walk_cost < exact_cost ? VectorPlan::kGraph : VectorPlan::kExact;
    // Formatting costs as much as a small exact scan: only when asked.
    if (explain != nullptr) {
      ex.reason = fmt::format("estimated cost: exact {:.0f}, graph {:.0f} (selectivity {:.4g}{})",
                              exact_cost, walk_cost, ex.selectivity,
                              ex.local_selectivity < 0
                                  ? ""
                                  : fmt::format(", near the query {:.4g}", ex.local_selectivity));
    }
  }

  if (ex.plan != VectorPlan::kExact) {
    ex.ef = PlanEf(k, options.ef);
    HnswSearchParams params{
        ex.ef, ex.plan == VectorPlan::kGraphTwoHop ? HnswFilter::kTwoHop : HnswFilter::kWalkAll};
    params.give_up_beyond = !options.plan && allowed != nullptr;
    params.deadline = options.deadline;
    HnswSearchStats stats;
    auto hits = GraphSearch(q, k, params, allowed, &stats);
    ex.distances += stats.distances;
    if (ex.local_selectivity < 0 && stats.near_expanded > 0) {
      ex.local_selectivity = static_cast<double>(stats.near_allowed) / stats.near_expanded;
    }
    // The walk met no allowed record near the query (file comment).
    const bool beyond = stats.gave_up;
    if (!beyond) {
      if (!pending_.isEmpty()) {
        // Staged records are not in the graph yet: scan those allowed, merge.
        const roaring::Roaring staged = allowed != nullptr ? pending_ & *allowed : pending_;
        std::vector<Neighbor> extra = ExactSearch(*store_, q.data(), k, &staged, options.deadline);
        ex.distances += staged.cardinality();
        hits.insert(hits.end(), extra.begin(), extra.end());
        std::sort(hits.begin(), hits.end());
        if (hits.size() > k) hits.resize(k);
      }
      // Never fewer than k: a walk that could not reach k allowed records
      // (a disconnected allowed subgraph) falls back to the exact scan.
      if (hits.size() >= k || options.plan) return hits;
    }
    if (explain != nullptr) {
      ex.reason += beyond
                       ? fmt::format("; none of the walk's {} nearest nodes is allowed, so exact",
                                     HnswSearchStats::kNear)
                       : fmt::format("; the graph found {} of {}, so exact", hits.size(), k);
    }
    ex.plan = VectorPlan::kExact;
  }
  ex.distances += ex.allowed;
  return ExactSearch(*store_, q.data(), k, allowed, options.deadline);
}

std::string VectorIndex::Serialize() const {
  ByteWriter w;
  w.Raw(kMagic, 8);
  w.Fixed(kVersion, 4);
  w.Str(store_->Serialize());
  w.F64(phi2_);
  w.Str(graph_.Serialize());
  w.Fixed(Fnv1a64(w.out), 8);
  return std::move(w.out);
}

StatusOr<VectorIndex> VectorIndex::Load(std::string_view bytes) {
  if (bytes.size() < 8 + 4 + 8 || std::memcmp(bytes.data(), kMagic, 8) != 0) {
    return Status::Corruption("not a vector index image");
  }
  ByteReader check(bytes.substr(bytes.size() - 8));
  if (check.Fixed(8) != Fnv1a64(bytes.substr(0, bytes.size() - 8))) {
    return Status::Corruption("vector index image checksum mismatch");
  }
  ByteReader r(bytes.substr(8, bytes.size() - 16));
  if (r.Fixed(4) != kVersion) return Status::Corruption("unknown vector index image version");
  const std::string store_bytes = r.Str();
  const double phi2 = r.F64();
  const std::string graph_bytes = r.Str();
  if (!r.ok() || r.left() != 0) return Status::Corruption("vector index image is malformed");
  ASSIGN_OR_RETURN(VectorStore store, VectorStore::Load(store_bytes));
  auto owned = std::make_unique<VectorStore>(std::move(store));
  std::unique_ptr<VectorStore> nav;
  if (owned->metric() == Metric::kDot) {
    double longest = 0;
    for (std::uint32_t id : owned->live()) {
      longest = std::max(longest, Norm2(owned->Get(id), owned->dim()));
    }
    if (!(phi2 >= longest) || phi2 > std::numeric_limits<float>::max()) {
      return Status::Corruption("vector index image has a bad norm bound");
    }
    nav = MakeNav(*owned);
  } else if (phi2 != 0) {
    return Status::Corruption("vector index image has a norm bound for a metric without one");
  }
  VectorIndex index(std::move(owned), std::move(nav), static_cast<float>(phi2),
                    Hnsw(nullptr, HnswOptions{}));
  if (index.nav_) {
    for (std::uint32_t id : index.store_->live()) RETURN_IF_ERROR(index.PutNav(id));
  }
  const VectorStore* walked = index.nav_ ? index.nav_.get() : index.store_.get();
  ASSIGN_OR_RETURN(index.graph_, Hnsw::Load(graph_bytes, walked));
  // Records staged and not yet linked when the image was taken stay staged.
  for (std::uint32_t id : index.store_->live()) {
    if (!index.graph_.Contains(id)) index.pending_.add(id);
  }
  if (index.graph_.size() + index.pending_.cardinality() != index.store_->size()) {
    return Status::Corruption(fmt::format("the graph links {} records, the store holds {}",
                                          index.graph_.size(), index.store_->size()));
  }
  return index;
}

}  // namespace engram::vector
