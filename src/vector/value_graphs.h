// ValueGraphs: a navigable graph per frequent filter value, so that a vector
// search filtered on that value walks a graph of the value's records instead
// of scanning them or walking a main graph where they are scattered (issue
// 21 item 3; the per-value sub-graphs of SIEVE, Li et al., VLDB 2025, and the
// per-payload-value links of Qdrant). A record carries keys: opaque strings,
// each naming one value of one field (the engine's CollectionSpec::graph_fields).
// A key with at least `min_records` records gets its own HNSW graph over a
// copy of their walk vectors (VectorIndex's graph space: the vectors, or the
// dot metric's Euclidean copy), numbered locally with a map to record
// numbers; a key that falls below half that loses it. Smaller keys keep only
// their record set, which a search scans exactly.
//
// A record is in its keys' graphs while it is linked in the main graph
// (VectorIndex tells: Link, Unlink); a record leaving is dropped from them at
// once (Hnsw::Drop), so value graphs hold no tombstones and every node is a
// linked record. Writers only call the mutators; Search is const and safe
// concurrently with other Searches.
#ifndef ENGRAM_VECTOR_VALUE_GRAPHS_H_
#define ENGRAM_VECTOR_VALUE_GRAPHS_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/deadline.h"
#include "base/roaring.h"
#include "engram/status.h"
#include "vector/hnsw/hnsw.h"
#include "vector/neighbor.h"
#include "vector/vector_store.h"

namespace engram::vector {

// Limits on what a record may carry and on images. A record is in at most
// kMaxGraphsPerRecord graphs (each holds a copy of its vector): in the
// graphs of further keys it is "outside", and a search scans it exactly.
inline constexpr std::size_t kMaxKeysPerRecord = 256;
inline constexpr std::size_t kMaxKeyBytes = 4096;
inline constexpr std::size_t kMaxGraphsPerRecord = 8;

class ValueGraphs {
 public:
  // `walk`: the store the main graph walks (outlives this).
  ValueGraphs(const VectorStore* walk, HnswOptions hnsw, std::size_t min_records);
  ValueGraphs(ValueGraphs&&) noexcept;
  ValueGraphs& operator=(ValueGraphs&&) noexcept;
  ~ValueGraphs();

  std::size_t min_records() const { return min_records_; }

  // Whether a record is in the main graph now (its walk vector final).
  using Linked = std::function<bool(std::uint32_t)>;

  // Record `doc` now carries `keys` (replacing what it carried; empty:
  // none); it is in the graphs of those that have one if linked(doc). A key
  // that reaches min_records gets its graph, of its linked records.
  // InvalidArgument past kMaxKeysPerRecord or kMaxKeyBytes.
  Status SetKeys(std::uint32_t doc, std::span<const std::string> keys, const Linked& linked);
  // Records `docs` were linked into the main graph: they join their keys'
  // graphs (each graph links its new nodes on `threads` threads).
  void Link(std::span<const std::uint32_t> docs, std::size_t threads);
  // Record `doc` left the main graph (its vector is being replaced, or it is
  // outside the dot copy's range): it leaves its keys' graphs, keeping its keys.
  void Unlink(std::uint32_t doc);
  // Record `doc` is gone: it leaves its keys and their graphs.
  void Forget(std::uint32_t doc);
  // Every walk vector changed (the dot copy's bound): each graph is built
  // again from the records of its key for which `linked` holds.
  void Rebuild(const Linked& linked, std::size_t threads);

  // One key as a search sees it, valid until the next write.
  struct KeyView {
    std::uint32_t index = 0;
    const roaring::Roaring* records = nullptr;  // the records carrying it
    // With a graph: its linked records that the graph does not hold
    // (kMaxGraphsPerRecord), scanned instead. Null: no graph.
    const roaring::Roaring* outside = nullptr;
    bool has_graph() const { return outside != nullptr; }
  };
  // nullopt when no record carries `key`.
  std::optional<KeyView> Find(std::string_view key) const;
  const roaring::Roaring* RecordsOf(std::string_view key) const;  // nullptr: none
  bool HasGraph(std::string_view key) const;

  // The best k of the key's graph (none without one) for a query in walk
  // form (nearest first, record numbers, walk distances): allowed are the
  // records whose bit is set in `doc_filter` (nullptr: every record of the
  // key).
  std::vector<Neighbor> Search(const KeyView& key, const float* walk_query, std::size_t k,
                               const HnswSearchParams& params, const DocFilter* doc_filter,
                               HnswSearchStats* stats) const;
  // The same best k by a scan of the graph's copy of the vectors
  // (contiguous, so cheaper than a walk over a small graph): exact, or with
  // codes (EnableCodes) a scan of the 8-bit copy whose best are measured
  // again with the floats (CodedSearch) unless `floats`. Allowed are the
  // records whose bit is set in `doc_filter` (nullptr: every record of the
  // key), each tested as the scan reaches it. Stops with what it has when
  // `deadline` passes. `measured` (optional) gets the distances computed.
  std::vector<Neighbor> Scan(const KeyView& key, const float* walk_query, std::size_t k,
                             const DocFilter* doc_filter, const Deadline* deadline,
                             bool floats = false, std::size_t* measured = nullptr) const;
  // An estimate of the distance (the walk store's) from the query (walk
  // form) to the nearest record of the key's graph, from its members' centre
  // and spread (one pass over `dim` sums; infinity without a graph): the
  // order in which a search over many keys visits them.
  double Estimate(const KeyView& key, const float* walk_query) const;

  // Every graph keeps an 8-bit copy of its vectors from now on (as the walk
  // store does: a graph made later keeps one when the walk store has one):
  // its walks and scans read the codes and re-rank with the floats.
  void EnableCodes();

  std::size_t keys() const { return by_name_.size(); }
  std::size_t graphs() const { return graph_count_; }
  // Bytes held: the graphs' vectors and links, the record sets, the maps.
  std::size_t MemoryBytes() const;

  // A checksummed image: min_records, each key's name and records, and each
  // graph's local-to-record map and links (its vectors are copied from the
  // walk store on Load).
  std::string Serialize() const;
  // Corruption for bytes that are not such an image, or whose graphs name
  // records that are not linked (ids >= id_limit included), or a record in
  // more than kMaxGraphsPerRecord graphs. Allocates the record sets, 24
  // bytes per record number below the largest named, and per graph node its
  // vector (copied from `walk`) and links (Hnsw::Load): at most
  // kMaxGraphsPerRecord nodes per record.
  static StatusOr<ValueGraphs> Load(std::string_view bytes, const VectorStore* walk,
                                    HnswOptions hnsw, std::uint32_t id_limit, const Linked& linked);

 private:
  struct Graph;
  struct Key;
  Key& KeyNamed(const std::string& name);
  std::uint32_t AddNode(Key& key, std::uint32_t doc);
  void Join(Key& key, std::uint32_t doc);
  void Leave(Key& key, std::uint32_t doc);
  void BuildGraph(Key& key, const Linked& linked, std::size_t threads);
  void ReleaseKey(std::uint32_t index);
  // The graphs record `doc` is in.
  std::size_t GraphsOf(std::uint32_t doc) const;

  const VectorStore* walk_;
  HnswOptions hnsw_;
  std::size_t min_records_;
  std::vector<std::unique_ptr<Key>> keys_;  // by key number; null: free
  std::size_t graph_count_ = 0;             // keys with a graph
  std::vector<std::uint32_t> free_keys_;
  // Looked up by string_view without a copy.
  struct NameHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, std::uint32_t, NameHash, std::equal_to<>> by_name_;
  // Per record number: its key numbers (empty: none).
  std::vector<std::vector<std::uint32_t>> doc_keys_;
};

}  // namespace engram::vector

#endif  // ENGRAM_VECTOR_VALUE_GRAPHS_H_
