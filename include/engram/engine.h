// engram's engine for front-ends (CLI, server, bindings): a store directory
// of collections, each with a schema, optional full-text and vector
// configuration, durable records, in-memory indexes rebuilt or replayed on
// open, and the filtered search of SEARCH.md. Nothing internal leaks here.
//
// Thread-safety: an Engine may be shared between threads. Searches run
// concurrently; writes to one collection are serialised and exclude its
// searches while the indexes change.
#ifndef ENGRAM_ENGINE_H_
#define ENGRAM_ENGINE_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engram/collection_spec.h"
#include "engram/diagnostic.h"
#include "engram/embedder.h"
#include "engram/filter.h"
#include "engram/listing.h"
#include "engram/request.h"
#include "engram/search.h"
#include "engram/status.h"

namespace engram {

// The outcome of a write that can reject user input: either it was applied
// (durable on return) or `rejected` says which input was bad and why, and
// nothing was written.
struct Deduplicated {
  std::size_t index = 0;                    // the 0-based position of the duplicate in the batch
  std::string id;                           // its id (it was not written)
  std::string duplicate_of;                 // the id of the same owner's record it duplicates
  std::optional<double> similarity;         // near: the similarity to that record
  DedupAction action = DedupAction::kSkip;  // refresh: that record's time was refreshed
};
// Supersession (README "Supersession"): a record written with a top-level
// `"supersedes": ["id", ...]` (at most 64 distinct ids, not its own) makes
// those records of its own owner (the same agent_id; the whole collection
// without an agent_id field) no longer current, at the write's instant
// (Options::clock). A superseded record is kept, with the time it was
// written and the time it stopped being current, durably; default reads
// (search, list, count, facets, get, collection counts, Retrieve) see
// current records only, and a read `as_of` an instant T sees the records
// written at or before T and not superseded by T (records written before
// versions were kept count as written at every instant). Records expired
// at now stay invisible at every as_of (and as of a later instant, those
// expired by then); deleted records are gone. A write
// that names a record it cannot supersede (absent, expired, another
// owner's: one answer, so nothing is told of others' ids) is rejected
// (record.supersedes_unknown, path supersedes[i]), nothing written. Naming
// a record already superseded keeps its first time (retrying a write is
// harmless). Writing a record again (same key) makes it current. A
// record skipped as a duplicate (dedup) supersedes nothing; superseded
// records are no duplicates' originals.
struct Superseded {
  std::size_t index = 0;   // the 0-based position in the batch of the superseding record
  std::string id;          // its id
  std::string superseded;  // the id of the record it made no longer current
};

struct WriteResult {
  std::size_t written = 0;  // records put or removed
  std::optional<Diagnostic> rejected;
  std::size_t rejected_index = 0;  // Upsert: the 0-based position of the bad record
  // Upsert, in a collection with dedup: the duplicates (not written), in
  // batch order; `written` counts neither them nor the records refreshed.
  std::vector<Deduplicated> deduplicated = {};
  // Upsert: the records this write made no longer current, in batch order
  // (those superseded already are not listed again).
  std::vector<Superseded> superseded = {};
  // The store's sequence of the batch that made the write durable (0 when
  // nothing was written): the token a read passes to AwaitWrite.
  std::uint64_t seq = 0;
};

// Get with versions: the record `id` names for the caller as of `as_of`
// (RFC 3339 or a date; empty: the current record), and with
// `include_history` its predecessors (see Superseded): the records it
// supersedes, theirs, and so on, that the caller can read, newest written
// first, at most 100 (`history_truncated` says more were left).
struct GetRequest {
  std::optional<Scope> scope;        // the caller; nullopt: unscoped
  std::optional<std::string> agent;  // the owner, as "Record keys"
  std::string as_of;
  bool include_history = false;
};
struct RecordVersion {
  std::string id;
  std::string record;         // the stored record as a JSON object (without its vector)
  std::string written_at;     // RFC 3339; empty for a record from before versions were kept
  std::string superseded_at;  // RFC 3339 when no longer current, else empty
};
struct GetResponse {
  std::optional<RecordVersion> found;  // nullopt: none the caller can read (as of as_of)
  std::vector<RecordVersion> history;
  bool history_truncated = false;
  std::optional<Diagnostic> rejected;  // a bad as_of (path "as_of")
};

class Engine {
 public:
  struct Options {
    std::size_t threads = 2;  // vector index building
    // Who opens the store ("engram serve"), as a second opener of a store
    // directory is told.
    std::string holder = "engram";
    // Background checkpoints: a collection's index images are written once
    // this many of its records changed, or this many milliseconds after its
    // first change since the last checkpoint (0: only by records). Recovery
    // after a crash replays what was written since.
    std::uint64_t checkpoint_records = 50000;
    std::uint64_t checkpoint_interval_ms = 30000;
    // The SQLite VFS to open the store with (fault-injection tests); empty:
    // SQLite's default.
    std::string sqlite_vfs;
    // The wall clock, "now" for expiry (CollectionSpec::ttl_field) and for
    // ranking's decay (DecaySpec); tests fix it. Empty: the system clock.
    // Called from any thread.
    std::function<std::chrono::system_clock::time_point()> clock;
    // Recall statistics (CollectionSpec::hit_count_field): the maintenance
    // writes a collection's tallied hits at most once per this many
    // milliseconds, at most kMaxHitBatch records per batch. A crash loses
    // the hits tallied since the last write (at most kMaxPendingHitRecords
    // records' worth); closing the engine writes them. 0: only FlushHits
    // and closing write them.
    std::uint64_t hit_flush_interval_ms = 1000;
    // On a shared store (PostgreSQL): the longest wait for another engine's
    // change to be announced before the engine looks for one anyway.
    std::uint64_t follow_poll_ms = 250;
  };

  // What opening the store took, for logs, metrics and the crash tests.
  struct RecoveryReport {
    std::size_t collections = 0;
    std::size_t records = 0;     // records read from the store
    std::size_t replayed = 0;    // records indexed again (written after the last checkpoint)
    std::size_t rebuilt = 0;     // indexes rebuilt from the records (no usable snapshot)
    std::size_t renumbered = 0;  // collections whose record numbers were renumbered
    std::size_t imaged = 0;      // records taken from the records image, not parsed again
    double seconds = 0;          // the whole Open
  };

  // Opens the store at `dir`, a SQLite store directory or a PostgreSQL
  // store's postgresql:// URL (storage/store.h), and loads every
  // collection: index snapshots are loaded when their checksums hold and
  // then brought up to date from the records; an unreadable snapshot is
  // rebuilt from the records. IoError/Corruption when the store cannot be read.
  // One engine owns a store: Open takes an exclusive lock on DIR/LOCK, held
  // until the engine is destroyed (or the process dies). FailedPrecondition,
  // with nothing written, when another process or another Engine in this
  // process has the store; the message names the holder and, when it
  // advertised one, the URL that reaches it. A PostgreSQL store is shared
  // instead: any number of engines (on any machines) open it, and each
  // follows the changes the others commit, in commit order, from a thread
  // of its own (engine/follow.h). A write is decided on what the engine has
  // applied; when another engine committed to the collection meanwhile, the
  // engine catches up and decides it again (Aborted after several tries).
  static StatusOr<std::unique_ptr<Engine>> Open(const std::string& dir, const Options& options);
  static StatusOr<std::unique_ptr<Engine>> Open(const std::string& dir) {
    return Open(dir, Options{});
  }
  // A store location (Open's `dir`) fit for logs and output: a URL's
  // password replaced by "****".
  static std::string ShownStore(const std::string& store);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Waits until this engine has applied the write whose WriteResult::seq is
  // `token` (and every earlier one): those of `collection` when it names an
  // open collection, else all. Returns at once on the engine that wrote it.
  // DeadlineExceeded when `until` passes first; InvalidArgument for a token
  // the store never handed out.
  Status AwaitWrite(std::string_view collection, std::uint64_t token,
                    std::chrono::steady_clock::time_point until) const;
  // OK while the engine serves what its store has: on a shared store, the
  // follower's last error while it cannot read or apply the changes (the
  // store unreachable); /readyz reports it.
  Status Health() const;
  // A token covering every write acknowledged so far (the store's last
  // sequence): what a write without its own token (creating, dropping or
  // re-embedding a collection, putting a retrieve configuration) returns for
  // AwaitWrite.
  StatusOr<std::uint64_t> LatestToken() const;
  // On a shared store: the sequence up to which this engine has applied
  // every change (for metrics: nodes compare it); nullopt otherwise.
  std::optional<std::uint64_t> Followed() const;

  // InvalidArgument (a message naming the bad part) for a bad spec;
  // AlreadyExists for a taken name.
  Status CreateCollection(const CollectionSpec& spec);
  Status DropCollection(std::string_view name);  // NotFound if absent
  // The collections and their record counts. With a `scope`: the
  // collections it may read (those with a string agent_id field), each with
  // the number of records it can read; DescribeCollection is
  // PermissionDenied for a collection closed to it.
  std::vector<CollectionInfo> ListCollections(
      const std::optional<Scope>& scope = std::nullopt) const;
  StatusOr<CollectionInfo> DescribeCollection(
      std::string_view name, const std::optional<Scope>& scope = std::nullopt) const;

  // Writes records given as JSON object texts (`id`, the text fields,
  // `vector` when the collection has vectors, metadata at top level),
  // replacing records with the same key (id, or agent_id and id: "Record
  // keys"), in one durable batch: all or none.
  // A record failing the schema is `rejected` with its position and the
  // field named. NotFound for an unknown collection; IoError when the store
  // fails (nothing acknowledged then). `progress` is called with the number
  // of records indexed so far.
  // With a `scope`, every record's `agent_id` must be the scope's agent, else
  // the batch is `rejected` (kind "scope.forbidden", code 403) and nothing is
  // written; its records are keyed by its agent, so it never meets another's.
  StatusOr<WriteResult> Upsert(std::string_view collection,
                               std::span<const std::string_view> records,
                               const std::function<void(std::size_t)>& progress = {},
                               const std::optional<Scope>& scope = std::nullopt);
  // Deletes by id (absent ids are ignored; `agent` as "Record keys") or by
  // a filter, durably. With a `scope` only the caller's own records go: an
  // id names its own record, and `agent` naming another agent is
  // PermissionDenied; DeleteWhere removes only its own records that pass the
  // filter. An ambiguous id (FailedPrecondition) deletes nothing.
  StatusOr<WriteResult> Delete(std::string_view collection, std::span<const std::string> ids,
                               const std::optional<Scope>& scope = std::nullopt,
                               const std::optional<std::string>& agent = std::nullopt);
  // DeleteWhere stops when `bounds.deadline` passes (DeadlineExceeded,
  // nothing deleted).
  StatusOr<WriteResult> DeleteWhere(std::string_view collection, FilterDialect dialect,
                                    std::string_view filter,
                                    const std::optional<Scope>& scope = std::nullopt,
                                    const RequestBounds& bounds = {});
  // The stored record `id` names (`agent` as "Record keys") as a JSON object
  // text, or nullopt (also when `scope` cannot read it).
  StatusOr<std::optional<std::string>> Get(
      std::string_view collection, std::string_view id,
      const std::optional<Scope>& scope = std::nullopt,
      const std::optional<std::string>& agent = std::nullopt) const;
  // The same with its version, as of an instant, with its history
  // (GetRequest); failures as Get's.
  StatusOr<GetResponse> Get(std::string_view collection, std::string_view id,
                            const GetRequest& request) const;

  const RecoveryReport& recovery() const;

  // Switches `collection` to the embedder `spec` (its dimension may differ)
  // without stopping searches: every record's text is embedded anew while the
  // old vectors and embedder serve; writes meanwhile are caught up with the
  // writer held briefly at the end; then the new vectors and the new
  // configuration are written in one durable batch and take over in one
  // atomic switch. `progress(done, total)` follows the embedding. Records
  // brought with their own vector are embedded from their text like the
  // others. InvalidArgument for a bad spec or a collection without text
  // fields, or when a record's text gives no vector (named); the embedder's
  // failures as Embed's. Nothing changes on failure.
  struct ReembedReport {
    std::size_t records = 0;    // records embedded
    std::size_t caught_up = 0;  // records written or removed meanwhile, redone at the end
    EmbedderIdentity identity;
    double seconds = 0;
  };
  StatusOr<ReembedReport> Reembed(
      std::string_view collection, const EmbedderSpec& spec,
      const std::function<void(std::size_t, std::size_t)>& progress = {});

  // Tells later openers of the store where this engine serves it (a server's
  // URL), so that their refusal says how to reach it. IoError when the lock
  // file cannot be written. A PostgreSQL store keeps no such note: Ok.
  Status Advertise(std::string_view url);

  // Writes the collection's index snapshots now, so that the next Open
  // loads them instead of replaying records, after linking the vectors
  // staged when called into the graph (so that no Open links them again).
  // Records are durable without it; the engine also checkpoints in the
  // background (Options) and on close.
  Status Checkpoint(std::string_view collection);

  // Writes every collection's tallied hits now (CollectionSpec::
  // hit_count_field), in batches of at most kMaxHitBatch records, durably.
  // The hits tallied meanwhile wait for the next write. IoError when the
  // store fails (the hits stay tallied).
  Status FlushHits();

  // NotFound for an unknown collection; PermissionDenied when `scope` is set
  // and the collection is closed to scoped callers; bad input comes back as
  // `rejected`; DeadlineExceeded when `request.bounds.deadline` passes first
  // (the filter, the retrievers and the listing poll it as they go).
  StatusOr<SearchResponse> Search(std::string_view collection, const SearchRequest& request) const;

  // Listing, counting and faceting the records a caller sees (listing.h),
  // each under the shared lock, so it sees the collection between two
  // batches. NotFound for an unknown collection; PermissionDenied as Search;
  // bad input (filter, order_by, page size or token, field, ranges) comes
  // back as `rejected` with its path; DeadlineExceeded when the deadline
  // passes first. Count is exact, from the metadata indexes.
  StatusOr<ListResponse> List(std::string_view collection, const ListRequest& request) const;
  StatusOr<CountResponse> Count(std::string_view collection, const RecordSelection& selection,
                                const RequestBounds& bounds = {}) const;
  StatusOr<FacetResponse> Facets(std::string_view collection, const FacetRequest& request) const;

  // Named retrieve configurations, kept in the store with their collection
  // (dropped with it). PutRetrieve validates the filter against
  // the collection's schema (`rejected` on error, nothing changes).
  // SetRetrieveFilter replaces the filter atomically (FILTERS.md §1.6): on a
  // bad filter the Diagnostic (code 3007 for the retrieve dialect) is
  // returned and the old filter stays; an empty text clears it. Concurrent
  // Retrieve calls see the old or the new filter, never a mix.
  StatusOr<std::optional<Diagnostic>> PutRetrieve(const RetrieveSpec& spec);
  StatusOr<std::optional<Diagnostic>> SetRetrieveFilter(std::string_view name,
                                                        FilterDialect dialect,
                                                        std::string_view filter);
  StatusOr<RetrieveSpec> GetRetrieve(std::string_view name) const;
  // Runs the configuration with a query (and a vector when the collection
  // has vectors and no text), with the collection's default fusion and
  // ranking, scoped and bounded as Search.
  StatusOr<SearchResponse> Retrieve(std::string_view name, std::string_view query,
                                    std::optional<std::vector<float>> vector = std::nullopt,
                                    const std::optional<Scope>& scope = std::nullopt,
                                    const RequestBounds& bounds = {}) const;
  std::vector<RetrieveSpec> ListRetrieves() const;

  struct Impl;

 private:
  explicit Engine(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace engram

#endif  // ENGRAM_ENGINE_H_
