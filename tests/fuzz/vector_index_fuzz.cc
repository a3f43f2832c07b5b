// libFuzzer target for VectorIndex::Load (src/vector/vector_index.cc): the
// whole vector snapshot the engine stores, a header around a store image,
// the dot copy's norm bound, a graph image and the value graphs' image. The checksums of the inner
// images and of the whole are recomputed first (where the header parses), so
// that mutations reach the structural checks. Invariants: never crashes,
// hangs or leaks; Load allocates at most kPerByte bytes per input byte plus
// its documented bytes per record number below kIdLimit (alloc_budget.h); a
// loaded index serialises to an image that loads to itself; every plan
// returns min(k, allowed) live allowed records in order; and the index takes
// writes (a number reused, a removal, a staged record) and still round-trips.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "alloc_budget.h"
#include "base/bytes.h"
#include "base/roaring.h"
#include "vector/vector_index.h"

namespace {

using engram::vector::Neighbor;
using engram::vector::VectorIndex;
using engram::vector::VectorPlan;
using engram::vector::VectorSearchOptions;

constexpr std::uint32_t kIdLimit = 64;
constexpr std::size_t kPerByte = 64;
// Per record number: the vector and the dot copy (dim <= 4096), the graph's
// (2M + 1) x 4 link bytes, 2M stamps and a few flags (M <= 256); and as
// much again in each of the kMaxGraphsPerRecord value graphs it may be in,
// with a node number each way and its keys.
constexpr std::size_t kPerNode = 4097 * 4 + 513 * 4 + 512 + 16;
constexpr std::size_t kPerId =
    2 * kPerNode + engram::vector::kMaxGraphsPerRecord * (kPerNode + 48) + 24;
constexpr std::size_t kSlack = 256 * 1024;

void Seal(char* begin, std::size_t n) {
  if (n < 16) return;
  const std::uint64_t h = engram::Fnv1a64(std::string_view(begin, n - 8));
  for (int i = 0; i < 8; ++i) begin[n - 8 + i] = static_cast<char>(h >> (8 * i));
}

// Recomputes the inner images' checksums (where the header parses) and the
// whole image's.
void SealAll(std::string& bytes) {
  if (bytes.size() < 20) return;
  engram::ByteReader r(std::string_view(bytes).substr(12, bytes.size() - 20));
  const std::string_view store = r.View();
  r.F64();
  const std::string_view graph = r.View();
  const std::string_view values = r.View();
  if (r.ok()) {
    for (std::string_view part : {store, graph, values}) {
      Seal(bytes.data() + (part.data() - bytes.data()), part.size());
    }
  }
  Seal(bytes.data(), bytes.size());
}

void CheckHits(const VectorIndex& index, const std::vector<Neighbor>& hits, std::size_t k,
               const roaring::Roaring* allowed) {
  const std::size_t eligible =
      allowed == nullptr ? index.size() : allowed->and_cardinality(index.store().live());
  if (hits.size() != std::min(k, eligible)) std::abort();
  for (std::size_t i = 0; i < hits.size(); ++i) {
    if (!index.store().Contains(hits[i].id)) std::abort();
    if (allowed != nullptr && !allowed->contains(hits[i].id)) std::abort();
    if (i > 0 && !(hits[i - 1] < hits[i])) std::abort();
  }
}

void Search(const VectorIndex& index, const std::vector<float>& q) {
  roaring::Roaring odd;
  for (std::uint32_t id = 1; id < kIdLimit; id += 2) odd.add(id);
  const roaring::Roaring* const none = nullptr;
  for (const roaring::Roaring* allowed : {none, static_cast<const roaring::Roaring*>(&odd)}) {
    for (VectorPlan plan : {VectorPlan::kExact, VectorPlan::kGraph, VectorPlan::kGraphTwoHop}) {
      VectorSearchOptions o;
      o.k = 5;
      o.plan = plan;
      auto hits = index.Search(q, o, allowed);
      if (!hits.ok()) std::abort();
      // A forced graph plan may come back short on a sparse graph; the
      // planner's own choice never does.
      if (plan == VectorPlan::kExact) CheckHits(index, *hits, 5, allowed);
    }
    auto planned = index.Search(q, VectorSearchOptions{}, allowed);
    if (!planned.ok()) std::abort();
    CheckHits(index, *planned, 10, allowed);
  }
  // Value graphs: the keys "a" and "b" cover every record; a cover search
  // (forced or planned) returns only allowed live records, the planner's
  // all it should.
  const std::vector<std::string> cover = {"a", "b"};
  roaring::Roaring keyed;
  for (const std::string& key : cover) {
    if (const roaring::Roaring* r = index.values().RecordsOf(key)) keyed |= *r;
  }
  for (bool forced : {true, false}) {
    VectorSearchOptions o;
    o.k = 5;
    o.cover = &cover;
    if (forced) o.plan = VectorPlan::kValueGraphs;
    auto hits = index.Search(q, o, &keyed);
    if (!hits.ok()) std::abort();
    if (!forced) CheckHits(index, *hits, 5, &keyed);
    for (const Neighbor& n : *hits) {
      if (!keyed.contains(n.id) || !index.store().Contains(n.id)) std::abort();
    }
  }
}

void RoundTrip(const VectorIndex& index) {
  const std::string image = index.Serialize();
  engram::StatusOr<VectorIndex> again = VectorIndex::Load(image, kIdLimit);
  if (!again.ok() || again->Serialize() != image || again->size() != index.size()) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  SealAll(bytes);
  engram::StatusOr<VectorIndex> loaded =
      engram::fuzz::LoadWithin(kPerByte * size + kPerId * kIdLimit + kSlack, "VectorIndex::Load",
                               [&] { return VectorIndex::Load(bytes, kIdLimit); });
  if (!loaded.ok()) return 0;
  VectorIndex& index = *loaded;
  if (index.graph().size() + index.pending() + index.outside() != index.size()) std::abort();
  RoundTrip(index);
  const std::size_t dim = index.store().dim();
  std::vector<float> q(dim);
  for (std::size_t i = 0; i < dim; ++i) q[i] = 1.0f + static_cast<float>(i % 3);
  Search(index, q);

  // Writes: a live number and a free one take new vectors, one is removed,
  // one is staged and linked.
  std::vector<float> v(q);
  v[0] = -2;
  if (index.size() > 0) {
    const std::uint32_t live = index.store().live().minimum();
    if (!index.Put(live, v).ok()) std::abort();
    index.Remove(index.store().live().maximum());
  }
  std::uint32_t free_id = 0;
  while (free_id < kIdLimit - 1 && index.store().Contains(free_id)) ++free_id;
  const std::string key = "a";
  if (!index.SetKeys(free_id, std::span(&key, 1)).ok()) std::abort();
  if (!index.Put(free_id, q).ok()) std::abort();
  const std::uint32_t staged = kIdLimit - 1;
  if (!index.Stage(std::span(&staged, 1), v, 1).ok()) std::abort();
  Search(index, q);
  index.LinkPending(1, 1);
  Search(index, v);
  RoundTrip(index);
  return 0;
}
