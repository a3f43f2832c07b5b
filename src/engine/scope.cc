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

StatusOr<std::optional<std::uint32_t>> ResolveId(const Collection& c, std::string_view id,
                                                 const std::optional<Scope>& scope,
                                                 const std::optional<ScopeTests>& tests,
                                                 const std::optional<std::string>& agent,
                                                 bool read) {
  using Found = std::optional<std::uint32_t>;
  const std::string& name = c.spec().name;
  if (!c.keyed_by_owner()) {
    if (agent) {
      return Status::InvalidArgument("collection '" + name +
                                     "' has no agent_id field: its records are named by id alone");
    }
    Found doc = c.Find(id);
    if (doc && tests && !tests->reads.Matches(*c.metadata().Row(*doc))) return Found();
    return doc;
  }
  if (!read && scope && agent && *agent != scope->agent) {
    return Status::PermissionDenied("a scoped caller deletes only its own records (agent '" +
                                    scope->agent + "')");
  }
  if (agent || (scope && !read)) {
    Found doc = c.Find(c.OwnedKeyOf(agent ? *agent : scope->agent, id));
    if (doc && tests && !tests->reads.Matches(*c.metadata().Row(*doc))) return Found();
    return doc;
  }
  if (scope) {
    if (Found own = c.Find(c.OwnedKeyOf(scope->agent, id))) return own;
  }
  // The one record with this id the caller can read.
  std::vector<std::uint32_t> candidates;
  for (const std::uint32_t doc : c.FindId(id)) {
    if (!tests || tests->reads.Matches(*c.metadata().Row(doc))) candidates.push_back(doc);
  }
  if (candidates.size() <= 1) return candidates.empty() ? Found() : Found(candidates[0]);
  std::vector<std::string> owners;
  for (const std::uint32_t doc : candidates) {
    const std::optional<std::string_view> owner = OwnerOf(*c.metadata().Row(doc), *c.owner_slot());
    owners.push_back(owner ? "'" + std::string(*owner) + "'" : "(none)");
  }
  std::sort(owners.begin(), owners.end());
  std::string agents;
  for (std::size_t i = 0; i < owners.size() && i < kAgentsNamed; ++i) {
    agents += (i > 0 ? ", " : "") + owners[i];
  }
  if (owners.size() > kAgentsNamed) agents += ", ...";
  return Status::FailedPrecondition("id '" + std::string(id) + "' names records of " +
                                    std::to_string(candidates.size()) + " agents (" + agents +
                                    ") in collection '" + name + "': name the agent");
}

}  // namespace engram::engine
