#include "engine/scope.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "engine/record_key.h"
#include "filter/optimize/optimize.h"

namespace engram::engine {
namespace {

constexpr std::string_view kScopeField = "scope";
constexpr std::size_t kAgentsNamed = 5;  // in an ambiguity's message

const Field* StringField(const Schema& schema, std::string_view name) {
  const Field* f = schema.Find(name);
  return f != nullptr && f->type == FieldType::kString ? f : nullptr;
}

filter::Node Leaf(filter::Op op, const Field& field, std::vector<Value> values) {
  filter::Node n;
  n.op = op;
  n.cmp = filter::CmpOp::kEq;
  n.slot = field.slot;
  n.values = std::move(values);
  n.origin = "scope:" + field.name;
  return n;
}

}  // namespace

StatusOr<filter::Node> ScopeOwnNode(const Schema& schema, const Scope& scope,
                                    std::string_view collection) {
  const Field* agent = StringField(schema, kAgentField);
  if (agent == nullptr) {
    return Status::PermissionDenied("collection '" + std::string(collection) +
                                    "' has no string agent_id field, so it is open only to "
                                    "unscoped (admin) callers");
  }
  return Leaf(filter::Op::kCmp, *agent, {Value(scope.agent)});
}

StatusOr<filter::Node> ScopeReadNode(const Schema& schema, const Scope& scope,
                                     std::string_view collection) {
  ASSIGN_OR_RETURN(filter::Node own, ScopeOwnNode(schema, scope, collection));
  const Field* scope_field = StringField(schema, kScopeField);
  if (scope_field == nullptr || scope.profile == ReadProfile::kPrivateOnly) return own;
  std::vector<Value> granted{Value(std::string(kProjectShared))};
  if (scope.profile == ReadProfile::kAllScopes) granted.emplace_back(std::string(kOrgShared));
  std::vector<filter::Node> either;
  either.push_back(std::move(own));
  either.push_back(Leaf(filter::Op::kIn, *scope_field, std::move(granted)));
  return filter::MakeJunction(filter::Op::kOr, std::move(either));
}

filter::CompiledFilter Restrict(const filter::CompiledFilter* user, filter::Node scope_node,
                                const std::shared_ptr<const Schema>& schema) {
  if (user == nullptr) {
    filter::Node optimized = filter::Optimize(scope_node, *schema);
    return filter::CompiledFilter(filter::Filter{schema, std::move(scope_node)},
                                  filter::Filter{schema, std::move(optimized)});
  }
  std::vector<filter::Node> checked{scope_node, user->checked.root};
  std::vector<filter::Node> both{std::move(scope_node), user->optimized.root};
  filter::Node optimized =
      filter::Optimize(filter::MakeJunction(filter::Op::kAnd, std::move(both)), *schema);
  return filter::CompiledFilter(
      filter::Filter{schema, filter::MakeJunction(filter::Op::kAnd, std::move(checked))},
      filter::Filter{schema, std::move(optimized)});
}

std::optional<filter::Node> ExpiredNode(const Collection& c, Datetime now) {
  if (!c.ttl_slot()) return std::nullopt;
  filter::Node n;
  n.op = filter::Op::kCmp;
  n.cmp = filter::CmpOp::kLe;
  n.slot = *c.ttl_slot();
  n.values = {Value(now)};
  n.origin = "expired:" + c.spec().ttl_field;
  return n;
}

filter::Node SupersededNode(const Collection& c, std::optional<Datetime> by) {
  filter::Node n;
  n.op = by ? filter::Op::kCmp : filter::Op::kExists;
  n.cmp = filter::CmpOp::kLe;
  n.slot = c.superseded_slot();
  if (by) n.values = {Value(*by)};
  n.origin = "superseded";
  return n;
}

Checked<ReadTime> ParseReadTime(std::string_view as_of, Datetime now) {
  ReadTime at{now};
  if (as_of.empty()) return at;
  const std::optional<ParsedDatetime> t = ParseDatetime(as_of, DatetimeForm::kLenient);
  if (!t) {
    return Diagnostic{400, "request.invalid", "as_of",
                      "as_of: '" + std::string(as_of) +
                          "' is not an RFC 3339 datetime (or a date: its midnight UTC)"};
  }
  at.as_of = t->value;
  return at;
}

namespace {

// The versions of `c` current at `at`; nullopt: every record.
std::optional<filter::Node> CurrentNode(const Collection& c, const ReadTime& at) {
  if (at.every_version) return std::nullopt;
  if (!at.as_of) {
    if (!c.has_superseded()) return std::nullopt;
    return filter::MakeNot(SupersededNode(c, std::nullopt), "superseded");
  }
  // Written at or before as_of (records from before versions were kept
  // have no write time: `not written after` keeps them), not superseded by it.
  filter::Node written_after;
  written_after.op = filter::Op::kCmp;
  written_after.cmp = filter::CmpOp::kGt;
  written_after.slot = c.written_slot();
  written_after.values = {Value(*at.as_of)};
  written_after.origin = "as_of";
  std::vector<filter::Node> both;
  both.push_back(filter::MakeNot(std::move(written_after), "as_of"));
  both.push_back(filter::MakeNot(SupersededNode(c, *at.as_of), "superseded"));
  return filter::MakeJunction(filter::Op::kAnd, std::move(both));
}

// What VisibleFilter compiles, uncompiled; nullopt: every record.
StatusOr<std::optional<filter::Node>> VisibleNode(const Collection& c,
                                                  const std::optional<Scope>& scope,
                                                  const ReadTime& at) {
  std::vector<filter::Node> all;
  if (scope) {
    ASSIGN_OR_RETURN(filter::Node read, ScopeReadNode(c.schema(), *scope, c.spec().name));
    all.push_back(std::move(read));
  }
  // Leaves are false on absent fields, so `not expired` keeps the records
  // without a TTL value. As of a later instant, what has expired by then.
  const Datetime expiry = at.as_of ? std::max(at.now, *at.as_of) : at.now;
  if (std::optional<filter::Node> expired = ExpiredNode(c, expiry)) {
    all.push_back(filter::MakeNot(std::move(*expired), "expired:" + c.spec().ttl_field));
  }
  if (std::optional<filter::Node> current = CurrentNode(c, at)) all.push_back(std::move(*current));
  if (all.empty()) return std::optional<filter::Node>();
  if (all.size() == 1) return std::optional<filter::Node>(std::move(all[0]));
  return std::optional<filter::Node>(filter::MakeJunction(filter::Op::kAnd, std::move(all)));
}

}  // namespace

StatusOr<std::optional<filter::CompiledFilter>> VisibleFilter(const Collection& c,
                                                              const std::optional<Scope>& scope,
                                                              const ReadTime& at) {
  ASSIGN_OR_RETURN(std::optional<filter::Node> visible, VisibleNode(c, scope, at));
  if (!visible) return std::optional<filter::CompiledFilter>();
  return std::optional<filter::CompiledFilter>(
      Restrict(nullptr, std::move(*visible), c.row_schema()));
}

StatusOr<std::optional<ScopeTests>> MakeScopeTests(const Collection& c,
                                                   const std::optional<Scope>& scope,
                                                   const ReadTime& at) {
  ASSIGN_OR_RETURN(std::optional<filter::Node> visible, VisibleNode(c, scope, at));
  if (!visible) return std::optional<ScopeTests>();
  filter::Node own = filter::MakeConst(true);
  if (scope) {
    ASSIGN_OR_RETURN(own, ScopeOwnNode(c.schema(), *scope, c.spec().name));
  }
  return std::optional<ScopeTests>(ScopeTests{filter::Program(*visible, *c.row_schema()),
                                              filter::Program(own, *c.row_schema())});
}

Status AmbiguousId(const Collection& c, const index::MetadataIndex& metadata, std::string_view id,
                   const std::vector<std::uint32_t>& docs) {
  std::vector<std::string> owners;
  for (const std::uint32_t doc : docs) {
    const std::optional<std::string_view> owner = OwnerOf(*metadata.Row(doc), *c.owner_slot());
    owners.push_back(owner ? "'" + std::string(*owner) + "'" : "(none)");
  }
  std::sort(owners.begin(), owners.end());
  std::string agents;
  for (std::size_t i = 0; i < owners.size() && i < kAgentsNamed; ++i) {
    agents += (i > 0 ? ", " : "") + owners[i];
  }
  if (owners.size() > kAgentsNamed) agents += ", ...";
  return Status::FailedPrecondition("id '" + std::string(id) + "' names records of " +
                                    std::to_string(docs.size()) + " agents (" + agents +
                                    ") in collection '" + c.spec().name + "': name the agent");
}

}  // namespace engram::engine
