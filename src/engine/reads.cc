// Implements engine.h's reads: get, search and listing. Each runs under a
// Collection::Reader (the shared lock), so it sees the collection between
// two batches; a scope is kept apart from the user's filter and applied
// around everything reported (search::Request::scope, scope.h).
#include <algorithm>
#include <utility>

#include "engine/embedding.h"
#include "engine/engine_impl.h"
#include "engine/internal.h"
#include "engine/ranking.h"
#include "engine/record_key.h"
#include "engine/scope.h"
#include "engine/supersede.h"
#include "text/query/query.h"

namespace engram {

using engine::Collection;

namespace {

static_assert(RequestBounds{}.max_expansions == text::kDefaultMaxExpansions);

// Whether one more hit (its id and record, kHitReplyBytes for the rest and
// `extra` for a ranked hit's factors) fits the reply budget (0: none); adds
// it to *spent when it does.
bool Fits(std::size_t budget, std::size_t* spent, const std::string& id, const std::string& record,
          std::size_t extra = 0) {
  const std::size_t cost = id.size() + record.size() + kHitReplyBytes + extra;
  if (budget > 0 && *spent + cost > budget) return false;
  *spent += cost;
  return true;
}

}  // namespace

StatusOr<std::optional<std::string>> Engine::Get(std::string_view collection, std::string_view id,
                                                 const std::optional<Scope>& scope,
                                                 const std::optional<std::string>& agent) const {
  GetRequest request;
  request.scope = scope;
  request.agent = agent;
  ASSIGN_OR_RETURN(GetResponse got, Get(collection, id, request));
  if (!got.found) return std::optional<std::string>();
  return std::optional<std::string>(std::move(got.found->record));
}

StatusOr<GetResponse> Engine::Get(std::string_view collection, std::string_view id,
                                  const GetRequest& request) const {
  ASSIGN_OR_RETURN(std::shared_ptr<Collection> c, impl_->Find(collection));
  GetResponse response;
  Checked<engine::ReadTime> at = engine::ParseReadTime(request.as_of, impl_->Now());
  if (!at.ok()) {
    response.rejected = at.diagnostic();
    return response;
  }
  const Collection::Reader reader = c->Read();
  ASSIGN_OR_RETURN(std::optional<engine::ScopeTests> tests,
                   engine::MakeScopeTests(*c, request.scope, at.value()));
  ASSIGN_OR_RETURN(
      std::optional<std::uint32_t> doc,
      engine::ResolveId(reader, *c, id, request.scope, tests, request.agent, /*read=*/true));
  if (!doc) return response;
  auto version = [&](std::uint32_t d) {
    const std::vector<Value>& row = *reader.metadata().Row(d);
    RecordVersion v{reader.id_of(d), reader.body_of(d), "", ""};
    if (const Datetime* t = std::get_if<Datetime>(&row[c->written_slot()])) {
      v.written_at = FormatDatetime(*t);
    }
    if (const Datetime* t = std::get_if<Datetime>(&row[c->superseded_slot()])) {
      v.superseded_at = FormatDatetime(*t);
    }
    return v;
  };
  response.found = version(*doc);
  if (request.include_history) {
    // Predecessors are no longer current: read them over every version.
    engine::ReadTime every = at.value();
    every.every_version = true;
    ASSIGN_OR_RETURN(std::optional<engine::ScopeTests> history_tests,
                     engine::MakeScopeTests(*c, request.scope, every));
    for (const std::uint32_t d : engine::History(reader, *c, *doc, history_tests, at.value().as_of,
                                                 &response.history_truncated)) {
      response.history.push_back(version(d));
    }
  }
  return response;
}

StatusOr<SearchResponse> Engine::Impl::Run(const Collection& c, search::Request* request,
                                           const std::optional<Scope>& scope,
                                           const engine::ReadTime& at,
                                           std::size_t max_reply_bytes) const {
  const std::string* agent = scope ? &scope->agent : nullptr;  // whose hits count (below)
  const Collection::Reader reader = c.Read();
  ASSIGN_OR_RETURN(std::optional<filter::CompiledFilter> visible,
                   engine::VisibleFilter(c, scope, at));
  request->scope = visible ? &*visible : nullptr;
  StatusOr<search::Result> result = search::Search(reader.View(), *request);
  SearchResponse response;
  if (!result.ok()) {
    if (result.status().code() != StatusCode::kInvalidArgument) return result.status();
    response.rejected = Diagnostic{400, "request.invalid", "", result.status().message()};
    return response;
  }
  if (result.value().rejected) {
    response.rejected = std::move(result.value().rejected);
    return response;
  }
  const std::vector<search::Hit>& hits = result.value().hits;
  std::size_t spent = 0;
  for (std::size_t i = 0; i < hits.size(); ++i) {
    const search::Hit& h = hits[i];
    if (!Fits(max_reply_bytes, &spent, reader.id_of(h.doc), reader.body_of(h.doc),
              h.final_score ? kRankedHitReplyBytes : 0)) {
      response.truncated = true;
      response.omitted = hits.size() - i;
      break;
    }
    SearchHit hit;
    hit.id = reader.id_of(h.doc);
    hit.score = h.score;
    hit.relevance = h.relevance;
    hit.bm25 = h.bm25;
    hit.distance = h.distance;
    hit.decay = h.decay;
    hit.boost = h.field_boost;
    hit.final_score = h.final_score;
    hit.record = reader.body_of(h.doc);
    response.hits.push_back(std::move(hit));
  }
  if (c.counts_hits() && !response.hits.empty()) {
    // Recall statistics: the returned hits are tallied, in O(hits) under
    // the tally's own mutex; the maintenance writes them (hit_tally.h).
    std::vector<std::string> keys;
    keys.reserve(response.hits.size());
    for (std::size_t i = 0; i < response.hits.size(); ++i) {
      const std::uint32_t doc = hits[i].doc;
      if (agent != nullptr && c.owner_slot() &&
          engine::OwnerOf(*reader.metadata().Row(doc), *c.owner_slot()) != *agent) {
        continue;  // another's record: its statistics are its owner's
      }
      keys.push_back(reader.key_of(doc));
    }
    c.hits().Add(keys, Now());
  }
  if (!result.value().filter_impact.is_null()) {
    response.filter_impact = json::Dump(result.value().filter_impact);
  }
  json::Value& explain = result.value().explain;
  if (!explain.is_null()) {
    if (explain["fusion"].is_object()) {
      // Name each fused hit by its id; record numbers stay internal (they
      // tell of other tenants' records).
      for (json::Value& e : explain["fusion"]["hits"]) {
        e["id"] = reader.id_of(e["doc"].get<std::uint32_t>());
        e.erase("doc");
      }
    }
    response.explain = json::Dump(explain);
  }
  return response;
}

StatusOr<SearchResponse> Engine::Impl::List(const Collection& c,
                                            const filter::CompiledFilter* filter,
                                            const std::optional<Scope>& scope,
                                            const engine::ReadTime& at, std::size_t k,
                                            const Deadline& deadline,
                                            std::size_t max_reply_bytes) const {
  const Collection::Reader reader = c.Read();
  ASSIGN_OR_RETURN(std::optional<filter::CompiledFilter> visible,
                   engine::VisibleFilter(c, scope, at));
  roaring::Roaring allowed = filter != nullptr
                                 ? reader.metadata().Evaluate(filter->optimized.root, &deadline)
                                 : reader.metadata().live();
  if (visible) allowed &= reader.metadata().Evaluate(visible->optimized.root, &deadline);
  RETURN_IF_ERROR(deadline.Check("filtering"));
  const std::optional<std::uint32_t> time_slot = c.time_slot();
  // Newest first (absent times last), then by id: a total order, so pages are stable.
  auto time_of = [&](std::uint32_t doc) -> const Value* {
    if (!time_slot) return nullptr;
    const Value& v = (*reader.metadata().Row(doc))[*time_slot];
    return std::holds_alternative<std::monostate>(v) ? nullptr : &v;
  };
  auto before = [&](std::uint32_t a, std::uint32_t b) {
    const Value* ta = time_of(a);
    const Value* tb = time_of(b);
    if ((ta != nullptr) != (tb != nullptr)) return ta != nullptr;
    if (ta != nullptr) {
      const std::optional<int> order = CompareValues(*ta, *tb);
      if (order && *order != 0) return *order > 0;
    }
    return reader.id_of(a) < reader.id_of(b);
  };
  const std::vector<std::uint32_t> docs = FirstK(
      allowed, k, before, [](std::uint32_t) { return true; }, deadline);
  RETURN_IF_ERROR(deadline.Check("listing"));
  const std::size_t n = docs.size();
  SearchResponse response;
  std::size_t spent = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (!Fits(max_reply_bytes, &spent, reader.id_of(docs[i]), reader.body_of(docs[i]))) {
      response.truncated = true;
      response.omitted = n - i;
      break;
    }
    SearchHit hit;
    hit.id = reader.id_of(docs[i]);
    hit.score = 1;
    hit.relevance = 1;
    hit.record = reader.body_of(docs[i]);
    response.hits.push_back(std::move(hit));
  }
  return response;
}

StatusOr<SearchResponse> Engine::Search(std::string_view collection,
                                        const SearchRequest& request) const {
  ASSIGN_OR_RETURN(std::shared_ptr<Collection> c, impl_->Find(collection));
  const Deadline deadline(request.bounds.deadline);
  SearchResponse rejected;
  search::Request r;
  r.deadline = &deadline;
  r.max_expansions = request.bounds.max_expansions;
  std::optional<Checked<filter::CompiledFilter>> compiled;
  if (!request.filter.empty()) {
    const FilterDialect dialect = request.dialect.value_or(FilterDialect::kVectorFilter);
    compiled.emplace(c->CompileFilter(dialect, request.filter));
    if (!compiled->ok()) {
      rejected.rejected = compiled->diagnostic();
      return rejected;
    }
    r.filter = &compiled->value();
    r.dialect = ToInternal(dialect);
  }
  // One instant for the whole search: what has expired, and what decay
  // measures age from; as_of: which versions it reads.
  const Datetime now = impl_->Now();
  Checked<engine::ReadTime> at = engine::ParseReadTime(request.as_of, now);
  if (!at.ok()) {
    rejected.rejected = at.diagnostic();
    return rejected;
  }
  const bool asks_ranking = (request.decay && !request.decay->field.empty()) ||
                            (request.boost && !request.boost->field.empty());
  if (!request.query && !request.vector) {
    if (asks_ranking) {
      rejected.rejected =
          Diagnostic{400, "request.invalid", request.decay ? "decay" : "boost",
                     "decay and boost rank a query's or a vector's hits; a listing (neither) is "
                     "ordered by time"};
      return rejected;
    }
    if (request.k == 0 || request.k > search::kMaxK) {
      rejected.rejected = Diagnostic{400, "request.invalid", "k",
                                     "k must be in [1, " + std::to_string(search::kMaxK) + "]"};
      return rejected;
    }
    return impl_->List(*c, r.filter, request.scope, at.value(), request.k, deadline,
                       request.bounds.max_reply_bytes);
  }
  if (request.query) {
    text::QueryOptions options;
    if ((rejected.rejected = SetQueryAnchor(request.anchor, "anchor", &options))) return rejected;
    Checked<text::Query> q = text::ParseQuery(*request.query, options);
    if (!q.ok()) {
      rejected.rejected = q.diagnostic();
      return rejected;
    }
    r.query = std::move(q.value().def);
  }
  if (request.vector) {
    r.vector = *request.vector;
  } else if (request.query && request.mode != SearchMode::kText) {
    // A collection with an embedder embeds the query: hybrid from a query
    // alone (before the shared lock: the model may take a while).
    ASSIGN_OR_RETURN(std::optional<std::vector<float>> embedded,
                     engine::QueryVector(*c, *request.query));
    if (embedded) r.vector = std::move(*embedded);
  }
  if (request.mode) {
    r.mode = *request.mode == SearchMode::kText     ? search::Mode::kText
             : *request.mode == SearchMode::kVector ? search::Mode::kVector
                                                    : search::Mode::kHybrid;
  } else if (request.query && !r.vector.empty()) {
    r.mode = search::Mode::kHybrid;
  } else if (!r.vector.empty()) {
    r.mode = search::Mode::kVector;
  } else {
    r.mode = search::Mode::kText;
  }
  r.k = request.k;
  r.candidate_k = request.candidate_k;
  r.filter_mode = request.filter_mode == FilterMode::kPre    ? search::FilterMode::kPre
                  : request.filter_mode == FilterMode::kPost ? search::FilterMode::kPost
                                                             : search::FilterMode::kAuto;
  r.threshold = request.threshold;
  r.score_threshold = request.score_threshold;
  const CollectionSpec& spec = c->spec();
  Checked<search::Ranking> ranking =
      engine::ResolveRanking(c->schema(), request.decay ? request.decay : spec.decay,
                             request.boost ? request.boost : spec.boost, now);
  if (!ranking.ok()) {
    rejected.rejected = ranking.diagnostic();
    return rejected;
  }
  r.ranking = std::move(ranking).value();
  r.fusion = DefaultFusion(c->spec());
  if (request.fusion) {
    StatusOr<search::Fusion> fusion = ToInternal(*request.fusion);
    if (!fusion.ok()) {
      rejected.rejected = Diagnostic{400, "request.invalid", "fusion", fusion.status().message()};
      return rejected;
    }
    r.fusion = *fusion;
  }
  r.explain = request.explain;
  r.impact = request.impact;
  return impl_->Run(*c, &r, request.scope, at.value(), request.bounds.max_reply_bytes);
}

}  // namespace engram
