// Tenancy inside the engine (SEARCH.md §6): the filter IR of what a Scope
// may read or owns in a collection, ANDed outside the user's filter so that
// no filter can widen it.
#ifndef ENGRAM_ENGINE_SCOPE_H_
#define ENGRAM_ENGINE_SCOPE_H_

#include <memory>
#include <optional>
#include <string_view>

#include "base/status.h"
#include "engram/engine.h"
#include "filter/compiler.h"
#include "filter/eval/program.h"
#include "schema/schema.h"

namespace engram::engine {

// The scope's shared `scope` values, by read profile.
inline constexpr std::string_view kProjectShared = "project_shared";
inline constexpr std::string_view kOrgShared = "org_shared";

// The records `scope` may read: `agent_id` is its agent, or `scope` is one
// its profile grants. PermissionDenied when `schema` has no string
// `agent_id` field (`collection` names it in the message).
StatusOr<filter::Node> ScopeReadNode(const Schema& schema, const Scope& scope,
                                     std::string_view collection);
// The records `scope` owns: `agent_id` is its agent.
StatusOr<filter::Node> ScopeOwnNode(const Schema& schema, const Scope& scope,
                                    std::string_view collection);

// `user` (null: no filter) restricted to `scope_node`.
filter::CompiledFilter Restrict(const filter::CompiledFilter* user, filter::Node scope_node,
                                const std::shared_ptr<const Schema>& schema);

// The filter a scoped search runs with: `user` (null: none) itself without a
// scope, else `user` restricted to what `scope` may read, kept in
// `*restricted`. PermissionDenied as ScopeReadNode.
StatusOr<const filter::CompiledFilter*> ReadableFilter(
    const std::shared_ptr<const Schema>& schema, const std::optional<Scope>& scope,
    std::string_view collection, const filter::CompiledFilter* user,
    std::optional<filter::CompiledFilter>* restricted);

// One record's slots tested against a scope: may the caller read it, does it own it.
struct ScopeTests {
  filter::Program reads;
  filter::Program owns;
};
// nullopt without a scope; PermissionDenied as ScopeReadNode.
StatusOr<std::optional<ScopeTests>> MakeScopeTests(const Schema& schema,
                                                   const std::optional<Scope>& scope,
                                                   std::string_view collection);

}  // namespace engram::engine

#endif  // ENGRAM_ENGINE_SCOPE_H_
