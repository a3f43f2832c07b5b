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

StatusOr<std::optional<filter::CompiledFilter>> ReadFilter(
    const std::shared_ptr<const Schema>& schema, const std::optional<Scope>& scope,
    std::string_view collection) {
  if (!scope) return std::optional<filter::CompiledFilter>();
  ASSIGN_OR_RETURN(filter::Node read, ScopeReadNode(*schema, *scope, collection));
  return std::optional<filter::CompiledFilter>(Restrict(nullptr, std::move(read), schema));
}

StatusOr<std::optional<ScopeTests>> MakeScopeTests(const Schema& schema,
                                                   const std::optional<Scope>& scope,
                                                   std::string_view collection) {
  if (!scope) return std::optional<ScopeTests>();
  ASSIGN_OR_RETURN(filter::Node read, ScopeReadNode(schema, *scope, collection));
  ASSIGN_OR_RETURN(filter::Node own, ScopeOwnNode(schema, *scope, collection));
  return std::optional<ScopeTests>(
      ScopeTests{filter::Program(read, schema), filter::Program(own, schema)});
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
