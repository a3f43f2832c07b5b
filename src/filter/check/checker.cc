#include "filter/check/checker.h"

#include <string>
#include <utility>

#include "filter/check/walk.h"

namespace engram::filter {
namespace detail {

std::optional<Node> Checker::Visit(const ast::Node& n, std::size_t parent_depth) {
  std::optional<Node> ir = VisitNode(n, parent_depth);
  if (ir) ir->path = n.path;
  return ir;
}

std::optional<Node> Checker::VisitNode(const ast::Node& n, std::size_t parent_depth) {
  std::size_t depth = parent_depth;
  if (n.counts) {
    ++nodes_;
    ++depth;
    if (nodes_ > policy_.max_nodes) {
      return Fail(CountFault(FaultCode::kTooManyNodes, n.path, nodes_, policy_.max_nodes));
    }
    if (depth > policy_.max_depth) {
      return Fail(CountFault(FaultCode::kTooDeep, n.path, depth, policy_.max_depth));
    }
  }
  if (n.fault) return Fail(*n.fault);
  switch (n.kind) {
    case NodeKind::kInvalid:
      return Fail(MakeFault(FaultCode::kNotObject, n.path, "invalid"));
    case NodeKind::kConst:
      return MakeConst(n.value);
    case NodeKind::kAnd:
    case NodeKind::kOr: {
      std::vector<Node> children;
      for (const ast::Node& c : n.children) {
        std::optional<Node> child = Visit(c, depth);
        if (!child) return std::nullopt;
        children.push_back(std::move(*child));
      }
      if (children.empty()) return Fail(MakeFault(FaultCode::kEmptyArgs, n.path, n.op));
      return MakeJunction(n.kind == NodeKind::kAnd ? Op::kAnd : Op::kOr, std::move(children));
    }
    case NodeKind::kNot: {
      std::optional<Node> child = Visit(n.children.at(0), depth);
      if (!child) return std::nullopt;
      // A `not` the parser added while lowering (`neq`, `$nin`, `is_not`)
      // drops records for the leaf as written; a written `not` for itself.
      std::string origin = n.counts ? "" : child->origin;
      return MakeNot(std::move(*child), std::move(origin));
    }
    case NodeKind::kCompare:
      return policy_.typed_by_field ? CompareTyped(n) : CompareUntyped(n);
    case NodeKind::kIn:
      return policy_.typed_by_field ? InTyped(n) : InUntyped(n);
    case NodeKind::kContains:
      return ContainsNode(n);
    case NodeKind::kExists: {
      const Field* f = ResolveSubject(n);
      if (!f) return std::nullopt;
      // A value beside the field only ever carries a fault ($exists: 1).
      if (n.operands.size() > 1 && n.operands[1].fault) return Fail(*n.operands[1].fault);
      return Leaf(Op::kExists, *f, n);
    }
    case NodeKind::kBetween:
      return BetweenNode(n);
  }
  return std::nullopt;
}

std::nullopt_t Checker::Fail(Fault f) {
  if (!fault_) fault_ = std::move(f);
  return std::nullopt;
}

Node Checker::Leaf(Op op, const Field& f, const ast::Node& n) const {
  Node leaf;
  leaf.op = op;
  leaf.slot = f.slot;
  leaf.origin = n.op + ":" + f.name;
  leaf.path = n.path;
  return leaf;
}

const std::string& Checker::Allowlist() {
  if (allowlist_.empty()) {
    for (const Field& f : schema_.fields()) {
      if (!f.filterable) continue;
      if (!allowlist_.empty()) allowlist_ += ", ";
      allowlist_ += f.name;
    }
  }
  return allowlist_;
}

const Field* Checker::ResolveField(const Operand& o) {
  if (o.fault) return Fail(*o.fault), nullptr;
  const Field* f =
      policy_.field_names_ignore_case ? schema_.FindIgnoringCase(o.field) : schema_.Find(o.field);
  if (f == nullptr)
    return Fail(MakeFault(FaultCode::kUnknownField, o.path, o.field, Allowlist())), nullptr;
  if (!f->filterable) {
    return Fail(MakeFault(FaultCode::kFieldNotFilterable, o.path, o.field, Allowlist())), nullptr;
  }
  return f;
}

bool Checker::OpApplies(NodeKind kind, CmpOp cmp, const Field& f) const {
  bool ordered = IsNumeric(f.type) || f.type == FieldType::kDatetime ||
                 (policy_.string_order && f.type == FieldType::kString);
  switch (kind) {
    case NodeKind::kCompare:
      if (IsOrdering(cmp)) return ordered;
      // On a set, eq means "contains" where the dialect says so; every
      // dialect writes "not equal" as not(eq), so ne never meets a set.
      if (f.type == FieldType::kStringSet) {
        return cmp == CmpOp::kEq && policy_.set_eq_is_membership;
      }
      return true;
    case NodeKind::kBetween:
      return ordered;
    case NodeKind::kContains:
      return f.type == FieldType::kString;
    default:
      return true;
  }
}

const Field* Checker::ResolveSubject(const ast::Node& n) {
  const Field* f = ResolveField(n.operands.at(0));
  if (f && policy_.op_before_value && !OpApplies(n.kind, n.cmp, *f)) {
    return NotApplicable(n, *f, n.op_path.value_or(n.path)), nullptr;
  }
  return f;
}

std::nullopt_t Checker::NotApplicable(const ast::Node& n, const Field& f, const Path& path) {
  return Fail(MakeFault(FaultCode::kOpNotApplicable, path, n.op, std::string(FieldTypeName(f.type)),
                        "", f.name));
}

}  // namespace detail

CheckResult Check(const ast::Tree& tree, const Schema& schema, const Policy& policy) {
  CheckResult result;
  if (tree.fault) {
    result.fault = tree.fault;
    return result;
  }
  detail::Checker checker(schema, policy);
  result.root = checker.Visit(tree.root, 0);
  if (!result.root) result.fault = checker.fault();
  return result;
}

}  // namespace engram::filter
