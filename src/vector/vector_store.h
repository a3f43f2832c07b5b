// VectorStore: the vectors of one collection in one contiguous float32 array
// indexed by record number, with the set of live record numbers. Both the
// exact scan and the HNSW graph read vectors from here; the graph stores only
// links. The array is dense up to the largest number stored, so callers keep
// numbers dense by reusing them: a number may be put again after Remove.
// Not thread-safe for writes; concurrent const use is safe.
#ifndef ENGRAM_VECTOR_VECTOR_STORE_H_
#define ENGRAM_VECTOR_VECTOR_STORE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/roaring.h"
#include "engram/status.h"
#include "vector/distance/distance.h"
#include "vector/metric.h"
#include "vector/neighbor.h"
#include "vector/quantize/sq8.h"

namespace engram::vector {

class VectorStore {
 public:
  // dim in [1, kMaxDim + 1] (collections have at most kMaxDim; the dot
  // metric's Euclidean copy in VectorIndex has one more).
  VectorStore(std::size_t dim, Metric metric);

  static constexpr std::size_t kMaxDim = 4096;
  // The largest component magnitude accepted: with it no distance of any
  // metric can overflow to inf or NaN (4096 * (2e15)^2 < FLT_MAX), so every
  // distance orders.
  static constexpr float kMaxComponent = 1e15f;

  // Stores (or replaces) the vector of record `id`. InvalidArgument when the
  // size is not dim, a component is not finite or exceeds kMaxComponent in
  // magnitude, (cosine) the vector is zero, or id is UINT32_MAX; the message
  // names the offending component index. Cosine vectors are stored normalised.
  Status Put(std::uint32_t id, std::span<const float> vector);
  // What Put would say of `vector`, without storing it.
  Status Validate(std::span<const float> vector) const;
  // Forgets record `id` (no-op when absent). Its slot keeps its bytes until
  // the number is put again (a graph may still walk through a removed
  // record), but images leave them out unless asked to retain them.
  void Remove(std::uint32_t id);
  bool Contains(std::uint32_t id) const { return live_.contains(id); }

  // A query in the stored form (validated as Put does; normalised for cosine).
  StatusOr<std::vector<float>> PrepareQuery(std::span<const float> query) const;

  // The stored vector of a live (or once-stored) record; id < limit().
  const float* Get(std::uint32_t id) const { return data_.data() + std::size_t{id} * dim_; }
  // Internal distance (metric.h) from a prepared query to record `id`.
  float Distance(const float* prepared_query, std::uint32_t id) const {
    return distance_(prepared_query, Get(id), dim_);
  }
  DistanceFn distance_fn() const { return distance_; }
  // Measures `best` (records stored here, ranked by an approximate
  // distance such as the 8-bit copy's) again from the floats, with their
  // vectors fetched together first, and keeps the nearest k in Neighbor
  // order.
  void Rerank(const float* prepared_query, std::size_t k, std::vector<Neighbor>* best) const;

  // Keeps an 8-bit copy of every stored vector (quantize/sq8.h) from now on,
  // for walks that read a quarter of the bytes: dim + 16 bytes (rounded up
  // to 16) per record number. Not part of the image: it is derived.
  void EnableCodes();
  // The 8-bit copy; null unless EnableCodes was called.
  const Sq8Codes* codes() const { return codes_ ? &*codes_ : nullptr; }

  std::size_t dim() const { return dim_; }
  Metric metric() const { return metric_; }
  std::size_t size() const { return live_.cardinality(); }
  // One past the largest record number ever stored.
  std::uint32_t limit() const { return limit_; }
  const roaring::Roaring& live() const { return live_; }
  // Bytes held by the vectors (for memory-per-vector reports).
  std::size_t MemoryBytes() const;

  // A versioned, checksummed byte image (dim, metric, the live vectors and
  // those of `retained`: removed records whose vectors a graph still walks;
  // ids there that are live or at or past limit() are ignored).
  std::string Serialize(const roaring::Roaring& retained = {}) const;
  // Corruption for bytes that are not such an image (truncated, corrupt,
  // inconsistent, version 1: the caller rebuilds), or that name a record
  // >= id_limit (the caller's bound on its record numbers); never UB.
  // Allocates the image's vectors (as many bytes as the image holds) and
  // dim x 4 bytes per record number below the largest it names.
  static StatusOr<VectorStore> Load(std::string_view bytes, std::uint32_t id_limit);
  // The removed records a loaded image retained (empty otherwise).
  const roaring::Roaring& retained() const { return retained_; }

 private:
  std::size_t dim_;
  Metric metric_;
  DistanceFn distance_;
  std::uint32_t limit_ = 0;
  std::vector<float> data_;
  roaring::Roaring live_;
  roaring::Roaring retained_;  // set by Load; Put of one of them clears it
  std::optional<Sq8Codes> codes_;
};

}  // namespace engram::vector

#endif  // ENGRAM_VECTOR_VECTOR_STORE_H_
