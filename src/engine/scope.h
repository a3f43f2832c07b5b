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
#include <vector>

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

// FailedPrecondition: `id` names the records `docs` (several) of different
// agents in `c`; the message names the agents, sorted.
Status AmbiguousId(const Collection& c, const index::MetadataIndex& metadata, std::string_view id,
                   const std::vector<std::uint32_t>& docs);

// The record `id` names for a caller with `tests` (MakeScopeTests of its
// `scope`), as engine.h "Record keys" defines it, looked up through `view`
// (a Collection::Reader, or the Writer of a delete); `read` says whether the
// caller reads (Get) or deletes. nullopt when there is none (or none it may
// read); FailedPrecondition naming the agents when several readable records
// qualify; InvalidArgument for `agent` where records are keyed by id alone;
// PermissionDenied for a delete naming another agent.
template <typename View>
StatusOr<std::optional<std::uint32_t>> ResolveId(
    const View& view, const Collection& c, std::string_view id, const std::optional<Scope>& scope,
    const std::optional<ScopeTests>& tests, const std::optional<std::string>& agent, bool read) {
  using Found = std::optional<std::uint32_t>;
  auto readable = [&](std::uint32_t doc) {
    return !tests || tests->reads.Matches(*view.metadata().Row(doc));
  };
  if (!c.keyed_by_owner()) {
    if (agent) {
      return Status::InvalidArgument("collection '" + c.spec().name +
                                     "' has no agent_id field: its records are named by id alone");
    }
    const Found doc = view.Find(id);
    return doc && readable(*doc) ? doc : Found();
  }
  if (!read && scope && agent && *agent != scope->agent) {
    return Status::PermissionDenied("a scoped caller deletes only its own records (agent '" +
                                    scope->agent + "')");
  }
  if (agent || (scope && !read)) {
    const Found doc = view.Find(c.OwnedKeyOf(agent ? *agent : scope->agent, id));
    return doc && readable(*doc) ? doc : Found();
  }
  if (scope) {
    if (const Found own = view.Find(c.OwnedKeyOf(scope->agent, id))) return own;
  }
  // The one record with this id the caller can read.
  std::vector<std::uint32_t> candidates;
  for (const std::uint32_t doc : view.FindId(id)) {
    if (readable(doc)) candidates.push_back(doc);
  }
  if (candidates.size() > 1) return AmbiguousId(c, view.metadata(), id, candidates);
  return candidates.empty() ? Found() : Found(candidates[0]);
}

}  // namespace engram::engine

#endif  // ENGRAM_ENGINE_SCOPE_H_
