#include <utility>

#include "filter/optimize/passes.h"

namespace engram::filter {

void Flatten(Node& n, bool* changed) {
  if (n.IsLeaf()) return;
  for (Node& c : n.children) Flatten(c, changed);
  if (n.op == Op::kNot) {
    if (n.children[0].op != Op::kNot) return;
    *changed = true;
    Node inner = std::move(n.children[0].children[0]);
    n = std::move(inner);
    return;
  }
  bool nested = false;
  for (const Node& c : n.children) nested = nested || c.op == n.op;
  if (nested) {
    *changed = true;
    std::vector<Node> flat;
    for (Node& c : n.children) {
      if (c.op != n.op) {
        flat.push_back(std::move(c));
        continue;
      }
      for (Node& g : c.children) flat.push_back(std::move(g));
    }
    n.children = std::move(flat);
  }
  if (n.children.size() == 1) {
    *changed = true;
    Node only = std::move(n.children[0]);
    n = std::move(only);
  }
}

}  // namespace engram::filter
