// What a collection is (SEARCH.md §1) and how it ranks, deduplicates and
// fuses by default: CollectionSpec with its parts (text fields, decay,
// boost, dedup, fusion) and their text forms, and CollectionInfo, what
// Engine::Describe reports. Part of engine.h.
#ifndef ENGRAM_COLLECTION_SPEC_H_
#define ENGRAM_COLLECTION_SPEC_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engram/embedder.h"
#include "engram/filter.h"
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
  // "int8": vector graph walks compute distances on an 8-bit copy of the
  // vectors and re-rank what they keep with the floats (README "Quantised
  // vectors"); "none" (the default): floats throughout. Exact scans always
  // use the floats.
  std::string quantization = "none";
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

}  // namespace engram

#endif  // ENGRAM_COLLECTION_SPEC_H_
