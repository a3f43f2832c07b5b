// Visibility inside the engine (SEARCH.md §6, engine.h): the filter IR of what
// a Scope may read or owns in a collection, of the records expired
// (CollectionSpec::ttl_field) and of the versions current at an instant
// (engine.h, "Supersession"), ANDed outside the user's filter so that no
// filter can widen it, and which record an id names for a caller.
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

// The records of `c` expired at `now`: their TTL field is at or before it.
// nullopt when `c` has no TTL field.
std::optional<filter::Node> ExpiredNode(const Collection& c, Datetime now);

// The records of `c` superseded at or before `by` (nullopt: ever).
filter::Node SupersededNode(const Collection& c, std::optional<Datetime> by);

// The instant a read sees: `now` (the engine's clock: what has expired) and
// which versions (engine.h, "Supersession"): the current records (no
// as_of), those current at `as_of`, or, for deletes and history walks,
// every stored version. Records expired at now stay invisible at any as_of
// (they are as good as purged).
struct ReadTime {
  Datetime now;
  std::optional<Datetime> as_of = std::nullopt;
  bool every_version = false;
};

// The text of an as_of (RFC 3339, or a date alone: midnight UTC) as a
// ReadTime at `now`; a Diagnostic at path "as_of" when it is not one. Empty:
// the current records.
Checked<ReadTime> ParseReadTime(std::string_view as_of, Datetime now);

// What a caller with `scope` (nullopt: the owner) sees in `c` at `at`: the
// records its scope may read, less the expired ones and the versions not
// current at `at`, compiled: the filter every read ANDs outside the user's
// (search::Request::scope). nullopt when that is every record. Called under
// a Reader (or the Writer): whether `c` has superseded records decides
// whether current reads need the supersession test. PermissionDenied as
// ScopeReadNode.
StatusOr<std::optional<filter::CompiledFilter>> VisibleFilter(const Collection& c,
                                                              const std::optional<Scope>& scope,
                                                              const ReadTime& at);

// One record's slots tested for a caller: may it read the record (in its
// scope, unexpired, current at the ReadTime), does it own it (always,
// without a scope).
struct ScopeTests {
  filter::Program reads;
  filter::Program owns;
};
// nullopt when every record passes both; PermissionDenied as ScopeReadNode.
// Called under a Reader or the Writer, as VisibleFilter.
StatusOr<std::optional<ScopeTests>> MakeScopeTests(const Collection& c,
                                                   const std::optional<Scope>& scope,
                                                   const ReadTime& at);

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
    // Its own record, unless expired (then as if it had none).
    if (const Found own = view.Find(c.OwnedKeyOf(scope->agent, id)); own && readable(*own)) {
      return own;
    }
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
