// Tenancy inside the engine (SEARCH.md §6): the filter IR of what a Scope
// may read or owns in a collection, ANDed outside the user's filter so that
// no filter can widen it.
#ifndef ENGRAM_ENGINE_SCOPE_H_
#define ENGRAM_ENGINE_SCOPE_H_

#include <memory>
#include <string_view>

#include "base/status.h"
#include "engram/engine.h"
#include "filter/compiler.h"
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

}  // namespace engram::engine

#endif  // ENGRAM_ENGINE_SCOPE_H_
