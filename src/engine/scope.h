// Tenancy inside the engine (SEARCH.md §6, engine.h): the filter IR of what
// a Scope may read or owns in a collection, ANDed outside the user's filter
// so that no filter can widen it, and which record an id names for a caller.
#ifndef ENGRAM_ENGINE_SCOPE_H_
#define ENGRAM_ENGINE_SCOPE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "engine/collection.h"
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

// What `scope` may read, compiled (nullopt without a scope): the filter a
// search keeps apart from the user's (search::Request::scope).
// PermissionDenied as ScopeReadNode.
StatusOr<std::optional<filter::CompiledFilter>> ReadFilter(
    const std::shared_ptr<const Schema>& schema, const std::optional<Scope>& scope,
    std::string_view collection);

// One record's slots tested against a scope: may the caller read it, does it own it.
struct ScopeTests {
  filter::Program reads;
  filter::Program owns;
};
// nullopt without a scope; PermissionDenied as ScopeReadNode.
StatusOr<std::optional<ScopeTests>> MakeScopeTests(const Schema& schema,
                                                   const std::optional<Scope>& scope,
                                                   std::string_view collection);

// The record `id` names for a caller with `tests` (MakeScopeTests of its
// `scope`), as engine.h "Record keys" defines it; `read` says whether the
// caller reads (Get) or deletes. nullopt when there is none (or none it may
// read); FailedPrecondition naming the agents when several readable records
// qualify; InvalidArgument for `agent` where records are keyed by id alone;
// PermissionDenied for a delete naming another agent. Shared lock held.
StatusOr<std::optional<std::uint32_t>> ResolveId(const Collection& c, std::string_view id,
                                                 const std::optional<Scope>& scope,
                                                 const std::optional<ScopeTests>& tests,
                                                 const std::optional<std::string>& agent,
                                                 bool read);

}  // namespace engram::engine

#endif  // ENGRAM_ENGINE_SCOPE_H_
