#include <utility>

#include "filter/optimize/passes.h"

namespace engram::filter {

void DedupeChildren(Node& n, bool* changed) {
  if (n.IsLeaf()) return;
  for (Node& c : n.children) DedupeChildren(c, changed);
  if (n.op == Op::kNot) return;
  for (std::size_t i = 1; i < n.children.size();) {
    bool seen = false;
    for (std::size_t k = 0; k < i && !seen; ++k) seen = SameNode(n.children[k], n.children[i]);
    if (seen) {
      *changed = true;
      n.children.erase(n.children.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      ++i;
    }
  }
}

}  // namespace engram::filter
