#include <utility>

#include "filter/optimize/passes.h"

namespace engram::filter {

Node FoldConstants(Node n) {
  switch (n.op) {
    case Op::kIn:
    case Op::kHasAny:
      return n.values.empty() ? MakeConst(false) : n;
    case Op::kNot: {
      Node child = FoldConstants(std::move(n.children[0]));
      if (child.IsConst()) return MakeConst(child.op == Op::kFalse);
      n.children[0] = std::move(child);
      return n;
    }
    case Op::kAnd:
    case Op::kOr: {
      // and: false absorbs, true is neutral; or: the reverse.
      Op absorbing = n.op == Op::kAnd ? Op::kFalse : Op::kTrue;
      Op neutral = n.op == Op::kAnd ? Op::kTrue : Op::kFalse;
      std::vector<Node> kept;
      for (Node& c : n.children) {
        Node folded = FoldConstants(std::move(c));
        if (folded.op == absorbing) return MakeConst(absorbing == Op::kTrue);
        if (folded.op != neutral) kept.push_back(std::move(folded));
      }
      if (kept.empty()) return MakeConst(neutral == Op::kTrue);
      if (kept.size() == 1) return std::move(kept[0]);
      n.children = std::move(kept);
      return n;
    }
    default:
      return n;
  }
}

}  // namespace engram::filter
