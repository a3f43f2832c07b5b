// The checker's walk (checker.h): one Checker per filter, visiting the AST
// in pre-order and keeping the first Fault. checker.cc holds the walk and
// what every dialect shares (limits, fields, applicability), typed.cc the
// leaves of the typed dialects (a literal read as its field's type),
// untyped.cc those of `retrieve` (either side a field or a literal of its
// JSON type). Internal to filter/check.
#ifndef ENGRAM_FILTER_CHECK_WALK_H_
#define ENGRAM_FILTER_CHECK_WALK_H_

#include <cstddef>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "base/json.h"
#include "filter/ast/ast.h"
#include "filter/check/policy.h"
#include "filter/ir/ir.h"

namespace engram::filter::detail {

using ast::NodeKind;
using ast::Operand;

struct NullLiteral {};  // `eq null`: the field is absent
using Typed = std::variant<Value, NullLiteral>;

// One side of a `retrieve` comparison: a field or a literal of its JSON type.
struct Side {
  const Field* field = nullptr;
  Value literal;
  std::vector<Value> items;  // a string-array literal
  bool is_list = false;
  std::string TypeName() const {
    if (field) return std::string(FieldTypeName(field->type));
    if (is_list) return "string[]";
    return std::string(ValueTypeName(literal));
  }
};

class Checker {
 public:
  Checker(const Schema& schema, const Policy& policy) : schema_(schema), policy_(policy) {}

  // The IR of `n`, located where `n` was written.
  std::optional<Node> Visit(const ast::Node& n, std::size_t parent_depth);

  std::optional<Fault>& fault() { return fault_; }

 private:
  // The walk and what every dialect shares (checker.cc).
  std::optional<Node> VisitNode(const ast::Node& n, std::size_t parent_depth);
  std::nullopt_t Fail(Fault f);  // keeps the first
  Node Leaf(Op op, const Field& f, const ast::Node& n) const;
  const std::string& Allowlist();  // the filterable fields, for an unknown one's fault
  const Field* ResolveField(const Operand& o);
  // Whether `op` (as written, `cmp` when a comparison) applies to field `f`,
  // in the typed dialects.
  bool OpApplies(NodeKind kind, CmpOp cmp, const Field& f) const;
  // The field a typed leaf reads; where the dialect says so, also whether the
  // op applies to its type, before the value is looked at.
  const Field* ResolveSubject(const ast::Node& n);
  std::nullopt_t NotApplicable(const ast::Node& n, const Field& f, const Path& path);

  // The typed dialects' leaves (typed.cc).
  // Reads literal `v` as a value of field `f`'s type.
  std::optional<Typed> TypeLiteral(const Field& f, const json::Value& v, const Path& path,
                                   bool as_item, bool rounds_up);
  std::optional<Value> TypeValue(const Field& f, const Operand& o, const ast::Node& n);
  std::optional<Node> CompareTyped(const ast::Node& n);
  std::optional<Node> InTyped(const ast::Node& n);
  std::optional<Node> ContainsNode(const ast::Node& n);
  std::optional<Node> BetweenNode(const ast::Node& n);

  // `retrieve`'s leaves (untyped.cc).
  std::optional<Side> ResolveSide(const Operand& o);
  // A string literal facing a datetime field is read as a datetime.
  bool CoerceDatetime(const Side& field_side, Side* literal_side, const Operand& o);
  std::optional<Node> CompareUntyped(const ast::Node& n);
  std::optional<Node> InUntyped(const ast::Node& n);

  const Schema& schema_;
  const Policy& policy_;
  std::size_t nodes_ = 0;
  std::string allowlist_;
  std::optional<Fault> fault_;
};

}  // namespace engram::filter::detail

#endif  // ENGRAM_FILTER_CHECK_WALK_H_
