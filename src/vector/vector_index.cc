// VectorIndex: storage and graph upkeep (the planner: vector_index_search.cc;
// the value graphs' plan: vector_index_cover.cc).
//
// dot: inner product is not a metric, and HNSW walks it poorly (recall 0.76
// on the clustered data of vector_index_test). The graph walks a Euclidean
// copy instead: x' = [x / r, sqrt(1 - |x|^2 / r^2)] with r^2 >= every |x|^2,
// and the query q' = [q, 0]. Then |q' - x'|^2 = |q|^2 + 1 - 2 q.x / r, so
// Euclidean order is exactly inner-product order (Bachrach et al., "Speeding
// up the Xbox recommender system using a Euclidean transformation for
// inner-product spaces", RecSys 2014).
// One bound r serves a limited range of norms: a vector much shorter than r
// is copied to within float rounding of [0, .., 0, 1], where every distance
// is the same and the walk becomes arbitrary (issue 18: after 14 upserts
// with norms up to 1e14, recall@10 was 0). So the copy covers norms in
// [r / kRange, r] only; records outside are linked "outside" (side_), kept
// out of the graph and searched exactly beside it, like staged ones. The
// bound is chosen as the one whose range holds the most records, with r
// twice the longest of them (ChooseBound), first from the first records
// linked; it is chosen again, and every record in range relinked, only when
// the records outside pass a sixteenth of those linked AND an eighth of them
// have been linked since the last rebuild AND the new bound halves the
// records outside. Each rebuild relinks at most the records linked, after at
// least an eighth of them were linked: no sequence of upserts costs more
// than 8 relinks per record linked, amortised, and none grows the bound for
// everyone (a few huge vectors stay outside, searched exactly).
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

namespace engram::vector {
namespace {

constexpr char kIndexMagic[8] = {'E', 'N', 'G', 'R', 'M', 'V', 'I', 'X'};
// Version 3 adds the value graphs; version 2 images load without any.
constexpr std::uint32_t kIndexVersion = 3;

// The dot copy (file comment): r is twice the longest norm in range when the
// bound is chosen, and the range is [r / kRange, r]. With kRange = 128 a
// record at the bottom of the range keeps inner products of 1/128 of r's,
// about 2^17 float steps from one another in the copy's distances.
constexpr double kHeadroom2 = 4;           // (r / longest)^2
constexpr double kRange2 = 128.0 * 128.0;  // kRange^2
constexpr std::uint64_t kMinOutside = 64;  // below this many outside, never rebuild

double Norm2(const float* x, std::size_t dim) {
  double n = 0;
  for (std::size_t i = 0; i < dim; ++i) n += double{x[i]} * x[i];
  return n;
}

}  // namespace

VectorIndex::VectorIndex(const VectorIndexOptions& options)
    : store_(std::make_unique<VectorStore>(options.dim, options.metric)),
      nav_(options.metric == Metric::kDot ? MakeNav(*store_) : nullptr),
      graph_(nav_ ? nav_.get() : store_.get(), options.hnsw),
      values_(nav_ ? nav_.get() : store_.get(), options.hnsw, options.value_graph_min) {
  if (options.quantize) Quantize();
}

VectorIndex::VectorIndex(std::unique_ptr<VectorStore> store, std::unique_ptr<VectorStore> nav,
                         double phi2, Hnsw graph, std::size_t value_graph_min)
    : store_(std::move(store)),
      nav_(std::move(nav)),
      phi2_(phi2),
      graph_(std::move(graph)),
      values_(nav_ ? nav_.get() : store_.get(), graph_.options(), value_graph_min) {}

ValueGraphs::Linked VectorIndex::Linked() const {
  return [this](std::uint32_t id) { return graph_.Contains(id) && store_->Contains(id); };
}

Status VectorIndex::SetKeys(std::uint32_t id, std::span<const std::string> keys) {
  return values_.SetKeys(id, keys, Linked());
}

std::unique_ptr<VectorStore> VectorIndex::MakeNav(const VectorStore& store) {
  return std::make_unique<VectorStore>(store.dim() + 1, Metric::kL2);
}

bool VectorIndex::InRange(double norm2, double phi2) {
  return norm2 <= phi2 && norm2 * kRange2 >= phi2 && phi2 > 0;
}

double VectorIndex::ChooseBound(std::vector<double> norms2) {
  std::sort(norms2.begin(), norms2.end());
  // Two pointers: for the bound 4 x norms2[i], the range [lo, bound] holds
  // norms2[j..i'] where i' is the last within the bound.
  double best = 0;
  std::size_t best_count = 0, j = 0, hi = 0;
  for (std::size_t i = 0; i < norms2.size(); ++i) {
    if (norms2[i] == 0) continue;  // a zero vector is in no range
    const double bound = kHeadroom2 * norms2[i];
    while (hi < norms2.size() && norms2[hi] <= bound) ++hi;
    while (norms2[j] * kRange2 < bound) ++j;
    if (hi - j >= best_count) {  // ties: the longer bound (long vectors win dot products)
      best_count = hi - j;
      best = bound;
    }
  }
  return best;
}

// Writes record `id`'s Euclidean copy (file comment); InRange(|x|^2, phi2_).
Status VectorIndex::PutNav(std::uint32_t id) {
  const std::size_t dim = store_->dim();
  const float* x = store_->Get(id);
  const double r = std::sqrt(phi2_);
  std::vector<float> nav(dim + 1);
  for (std::size_t i = 0; i < dim; ++i) nav[i] = static_cast<float>(x[i] / r);
  nav[dim] = static_cast<float>(std::sqrt(std::max(0.0, 1 - Norm2(x, dim) / phi2_)));
  return nav_->Put(id, nav);
}

Status VectorIndex::Put(std::uint32_t id, std::span<const float> vector) {
  return PutBatch(std::span<const std::uint32_t>(&id, 1), vector, 1);
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
    if (ids[i] == UINT32_MAX) {
      return Status::InvalidArgument(
          fmt::format("ids[{}]: record number 4294967295 is reserved", i));
    }
  }
  // A repeated id keeps its last vector and is linked once.
  std::unordered_map<std::uint32_t, std::size_t> last;
  last.reserve(ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) last[ids[i]] = i;
  std::vector<std::uint32_t> stored;
  stored.reserve(last.size());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const std::uint32_t id = ids[i];
    if (last[id] != i) continue;
    // A number in the graph (a replaced vector, or a new record under the
    // number of a removed one) is unlinked while its old vector is there.
    values_.Unlink(id);
    if (graph_.Contains(id)) graph_.Drop(id);
    pending_.remove(id);
    side_.remove(id);
    RETURN_IF_ERROR(store_->Put(id, vectors.subspan(i * dim, dim)));
    stored.push_back(id);
  }
  return stored;
}

void VectorIndex::Link(const std::vector<std::uint32_t>& ids, std::size_t threads,
                       const std::function<void(std::size_t)>& progress) {
  if (!nav_) {
    graph_.InsertBatch(ids, threads, progress);
    values_.Link(ids, threads);
    return;
  }
  const std::size_t dim = store_->dim();
  if (phi2_ == 0 && !ids.empty()) {
    // The first records linked choose the first bound.
    std::vector<double> norms2;
    norms2.reserve(ids.size());
    for (std::uint32_t id : ids) norms2.push_back(Norm2(store_->Get(id), dim));
    phi2_ = ChooseBound(std::move(norms2));
  }
  std::vector<std::uint32_t> in_range;
  in_range.reserve(ids.size());
  for (std::uint32_t id : ids) {
    if (InRange(Norm2(store_->Get(id), dim), phi2_)) {
      // Cannot fail: the copy is finite with components in [-1, 1].
      [[maybe_unused]] const Status status = PutNav(id);
      assert(status.ok());
      in_range.push_back(id);
    } else {
      side_.add(id);
    }
  }
  graph_.InsertBatch(in_range, threads, progress);
  values_.Link(in_range, threads);
  since_rebuild_ += ids.size();
  MaybeRebuild(threads);
}

void VectorIndex::MaybeRebuild(std::size_t threads) {
  const std::uint64_t outside = side_.cardinality();
  const std::uint64_t linked = graph_.size() + outside;
  if (outside < std::max(kMinOutside, linked / 16) ||
      since_rebuild_ < std::max(kMinOutside, linked / 8)) {
    return;
  }
  since_rebuild_ = 0;  // whatever is decided, the next try waits for an eighth
  const std::size_t dim = store_->dim();
  roaring::Roaring all = side_;
  for (std::uint32_t id : store_->live()) {
    if (!pending_.contains(id)) all.add(id);
  }
  std::vector<double> norms2;
  norms2.reserve(all.cardinality());
  for (std::uint32_t id : all) norms2.push_back(Norm2(store_->Get(id), dim));
  const double bound = ChooseBound(norms2);
  std::size_t covered = 0;
  for (double n2 : norms2) covered += InRange(n2, bound) ? 1 : 0;
  if (2 * (all.cardinality() - covered) > outside) return;  // would not halve the records outside
  phi2_ = bound;
  side_ = roaring::Roaring();
  std::vector<std::uint32_t> in_range;
  in_range.reserve(covered);
  std::size_t i = 0;
  for (std::uint32_t id : all) {
    if (InRange(norms2[i++], phi2_)) {
      [[maybe_unused]] const Status status = PutNav(id);
      assert(status.ok());
      in_range.push_back(id);
    } else {
      side_.add(id);
    }
  }
  graph_ = Hnsw(nav_.get(), graph_.options());
  graph_.InsertBatch(in_range, threads);
  values_.Rebuild(Linked(), threads);
  relinked_ += in_range.size();
}

Status VectorIndex::PutBatch(std::span<const std::uint32_t> ids, std::span<const float> vectors,
                             std::size_t threads,
                             const std::function<void(std::size_t)>& progress) {
  ASSIGN_OR_RETURN(std::vector<std::uint32_t> stored, StoreBatch(ids, vectors));
  Link(stored, threads, progress);
  return Status::Ok();
}

Status VectorIndex::Stage(std::span<const std::uint32_t> ids, std::span<const float> vectors,
                          std::size_t /*threads*/) {
  ASSIGN_OR_RETURN(std::vector<std::uint32_t> stored, StoreBatch(ids, vectors));
  for (std::uint32_t id : stored) pending_.add(id);
  return Status::Ok();
}

std::size_t VectorIndex::LinkPending(std::size_t max, std::size_t threads) {
  std::vector<std::uint32_t> ids;
  for (std::uint32_t id : pending_) {
    if (ids.size() == max) break;
    ids.push_back(id);
  }
  for (std::uint32_t id : ids) pending_.remove(id);
  Link(ids, threads, {});
  return ids.size();
}

void VectorIndex::Remove(std::uint32_t id) {
  values_.Forget(id);
  if (!store_->Contains(id)) return;
  pending_.remove(id);
  side_.remove(id);
  graph_.Remove(id);  // a tombstone keeps its vector (and copy) until a repair
  store_->Remove(id);
  if (nav_) nav_->Remove(id);
}

std::string VectorIndex::Serialize() const {
  ByteWriter w;
  w.Raw(kIndexMagic, 8);
  w.Fixed(kIndexVersion, 4);
  w.Str(store_->Serialize(graph_.Tombstones()));  // searches walk through tombstones
  w.F64(phi2_);
  w.Str(graph_.Serialize());
  w.Str(values_.Serialize());
  w.Fixed(Fnv1a64(w.out), 8);
  return std::move(w.out);
}

StatusOr<VectorIndex> VectorIndex::Load(std::string_view bytes, std::uint32_t id_limit) {
  if (bytes.size() < 8 + 4 + 8 || std::memcmp(bytes.data(), kIndexMagic, 8) != 0) {
    return Status::Corruption("not a vector index image");
  }
  ByteReader check(bytes.substr(bytes.size() - 8));
  if (check.Fixed(8) != Fnv1a64(bytes.substr(0, bytes.size() - 8))) {
    return Status::Corruption("vector index image checksum mismatch");
  }
  ByteReader r(bytes.substr(8, bytes.size() - 16));
  const std::uint64_t version = r.Fixed(4);
  if (version != 2 && version != kIndexVersion) {
    return Status::Corruption("unknown vector index image version");
  }
  const std::string_view store_bytes = r.View();
  const double phi2 = r.F64();
  const std::string_view graph_bytes = r.View();
  const std::string_view values_bytes = version >= 3 ? r.View() : std::string_view();
  if (!r.ok() || r.left() != 0) return Status::Corruption("vector index image is malformed");
  ASSIGN_OR_RETURN(VectorStore store, VectorStore::Load(store_bytes, id_limit));
  auto owned = std::make_unique<VectorStore>(std::move(store));
  const roaring::Roaring stored = owned->live() | owned->retained();
  std::unique_ptr<VectorStore> nav;
  if (owned->metric() == Metric::kDot) {
    if (!(phi2 >= 0) || phi2 > std::numeric_limits<float>::max()) {
      return Status::Corruption("vector index image has a bad norm bound");
    }
    nav = MakeNav(*owned);
  } else if (phi2 != 0) {
    return Status::Corruption("vector index image has a norm bound for a metric without one");
  }
  VectorIndex index(std::move(owned), std::move(nav), phi2, Hnsw(nullptr, HnswOptions{}),
                    VectorIndexOptions{}.value_graph_min);
  VectorStore& s = *index.store_;
  if (index.nav_) {
    // The copy of every vector in range; a graph node out of range has none
    // and is refused by Hnsw::Load as a node the store does not hold.
    for (std::uint32_t id : stored) {
      if (InRange(Norm2(s.Get(id), s.dim()), phi2)) RETURN_IF_ERROR(index.PutNav(id));
    }
    for (std::uint32_t id : s.retained()) index.nav_->Remove(id);
  }
  const VectorStore* walked = index.nav_ ? index.nav_.get() : index.store_.get();
  ASSIGN_OR_RETURN(index.graph_, Hnsw::Load(graph_bytes, walked));
  if (!(index.graph_.Tombstones() == s.retained())) {
    return Status::Corruption("the graph's tombstones are not the vectors the store retained");
  }
  if (version >= 3) {
    ASSIGN_OR_RETURN(index.values_, ValueGraphs::Load(values_bytes, walked, index.graph_.options(),
                                                      id_limit, index.Linked()));
  }
  // Records not in the graph: staged when they were stored, or (dot) outside
  // the copy's range; LinkPending sorts the staged ones out.
  for (std::uint32_t id : s.live()) {
    if (index.graph_.Contains(id)) continue;
    if (index.nav_ && !InRange(Norm2(s.Get(id), s.dim()), phi2)) {
      index.side_.add(id);
    } else {
      index.pending_.add(id);
    }
  }
  return index;
}

}  // namespace engram::vector
