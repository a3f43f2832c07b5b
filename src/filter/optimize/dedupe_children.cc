#include <unordered_map>
#include <utility>

#include "filter/optimize/passes.h"

namespace engram::filter {

void DedupeChildren(Node& n, bool* changed) {
  if (n.IsLeaf()) return;
  for (Node& c : n.children) DedupeChildren(c, changed);
  if (n.op == Op::kNot || n.children.size() < 2) return;
  // Children compared only with the earlier ones of equal hash: linear in
  // the children's sizes rather than quadratic in their number.
  std::unordered_multimap<std::size_t, std::size_t> kept;  // hash -> index in `out`
  std::vector<Node> out;
  out.reserve(n.children.size());
  for (Node& c : n.children) {
    const std::size_t h = HashNode(c);
    bool seen = false;
    for (auto [it, end] = kept.equal_range(h); it != end && !seen; ++it) {
      seen = SameNode(out[it->second], c);
    }
    if (seen) {
      *changed = true;
      continue;
    }
    kept.emplace(h, out.size());
    out.push_back(std::move(c));
  }
  n.children = std::move(out);
}

}  // namespace engram::filter
