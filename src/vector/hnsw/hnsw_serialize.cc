// Hnsw::Serialize and Load. The image (version 1), little-endian, varints as
// LEB128:
//   "ENGRMHNS" u32 version
//   options: varint m, varint ef_construction, u64 seed
//   varint limit (nodes are 0..limit-1)
//   per node: u8 state (0 absent, 1 live, 2 removed); unless absent:
//     u8 level, then for each level 0..level: varint count, count x varint id
//   varint entry + 1 (0: empty graph)
//   u64 FNV-1a of everything before.
// Load checks the checksum and every invariant search relies on to stay in
// bounds: links name present nodes below limit whose level reaches the link's
// level, counts within M (2M on level 0), each level the one Insert draws for
// the node's number, live nodes live in the store, the entry point present
// and on the top level. It allocates the node arrays for the store's limit
// and the upper levels' links, which the level check bounds (hnsw.h).
#include <algorithm>
#include <cstring>

#include "base/bytes.h"
#include "vector/hnsw/hnsw.h"
#include "vector/hnsw/hnsw_graph.h"

namespace engram::vector {
namespace {

constexpr char kGraphMagic[8] = {'E', 'N', 'G', 'R', 'M', 'H', 'N', 'S'};
constexpr std::uint32_t kGraphVersion = 1;

}  // namespace

std::string Hnsw::Serialize() const {
  const Graph& g = *graph_;
  ByteWriter w;
  w.Raw(kGraphMagic, 8);
  w.Fixed(kGraphVersion, 4);
  w.Var(g.options.m);
  w.Var(g.options.ef_construction);
  w.Fixed(g.options.seed, 8);
  // Trailing absent nodes are not written.
  std::size_t limit = g.capacity;
  while (limit > 0 && g.state[limit - 1].load() == HnswGraph::kAbsent) --limit;
  w.Var(limit);
  for (std::uint32_t id = 0; id < limit; ++id) {
    const std::uint8_t state = g.state[id].load();
    w.U8(state);
    if (state == HnswGraph::kAbsent) continue;
    w.U8(static_cast<std::uint8_t>(g.levels[id]));
    for (int level = 0; level <= g.levels[id]; ++level) {
      // Links that a drop left (Hnsw::Drop), to free numbers or stale, are
      // not written.
      const std::uint32_t* l = g.Links(id, level);
      const std::uint8_t* stamps = g.Stamps(id, level);
      auto kept = [&](std::uint32_t j) {
        return g.levels[l[j]] >= level && g.Current(l, stamps, j);
      };
      std::uint32_t count = 0;
      for (std::uint32_t j = 1; j <= l[0]; ++j) count += kept(j) ? 1 : 0;
      w.Var(count);
      for (std::uint32_t j = 1; j <= l[0]; ++j) {
        if (kept(j)) w.Var(l[j]);
      }
    }
  }
  w.Var(g.entry == kNoNode ? 0 : std::uint64_t{g.entry} + 1);
  w.Fixed(Fnv1a64(w.out), 8);
  return std::move(w.out);
}

StatusOr<Hnsw> Hnsw::Load(std::string_view bytes, const VectorStore* store) {
  auto fail = [](const char* why) { return Status::Corruption(std::string("hnsw image: ") + why); };
  ByteReader r({});
  if (std::optional<std::string> why =
          OpenImage(bytes, kGraphMagic, kGraphVersion, "hnsw graph", &r)) {
    return fail(why->c_str());
  }
  HnswOptions options;
  options.m = r.Var(kHnswMaxM);
  options.ef_construction = r.Var(kHnswMaxEf);
  options.seed = r.Fixed(8);
  if (!r.ok() || options.m < 2 || options.ef_construction < 1) return fail("bad options");

  Hnsw hnsw(store, options);
  Graph& g = *hnsw.graph_;
  const std::size_t limit = r.Count(1);
  if (!r.ok() || limit > store->limit()) return fail("bad node count");
  g.Grow(limit);
  int top = -1;
  for (std::uint32_t id = 0; id < limit; ++id) {
    const std::uint8_t state = r.U8();
    if (!r.ok() || state > HnswGraph::kRemoved) return fail("bad node state");
    if (state == HnswGraph::kAbsent) continue;
    if (state == HnswGraph::kLive && !store->Contains(id))
      return fail("live node not in the store");
    const int level = r.U8();
    // A node's level is the one Insert draws for its number (a function of
    // the seed and the number), so that a crafted image cannot ask for upper
    // levels beyond what a real graph holds.
    if (!r.ok() || level != g.RandomLevel(id)) return fail("bad node level");
    g.state[id].store(state);
    g.levels[id] = static_cast<std::int8_t>(level);
    g.upper[id].assign(std::size_t(level) * (g.m + 1), 0);
    g.stamps_upper[id].assign(std::size_t(level) * g.m, 0);
    for (int lc = 0; lc <= level; ++lc) {
      std::uint32_t* l = g.Links(id, lc);
      const std::size_t n = r.Var(g.MaxLinks(lc));
      if (!r.ok()) return fail("bad link count");
      l[0] = static_cast<std::uint32_t>(n);
      for (std::size_t j = 1; j <= n; ++j) {
        const std::uint64_t to = r.Var(limit == 0 ? 0 : limit - 1);
        if (!r.ok() || to == id) return fail("bad link");
        l[j] = static_cast<std::uint32_t>(to);
      }
    }
    if (state == HnswGraph::kLive) {
      g.SetLiveBit(id, true);
      g.live_count.fetch_add(1);
    } else {
      g.removed_count.fetch_add(1);
    }
    top = std::max(top, level);
  }
  const std::uint64_t entry = r.Var(limit);
  if (!r.ok() || r.left() != 0) return fail("bad entry point or trailing bytes");
  // Links must land on present nodes that reach the link's level.
  for (std::uint32_t id = 0; id < limit; ++id) {
    for (int lc = 0; lc <= g.levels[id]; ++lc) {
      const std::uint32_t* l = g.Links(id, lc);
      for (std::uint32_t j = 1; j <= l[0]; ++j) {
        if (g.levels[l[j]] < lc) return fail("link to a node not on that level");
      }
    }
  }
  if (top < 0) {
    if (entry != 0) return fail("entry point in an empty graph");
  } else {
    if (entry == 0 || g.levels[entry - 1] != top) return fail("entry point not on the top level");
    g.entry = static_cast<std::uint32_t>(entry - 1);
    g.max_level = top;
  }
  return hnsw;
}

}  // namespace engram::vector
