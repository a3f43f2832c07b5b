// ValueGraphs: keys, their record sets and their graphs. A graph numbers its
// nodes locally (0, 1, ... reused through a free list) so that its node
// arrays are as long as its key's records, not the collection's; `docs`
// maps a node to its record, `local` back. The image (version 1):
//   "ENGRMVGR" u32 version, varint min_records, varint key count, per key:
//   str name, varint record count, count x varint gap (ascending records,
//   first gap from -1), u8 has graph; with a graph: varint nodes, per node
//   varint record + 1 (0: a free node), str Hnsw image; then u64 FNV-1a.
#include "vector/value_graphs.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

#include <fmt/core.h>

#include "base/bytes.h"
#include "base/status.h"
#include "vector/exact/exact_search.h"

namespace engram::vector {
namespace {

constexpr char kValueGraphsMagic[8] = {'E', 'N', 'G', 'R', 'M', 'V', 'G', 'R'};
constexpr std::uint32_t kValueGraphsVersion = 1;
constexpr std::uint32_t kFree = UINT32_MAX;
// A scan of a graph's 8-bit copy measures again with the floats this many
// times k of its best (CodedSearch).
constexpr std::size_t kRerank = 4;

// `filter` seen from a graph's nodes (`docs`: node to record).
DocFilter ThroughNodes(const DocFilter& filter, const std::vector<std::uint32_t>& docs) {
  DocFilter through = filter;
  through.docs = docs.data();
  return through;
}

}  // namespace

struct ValueGraphs::Graph {
  Graph(const VectorStore& walk, const HnswOptions& options)
      : store(walk.dim(), walk.metric()), hnsw(&store, options) {
    if (walk.codes() != nullptr) store.EnableCodes();
  }
  VectorStore store;  // the members' walk vectors, by node number
  Hnsw hnsw;
  std::vector<std::uint32_t> docs;                         // node -> record (kFree: none)
  std::unordered_map<std::uint32_t, std::uint32_t> local;  // record -> node
  std::vector<std::uint32_t> free;                         // node numbers to reuse
  // The members' vectors summed, and their squared norms: their centre and
  // spread (ValueGraphs::Estimate).
  std::vector<double> sum = std::vector<double>(store.dim(), 0.0);
  double squares = 0;

  void Count(const float* v, double sign) {
    for (std::size_t i = 0; i < sum.size(); ++i) {
      sum[i] += sign * v[i];
      squares += sign * double{v[i]} * v[i];
    }
  }
  std::size_t MemoryBytes() const {
    return store.MemoryBytes() + hnsw.MemoryBytes() + docs.capacity() * 4 + local.size() * 32 +
           free.capacity() * 4 + sum.capacity() * 8;
  }
};

struct ValueGraphs::Key {
  std::string name;
  roaring::Roaring records;
  std::unique_ptr<Graph> graph;
  roaring::Roaring outside;  // linked, not in the graph (kMaxGraphsPerRecord)
};

std::size_t ValueGraphs::GraphsOf(std::uint32_t doc) const {
  std::size_t n = 0;
  if (doc >= doc_keys_.size()) return 0;
  for (std::uint32_t index : doc_keys_[doc]) {
    const Key& key = *keys_[index];
    n += key.graph && key.graph->local.count(doc) != 0 ? 1 : 0;
  }
  return n;
}

ValueGraphs::ValueGraphs(const VectorStore* walk, HnswOptions hnsw, std::size_t min_records)
    : walk_(walk), hnsw_(hnsw), min_records_(std::max<std::size_t>(min_records, 2)) {}
ValueGraphs::ValueGraphs(ValueGraphs&&) noexcept = default;
ValueGraphs& ValueGraphs::operator=(ValueGraphs&&) noexcept = default;
ValueGraphs::~ValueGraphs() = default;

ValueGraphs::Key& ValueGraphs::KeyNamed(const std::string& name) {
  auto [it, added] = by_name_.try_emplace(name, 0);
  if (!added) return *keys_[it->second];
  std::uint32_t index;
  if (!free_keys_.empty()) {
    index = free_keys_.back();
    free_keys_.pop_back();
  } else {
    index = static_cast<std::uint32_t>(keys_.size());
    keys_.emplace_back();
  }
  keys_[index] = std::make_unique<Key>();
  keys_[index]->name = name;
  it->second = index;
  return *keys_[index];
}

void ValueGraphs::ReleaseKey(std::uint32_t index) {
  by_name_.erase(keys_[index]->name);
  if (keys_[index]->graph) --graph_count_;
  keys_[index].reset();
  free_keys_.push_back(index);
}

// Gives record `doc` a node in key's graph with its walk vector, unless it
// is there or in kMaxGraphsPerRecord graphs already; the node (kFree: none)
// is linked by the caller.
std::uint32_t ValueGraphs::AddNode(Key& key, std::uint32_t doc) {
  Graph& g = *key.graph;
  if (g.local.count(doc) != 0) return kFree;
  if (GraphsOf(doc) >= kMaxGraphsPerRecord) {
    key.outside.add(doc);
    return kFree;
  }
  std::uint32_t node;
  if (!g.free.empty()) {
    node = g.free.back();
    g.free.pop_back();
  } else {
    node = static_cast<std::uint32_t>(g.docs.size());
    g.docs.push_back(kFree);
  }
  // Cannot fail: the walk store accepted the same vector.
  [[maybe_unused]] const Status put =
      g.store.Put(node, std::span<const float>(walk_->Get(doc), walk_->dim()));
  g.docs[node] = doc;
  g.local.emplace(doc, node);
  g.Count(walk_->Get(doc), 1);
  return node;
}

void ValueGraphs::Join(Key& key, std::uint32_t doc) {
  if (!key.graph) return;
  const std::uint32_t node = AddNode(key, doc);
  if (node != kFree) key.graph->hnsw.Insert(node);
}

void ValueGraphs::Leave(Key& key, std::uint32_t doc) {
  key.outside.remove(doc);
  if (!key.graph) return;
  Graph& g = *key.graph;
  const auto it = g.local.find(doc);
  if (it == g.local.end()) return;
  const std::uint32_t node = it->second;
  g.hnsw.Drop(node);  // needs the node's vector: removed after
  g.Count(g.store.Get(node), -1);
  g.store.Remove(node);
  g.docs[node] = kFree;
  g.free.push_back(node);
  g.local.erase(it);
}

void ValueGraphs::BuildGraph(Key& key, const Linked& linked, std::size_t threads) {
  if (!key.graph) ++graph_count_;
  key.graph = std::make_unique<Graph>(*walk_, hnsw_);
  key.outside = roaring::Roaring();
  std::vector<std::uint32_t> nodes;
  for (std::uint32_t doc : key.records) {
    if (!linked(doc)) continue;
    const std::uint32_t node = AddNode(key, doc);
    if (node != kFree) nodes.push_back(node);
  }
  key.graph->hnsw.InsertBatch(nodes, threads);
}

Status ValueGraphs::SetKeys(std::uint32_t doc, std::span<const std::string> keys,
                            const Linked& linked) {
  if (keys.size() > kMaxKeysPerRecord) {
    return Status::InvalidArgument(fmt::format("{} graph keys, more than the {} a record may carry",
                                               keys.size(), kMaxKeysPerRecord));
  }
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (keys[i].size() > kMaxKeyBytes) {
      return Status::InvalidArgument(
          fmt::format("graph key {} is {} bytes, more than {}", i, keys[i].size(), kMaxKeyBytes));
    }
  }
  if (doc == UINT32_MAX) return Status::InvalidArgument("record number 4294967295 is reserved");
  std::vector<std::uint32_t> next;
  next.reserve(keys.size());
  for (const std::string& name : keys) {
    KeyNamed(name);
    next.push_back(by_name_.at(name));
  }
  std::sort(next.begin(), next.end());
  next.erase(std::unique(next.begin(), next.end()), next.end());
  if (doc >= doc_keys_.size()) {
    if (next.empty()) return Status::Ok();
    doc_keys_.resize(std::size_t{doc} + 1);
  }
  std::vector<std::uint32_t>& held = doc_keys_[doc];
  for (std::uint32_t index : held) {
    if (std::binary_search(next.begin(), next.end(), index)) continue;
    Key& key = *keys_[index];
    Leave(key, doc);
    key.records.remove(doc);
    if (key.graph && key.records.cardinality() < min_records_ / 2) {
      key.graph.reset();
      key.outside = roaring::Roaring();
      --graph_count_;
    }
    if (key.records.isEmpty()) ReleaseKey(index);
  }
  const bool in_graph = linked(doc);
  for (std::uint32_t index : next) {
    if (std::binary_search(held.begin(), held.end(), index)) continue;
    Key& key = *keys_[index];
    key.records.add(doc);
    if (key.graph) {
      if (in_graph) Join(key, doc);
    } else if (key.records.cardinality() >= min_records_) {
      BuildGraph(key, linked, 1);
    }
  }
  held = std::move(next);
  return Status::Ok();
}

void ValueGraphs::Link(std::span<const std::uint32_t> docs, std::size_t threads) {
  // Nodes first, per key; then each key's graph links its new nodes on
  // `threads` threads.
  std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> added;  // key -> nodes
  for (std::uint32_t doc : docs) {
    if (doc >= doc_keys_.size()) continue;
    for (std::uint32_t index : doc_keys_[doc]) {
      Key& key = *keys_[index];
      if (!key.graph) continue;
      const std::uint32_t node = AddNode(key, doc);
      if (node != kFree) added[index].push_back(node);
    }
  }
  for (auto& [index, nodes] : added) keys_[index]->graph->hnsw.InsertBatch(nodes, threads);
}

void ValueGraphs::Unlink(std::uint32_t doc) {
  if (doc >= doc_keys_.size()) return;
  for (std::uint32_t index : doc_keys_[doc]) Leave(*keys_[index], doc);
}

void ValueGraphs::Forget(std::uint32_t doc) {
  if (doc >= doc_keys_.size() || doc_keys_[doc].empty()) return;
  [[maybe_unused]] const Status status = SetKeys(doc, {}, [](std::uint32_t) { return false; });
}

void ValueGraphs::Rebuild(const Linked& linked, std::size_t threads) {
  for (const std::unique_ptr<Key>& key : keys_) {
    if (key && key->graph) BuildGraph(*key, linked, threads);
  }
}

std::optional<ValueGraphs::KeyView> ValueGraphs::Find(std::string_view key) const {
  const auto it = by_name_.find(key);
  if (it == by_name_.end()) return std::nullopt;
  const Key& k = *keys_[it->second];
  return KeyView{it->second, &k.records, k.graph ? &k.outside : nullptr};
}

const roaring::Roaring* ValueGraphs::RecordsOf(std::string_view key) const {
  const std::optional<KeyView> view = Find(key);
  return view ? view->records : nullptr;
}

bool ValueGraphs::HasGraph(std::string_view key) const {
  const std::optional<KeyView> view = Find(key);
  return view && view->outside != nullptr;
}

std::vector<Neighbor> ValueGraphs::Search(const KeyView& key, const float* walk_query,
                                          std::size_t k, const HnswSearchParams& params,
                                          const DocFilter* doc_filter,
                                          HnswSearchStats* stats) const {
  const Graph* g = keys_[key.index]->graph.get();
  if (g == nullptr) return {};
  HnswSearchParams p = params;
  DocFilter filter;
  if (doc_filter != nullptr) {
    filter = ThroughNodes(*doc_filter, g->docs);
    p.by_doc = &filter;
  }
  std::vector<Neighbor> hits = g->hnsw.Search(walk_query, k, p, nullptr, stats);
  for (Neighbor& h : hits) h.id = g->docs[h.id];
  return hits;
}

std::vector<Neighbor> ValueGraphs::Scan(const KeyView& key, const float* walk_query, std::size_t k,
                                        const DocFilter* doc_filter, const Deadline* deadline,
                                        bool floats, std::size_t* measured) const {
  const Graph* g = keys_[key.index]->graph.get();
  if (g == nullptr) return {};
  const DocFilter filter = doc_filter != nullptr ? ThroughNodes(*doc_filter, g->docs) : DocFilter{};
  const DocFilter* by_doc = doc_filter != nullptr ? &filter : nullptr;
  std::vector<Neighbor> hits =
      g->store.codes() != nullptr && !floats
          ? CodedSearch(g->store, walk_query, k, kRerank, nullptr, deadline, by_doc, measured)
          : ExactSearch(g->store, walk_query, k, nullptr, deadline, by_doc, measured);
  for (Neighbor& h : hits) h.id = g->docs[h.id];
  return hits;
}

void ValueGraphs::EnableCodes() {
  for (const std::unique_ptr<Key>& key : keys_) {
    if (key && key->graph) key->graph->store.EnableCodes();
  }
}

double ValueGraphs::Estimate(const KeyView& key, const float* walk_query) const {
  const Graph* g = keys_[key.index]->graph.get();
  const double n = g == nullptr ? 0 : static_cast<double>(g->local.size());
  if (n == 0) return std::numeric_limits<double>::infinity();
  // Squared: the query's distance to the centre, and the members' mean
  // distance from it.
  double qq = 0, qs = 0, ss = 0;
  for (std::size_t i = 0; i < g->sum.size(); ++i) {
    qq += double{walk_query[i]} * walk_query[i];
    qs += walk_query[i] * g->sum[i];
    ss += g->sum[i] * g->sum[i];
  }
  const double centre = std::max(0.0, qq - 2 * qs / n + ss / (n * n));
  const double spread = std::max(0.0, g->squares / n - ss / (n * n));
  // The nearest of n points spread as a Gaussian of that variance around
  // the centre lies about sqrt(2 ln n) deviations of the spread along the
  // query's direction (its share 1/dim of the variance) nearer.
  const double along = std::sqrt(spread / static_cast<double>(g->sum.size()));
  const double reach = std::sqrt(2 * std::log(std::max(n, 2.0))) * along;
  const double nearest = centre + spread - 2 * std::sqrt(centre) * reach;
  // In the store's distance: cosine's 1 - dot is half the squared distance
  // of unit vectors; l2 (and dot's Euclidean walk copy) the squared one.
  return g->store.metric() == Metric::kCosine ? nearest / 2 : nearest;
}

std::size_t ValueGraphs::MemoryBytes() const {
  std::size_t bytes = doc_keys_.capacity() * sizeof(doc_keys_[0]) + by_name_.size() * 64;
  for (const auto& held : doc_keys_) bytes += held.capacity() * 4;
  for (const std::unique_ptr<Key>& key : keys_) {
    if (!key) continue;
    bytes += sizeof(Key) + key->name.capacity() + key->records.getSizeInBytes();
    if (key->graph) bytes += key->graph->MemoryBytes();
  }
  return bytes;
}

std::string ValueGraphs::Serialize() const {
  ByteWriter w;
  w.Raw(kValueGraphsMagic, 8);
  w.Fixed(kValueGraphsVersion, 4);
  w.Var(min_records_);
  w.Var(by_name_.size());
  for (const std::unique_ptr<Key>& key : keys_) {
    if (!key) continue;
    w.Str(key->name);
    w.Var(key->records.cardinality());
    std::int64_t last = -1;
    for (std::uint32_t doc : key->records) {
      w.Var(static_cast<std::uint64_t>(std::int64_t{doc} - last));
      last = doc;
    }
    w.U8(key->graph ? 1 : 0);
    if (!key->graph) continue;
    const Graph& g = *key->graph;
    w.Var(g.docs.size());
    for (std::uint32_t doc : g.docs) w.Var(doc == kFree ? 0 : std::uint64_t{doc} + 1);
    w.Str(g.hnsw.Serialize());
  }
  w.Fixed(Fnv1a64(w.out), 8);
  return std::move(w.out);
}

StatusOr<ValueGraphs> ValueGraphs::Load(std::string_view bytes, const VectorStore* walk,
                                        HnswOptions hnsw, std::uint32_t id_limit,
                                        const Linked& linked) {
  auto fail = [](std::string_view why) {
    return Status::Corruption(fmt::format("value graphs image: {}", why));
  };
  ByteReader r({});
  if (std::optional<std::string> why =
          OpenImage(bytes, kValueGraphsMagic, kValueGraphsVersion, "value graphs", &r)) {
    return fail(*why);
  }
  const std::size_t min_records = r.Var(UINT32_MAX);
  ValueGraphs out(walk, hnsw, min_records);
  if (!r.ok() || out.min_records_ != min_records) return fail("bad min_records");
  const std::size_t count = r.Count(2);
  if (!r.ok()) return fail("bad key count");
  std::unordered_map<std::uint32_t, std::size_t> graph_count;  // record -> graphs
  for (std::size_t i = 0; i < count; ++i) {
    const std::string name = r.Str();
    if (!r.ok() || name.size() > kMaxKeyBytes) return fail("bad key name");
    if (out.by_name_.count(name) != 0) return fail("a key named twice");
    Key& key = out.KeyNamed(name);
    const std::uint32_t index = out.by_name_.at(name);
    const std::size_t records = r.Count(1);
    if (!r.ok() || records == 0) return fail("bad record count");
    std::int64_t last = -1;
    for (std::size_t j = 0; j < records; ++j) {
      const std::uint64_t gap = r.Var(id_limit);
      const std::int64_t doc = last + static_cast<std::int64_t>(gap);
      if (!r.ok() || gap == 0 || doc >= std::int64_t{id_limit}) return fail("bad record");
      last = doc;
      key.records.add(static_cast<std::uint32_t>(doc));
      const auto d = static_cast<std::size_t>(doc);
      if (d >= out.doc_keys_.size()) out.doc_keys_.resize(d + 1);
      if (out.doc_keys_[d].size() == kMaxKeysPerRecord) return fail("too many keys on a record");
      out.doc_keys_[d].push_back(index);
    }
    const std::uint8_t has_graph = r.U8();
    if (!r.ok() || has_graph > 1) return fail("bad graph flag");
    if (has_graph == 0) continue;
    key.graph = std::make_unique<Graph>(*walk, hnsw);
    ++out.graph_count_;
    Graph& g = *key.graph;
    const std::size_t nodes = r.Count(1);
    if (!r.ok()) return fail("bad node count");
    g.docs.resize(nodes, kFree);
    for (std::uint32_t node = 0; node < nodes; ++node) {
      const std::uint64_t doc = r.Var(id_limit);
      if (!r.ok()) return fail("bad node record");
      if (doc == 0) {
        g.free.push_back(node);
        continue;
      }
      const auto d = static_cast<std::uint32_t>(doc - 1);
      if (!key.records.contains(d) || !linked(d) || !g.local.emplace(d, node).second) {
        return fail("a node names a record that is not linked in its key");
      }
      if (++graph_count[d] > kMaxGraphsPerRecord) return fail("a record in too many graphs");
      g.docs[node] = d;
      if (!g.store.Put(node, std::span<const float>(walk->Get(d), walk->dim())).ok()) {
        return fail("a node's vector is not valid");
      }
      g.Count(walk->Get(d), 1);
    }
    std::string_view graph_bytes = r.View();
    if (!r.ok()) return fail("bad graph");
    ASSIGN_OR_RETURN(Hnsw loaded, Hnsw::Load(graph_bytes, &g.store));
    // Every used node is linked and live, every free one absent: value
    // graphs hold no tombstones.
    if (loaded.tombstones() != 0 || loaded.size() != g.local.size()) {
      return fail("graph nodes do not match the node map");
    }
    for (std::uint32_t node = 0; node < nodes; ++node) {
      if (loaded.Contains(node) != (g.docs[node] != kFree)) {
        return fail("graph nodes do not match the node map");
      }
    }
    g.hnsw = std::move(loaded);
    for (std::uint32_t doc : key.records) {
      if (g.local.count(doc) == 0 && linked(doc)) key.outside.add(doc);
    }
  }
  if (!r.ok() || r.left() != 0) return fail("trailing bytes");
  return out;
}

}  // namespace engram::vector
