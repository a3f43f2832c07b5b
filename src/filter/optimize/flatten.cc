#include <utility>

#include "filter/optimize/passes.h"

namespace engram::filter {

Node Flatten(Node n) {
  if (n.IsLeaf()) return n;
  for (Node& c : n.children) c = Flatten(std::move(c));
  if (n.op == Op::kNot) {
    Node& child = n.children[0];
    if (child.op == Op::kNot) return std::move(child.children[0]);
    return n;
  }
  std::vector<Node> flat;
  for (Node& c : n.children) {
    if (c.op == n.op) {
      for (Node& g : c.children) flat.push_back(std::move(g));
    } else {
      flat.push_back(std::move(c));
    }
  }
  if (flat.size() == 1) return std::move(flat[0]);
  n.children = std::move(flat);
  return n;
}

}  // namespace engram::filter
