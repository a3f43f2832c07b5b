#include <utility>

#include "filter/optimize/passes.h"

namespace engram::filter {

Node DedupeChildren(Node n) {
  if (n.IsLeaf()) return n;
  for (Node& c : n.children) c = DedupeChildren(std::move(c));
  if (n.op == Op::kNot) return n;
  std::vector<Node> kept;
  for (Node& c : n.children) {
    bool seen = false;
    for (const Node& k : kept) seen = seen || SameNode(k, c);
    if (!seen) kept.push_back(std::move(c));
  }
  n.children = std::move(kept);
  return n;
}

}  // namespace engram::filter
