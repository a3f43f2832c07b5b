#include <algorithm>
#include <utility>

#include "filter/optimize/passes.h"

namespace engram::filter {

void FoldConstants(Node& n, bool* changed) {
  switch (n.op) {
    case Op::kIn:
    case Op::kHasAny:
      if (!n.values.empty()) return;
      *changed = true;
      n = MakeConst(false);
      return;
    case Op::kNot:
      FoldConstants(n.children[0], changed);
      if (!n.children[0].IsConst()) return;
      *changed = true;
      n = MakeConst(n.children[0].op == Op::kFalse);
      return;
    case Op::kAnd:
    case Op::kOr: {
      // and: false absorbs, true is neutral; or: the reverse.
      Op absorbing = n.op == Op::kAnd ? Op::kFalse : Op::kTrue;
      Op neutral = n.op == Op::kAnd ? Op::kTrue : Op::kFalse;
      for (Node& c : n.children) {
        FoldConstants(c, changed);
        if (c.op == absorbing) {
          *changed = true;
          n = MakeConst(absorbing == Op::kTrue);
          return;
        }
      }
      auto is_neutral = [neutral](const Node& c) { return c.op == neutral; };
      auto first = std::remove_if(n.children.begin(), n.children.end(), is_neutral);
      if (first != n.children.end()) {
        *changed = true;
        n.children.erase(first, n.children.end());
      }
      if (n.children.empty()) {
        n = MakeConst(neutral == Op::kTrue);
      } else if (n.children.size() == 1) {
        *changed = true;
        Node only = std::move(n.children[0]);
        n = std::move(only);
      }
      return;
    }
    default:
      return;
  }
}

}  // namespace engram::filter
