// Who is asking and how much work one request may take: the Scope and
// RequestBounds every read and write of engine.h and listing.h takes.
#ifndef ENGRAM_REQUEST_H_
#define ENGRAM_REQUEST_H_

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace engram {

// Who is asking (SEARCH.md §6). A scoped caller reads the records whose
// `agent_id` is its agent plus those whose `scope` its read profile grants:
// `private_plus_project` adds `scope == "project_shared"`, `all_scopes` adds
// `project_shared` and `org_shared`. It writes and deletes only records whose
// `agent_id` is its agent. The scope is ANDed outside any user filter, so no
// filter can widen it. A collection without a string `agent_id` field is
// closed to scoped callers (PermissionDenied); without a `scope` field only
// the agent's own records are visible. No scope (nullopt): the store's owner,
// who reads and writes everything.
//
// Tenancy is closed: what a scoped caller observes never depends on records
// it may not read. Hits, listings, record counts (ListCollections,
// DescribeCollection), every count of filter impact and explain, and the
// status and message of every read, write and delete are computed within its
// readable records. Two things still see the whole collection, and only
// through scores: BM25's term statistics (document frequencies, average field
// lengths; so a hit's BM25 and relevance, and which records make a truncated
// candidate list, may move when other agents write), and the order in which
// an approximate graph walk meets records. Explain leaves out, for scoped
// callers, the work figures that count the whole index (postings scored, the
// vector plan and its costs, cardinality estimates).
//
// Record keys. In a collection with a string `agent_id` field, ids are unique
// per agent, as Pinecone's namespaces are: a record is keyed by (agent_id,
// id), so alice writing id `bob-2000` creates or replaces her own record and
// never learns whether bob has one, and cannot keep bob from writing his.
// Ids shown to callers are the ids as written. Where an id names a record
// (Get, Delete), `agent` may name its owner; without it:
//   - a scoped caller's own record with that id, if it has one; for Get,
//     else the one record with that id it can read (another agent's shared
//     record); several readable agents' records with that id are ambiguous
//     (FailedPrecondition naming those agents; nothing is done);
//   - for the owner (no scope), the one record with that id, or
//     FailedPrecondition naming the agents when several hold it.
// A scoped caller may name another agent only to read (its shared records);
// Delete naming another agent is PermissionDenied. Collections without an
// `agent_id` field key records by id alone, and `agent` is InvalidArgument.
enum class ReadProfile { kPrivateOnly, kPrivatePlusProject, kAllScopes };
std::optional<ReadProfile> ReadProfileFromName(std::string_view name);  // private_only|...
std::string_view ReadProfileName(ReadProfile profile);

struct Scope {
  std::string agent;
  ReadProfile profile = ReadProfile::kPrivateOnly;
};

// Bounds on one request's work, which the front-ends set from their flags
// (docs: "Bounds on every request").
struct RequestBounds {
  // When it passes the work stops, cooperatively, and the call returns
  // DeadlineExceeded (nothing written, for a write). nullopt: no deadline.
  std::optional<std::chrono::steady_clock::time_point> deadline;
  // The dictionary words a text query's prefixes may expand to, all together;
  // a query past it is rejected (kind query.too_many_expansions). Lucene's
  // and Elasticsearch's default clause bound.
  std::size_t max_expansions = 1024;
  // A byte budget for the hits: each costs its id, its record and
  // kHitReplyBytes for the rest of its reply (kRankedHitReplyBytes more
  // with a ranked search's factors); the hits past the budget are left out
  // and counted (SearchResponse::truncated, omitted). 0: none.
  std::size_t max_reply_bytes = 0;
};
// What a hit's reply costs beyond its id and record (its scores and keys).
inline constexpr std::size_t kHitReplyBytes = 160;
// What a ranked hit's decay, boost and final_score add to that.
inline constexpr std::size_t kRankedHitReplyBytes = 96;

}  // namespace engram

#endif  // ENGRAM_REQUEST_H_
