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

#include "engram/diagnostic.h"
#include "engram/embedder.h"
#include "engram/filter.h"
#include "engram/listing.h"
#include "engram/request.h"
#include "engram/status.h"

namespace engram {

struct TextFieldSpec {
  std::string name;
  double weight = 1.0;
};

// Recency and importance in ranking (README "Ranking"), off unless a search
// or its collection asks: each hit's
//   final_score = relevance * decay * boost
// where decay = max(floor, f(|t - now|)) on a datetime field t, f one of
// Elasticsearch's decay functions (exp, gauss, linear; 1 within `offset`,
// 0.5 at offset + scale; 1 for a record without a value), and boost =
// max(0, 1 + weight * v) for a numeric field v (0 when absent). The
// candidates are re-sorted by the final score before the cut to k;
// score_threshold still compares the relevance.
enum class DecayFunction { kExp, kGauss, kLinear };
struct DecaySpec {
  std::string field;  // a datetime field; empty: no decay ("off")
  DecayFunction function = DecayFunction::kExp;
  double scale_seconds = 0;   // > 0
  double offset_seconds = 0;  // >= 0
  double floor = 0;           // in [0, 1]: the factor never goes below it
};
struct BoostSpec {
  std::string field;  // an int or float field; empty: no boost ("off")
  double weight = 1;  // finite, >= 0
};
// The text forms of the CLI and the HTTP API: "off", or
// "FIELD:exp|gauss|linear:SCALE[:OFFSET[:FLOOR]]" with durations as a number
// and a unit (s, m, h, d, w: "30d", "1.5h"), and "off" or "FIELD[:WEIGHT]".
// InvalidArgument naming the bad part. Fields are checked against a schema
// where the spec is used.
StatusOr<DecaySpec> ParseDecay(std::string_view text);
StatusOr<BoostSpec> ParseBoost(std::string_view text);
std::string DecayText(const DecaySpec& decay);  // what ParseDecay reads back
std::string BoostText(const BoostSpec& boost);

// Deduplication on write (README "Deduplication"), per collection and within
// one owner (a record's agent_id; the whole collection when it has no
// agent_id field), so that one agent's record is never a duplicate of
// another's. exact: the same normalised content (every text field, NFC,
// case-folded, white space collapsed); near: the record's vector (the given
// one, or one computed on write) has similarity >= threshold (cosine: the
// cosine similarity; dot: the inner product; l2: 1 / (1 + distance)) to a
// record of the owner. A duplicate is not written; the write reports it with
// the id of the record it duplicates and what the action did:
// - skip (the default): nothing else;
// - refresh: the existing record's time (the collection's `time_field`,
//   which refresh requires) becomes the later of its value and the
//   duplicate's (the engine's clock when the duplicate has none), in the
//   same durable batch as the write's other records, so that listings by
//   record time and a decay on that field count the memory as recent again.
//   Nothing else of the record changes (its other fields, its TTL, its
//   text and vector). A duplicate of a record earlier in the same batch
//   refreshes that record before it is written.
enum class DedupMode { kOff, kExact, kNear };
enum class DedupAction { kSkip, kRefresh };
struct DedupSpec {
  DedupMode mode = DedupMode::kOff;
  double threshold = 0;  // near: finite; within (0, 1] for cosine and l2
  DedupAction action = DedupAction::kSkip;
};
// "off", or "exact" or "near:THRESHOLD" followed by ":skip" (the default)
// or ":refresh" ("exact:refresh", "near:0.92:refresh"); InvalidArgument
// naming the bad part.
StatusOr<DedupSpec> ParseDedup(std::string_view text);
std::string DedupText(const DedupSpec& dedup);  // what ParseDedup reads back
// How a write reports a duplicate's action: "skipped" or "refreshed".
std::string_view DedupActionName(DedupAction action);

// How hybrid search fuses its text and vector lists (docs/search.md
// "Fusion"): `rrf` (Reciprocal Rank Fusion, sum of 1/(rrf_k + rank)),
// `weighted_rrf` (each list's term times its weight), `convex` (alpha x the
// vector similarity + (1 - alpha) x BM25, each normalised over its
// retriever's candidates by `min_max` or `z_score`).
struct FusionSpec {
  std::string method = "rrf";                 // rrf | weighted_rrf | convex
  std::size_t rrf_k = 60;                     // rrf, weighted_rrf: 0..1000000
  double text_weight = 1, vector_weight = 1;  // weighted_rrf: >= 0, not both 0
  double alpha = 0.5;                         // convex: in [0, 1]
  std::string normalization = "min_max";      // convex: min_max | z_score
  bool operator==(const FusionSpec&) const = default;
};

// The text form `METHOD[:NAME=VALUE,...]`: `rrf`, `rrf:k=40`,
// `weighted_rrf:text=1,vector=2,k=60`, `convex:alpha=0.7,normalization=z_score`.
// InvalidArgument naming the part ("fusion: alpha: must be within [0, 1], got
// 2"). Unnamed parameters keep their defaults.
StatusOr<FusionSpec> ParseFusion(std::string_view text);
// The canonical text form: the method and the parameters it uses.
std::string FusionText(const FusionSpec& spec);

// Hybrid search's default for a collection with an embedder, chosen on
// BEIR SciFact (bench/RESULTS.md "Fusion"); see CollectionSpec::fusion.
FusionSpec DefaultEmbedderFusion();

// Recall statistics' bounds (CollectionSpec::hit_count_field): the records
// with tallied hits a collection keeps in memory (the hits of a record past
// it are dropped and counted, CollectionInfo::hits_dropped), and the records
// one write of the tally updates.
inline constexpr std::size_t kMaxPendingHitRecords = 65536;
inline constexpr std::size_t kMaxHitBatch = 1000;

// What a collection is (SEARCH.md §1): at least one of text and vectors.
// CollectionSpec::graph_min_records unless given.
inline constexpr std::size_t kDefaultGraphMinRecords = 5000;

struct CollectionSpec {
  std::string name;  // 1-64 of [A-Za-z0-9_.-], not starting with '.'
  SchemaRef schema;
  std::vector<TextFieldSpec> text;  // the full-text fields, with weights
  std::size_t vector_dim = 0;       // 0: no vectors
  std::string metric = "cosine";    // cosine | dot | l2 (with vectors)
  std::string language = "en";      // en | nl | none: stemming of text fields
  std::string time_field;           // a datetime field for temporal hints, or empty
  // The ranking of searches that name none (see DecaySpec); unset: off.
  std::optional<DecaySpec> decay = std::nullopt;
  std::optional<BoostSpec> boost = std::nullopt;
  DedupSpec dedup = DedupSpec{};
  // An embedder (embedder.h: model2vec:DIR, fasttext:FILE, openai:URL#MODEL)
  // that embeds the text fields of every record written without a `vector`
  // (their non-empty values joined by line breaks) and the query of a search
  // given no vector. `vector_dim` 0 takes the embedder's dimension. Empty:
  // none, the records bring their vectors.
  std::string embedder = {};
  // Set by the engine when it creates the collection (given values are
  // ignored): what `embedder` was then. Opening the collection later with a
  // model that differs is refused (reembed switches models).
  EmbedderIdentity embedder_identity = {};
  // Hybrid search's default fusion; unset: DefaultEmbedderFusion() with an
  // embedder, else RRF with k = 60 (SEARCH.md §2).
  std::optional<FusionSpec> fusion = std::nullopt;
  // A datetime field naming when a record expires, or empty. A record whose
  // value is at or before now (Engine::Options::clock) is invisible to every
  // read at once, whatever the scope and filter, and is deleted durably by
  // the engine's maintenance soon after. Records without it never expire.
  std::string ttl_field = {};
  // Recall statistics (README "Recall statistics"): an int field counting
  // the searches that returned a record and a datetime field holding the
  // last such search's time (Options::clock), or empty for none. A search
  // only tallies its hits in memory; the engine's maintenance writes the
  // tally in batches (Options::hit_flush_interval_ms), a metadata-only
  // update that leaves the record's text, vector, dedup identity and time
  // alone. A scoped search counts its agent's own records only. Neither
  // may be the time_field or the ttl_field.
  std::string hit_count_field = {};
  std::string last_hit_field = {};
  // Filterable string, bool or set<string> fields whose frequent values each
  // get their own vector graph (a collection with vectors only): a vector
  // search filtered on such values, or scoped to an agent when agent_id is
  // one, walks the graphs of those values instead of scanning the allowed
  // records or walking the whole graph through records it may not return.
  // Values with graph_min_records records get a graph; each holds a copy of
  // its records' vectors (memory: README "Graph fields"). At most
  // kMaxGraphFields.
  std::vector<std::string> graph_fields = {};
  // The records a value needs for its own graph (16 or more); half as many
  // and it loses it.
  std::size_t graph_min_records = kDefaultGraphMinRecords;
};
inline constexpr std::size_t kMaxGraphFields = 8;

// The TTL field a collection created from the schema `schema_spec` (as
// SchemaRef::Load takes it) has unless told otherwise: `expires_at` for
// `preset:notes`, else none ("").
std::string_view DefaultTtlField(std::string_view schema_spec);
// The same for the hit fields: `hit_count` and `last_hit_at` for
// `preset:notes`, else none.
std::string_view DefaultHitCountField(std::string_view schema_spec);
std::string_view DefaultLastHitField(std::string_view schema_spec);

struct CollectionInfo {
  CollectionSpec spec;
  std::size_t records = 0;  // those the caller can see (unexpired, in its scope)
  // Expired records the maintenance deleted since the store was opened.
  std::uint64_t purged = 0;
  // Recall statistics: searches' hits tallied since the store was opened,
  // and those dropped because the tally was full (kMaxPendingHitRecords).
  std::uint64_t hits_tallied = 0;
  std::uint64_t hits_dropped = 0;
};

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

enum class SearchMode { kText, kVector, kHybrid };
enum class FilterMode { kAuto, kPre, kPost };

std::optional<SearchMode> SearchModeFromName(std::string_view name);  // text|vector|hybrid
std::optional<FilterMode> FilterModeFromName(std::string_view name);  // auto|pre|post

// With neither `query` nor `vector` a search is a listing: the k records
// passing the filter, newest `time_field` first (then by id; by id alone
// when the collection has no time field), with relevance 1 and no
// thresholds applied.
struct SearchRequest {
  std::optional<std::string> query;          // the text query (QUERY_DSL.md, default profile)
  std::optional<std::vector<float>> vector;  // the query vector
  std::optional<Scope> scope;                // the caller (SEARCH.md §6); nullopt: unscoped
  std::optional<SearchMode> mode;            // default: hybrid with both, else the one given
  std::optional<FilterDialect> dialect;
  std::string filter;  // the filter text in `dialect`; empty: none
  std::size_t k = 10;
  std::optional<std::size_t> candidate_k;  // default max(k, 60)
  FilterMode filter_mode = FilterMode::kAuto;
  std::optional<double> threshold;        // a distance cut-off in the metric's terms
  std::optional<double> score_threshold;  // a floor on relevance, in [0, 1]
  // Ranking (see DecaySpec): each, when set, replaces the collection's
  // default (an empty field switches it off). Not with a listing.
  std::optional<DecaySpec> decay;
  std::optional<BoostSpec> boost;
  std::optional<FusionSpec> fusion;  // hybrid; default: the collection's
  std::string anchor;                // YYYY-MM-DD for temporal hints; empty: today
  std::string as_of = {};            // the records current then (see Superseded); empty: now
  bool explain = false;
  bool impact = false;
  RequestBounds bounds;
};

struct SearchHit {
  std::string id;
  double score = 0;      // text: BM25; vector: similarity; hybrid: the fused score
  double relevance = 0;  // in [0, 1] (SEARCH.md §5)
  std::optional<double> bm25;
  std::optional<double> distance;
  std::string record;  // the stored record as a JSON object (without its vector)
  // A ranked search's factors (see DecaySpec): set when the search ranked
  // by decay or boost (each when it applied), with the final score.
  std::optional<double> decay = std::nullopt, boost = std::nullopt, final_score = std::nullopt;
};

struct SearchResponse {
  std::vector<SearchHit> hits;  // best first
  // The hits past RequestBounds::max_reply_bytes were left out: how many.
  bool truncated = false;
  std::size_t omitted = 0;
  std::optional<Diagnostic> rejected;  // bad input (filter, query, request); no hits then
  std::string filter_impact;           // JSON text (SEARCH.md §3) when asked and filtered
  std::string explain;                 // JSON text when asked
};

// A named retrieve configuration (seed 000's Retrieve node).
struct RetrieveSpec {
  std::string name;
  std::string collection;
  FilterDialect dialect = FilterDialect::kRetrieve;
  std::string filter;  // empty: none
  std::size_t top_k = 10;
  double threshold = 0.5;  // a distance cut-off; 0 disables it
  SearchMode mode = SearchMode::kHybrid;
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
