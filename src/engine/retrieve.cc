// Named retrieve configurations (seed 000's Retrieve node) and their
// runtime-replaceable filter (FILTERS.md §1.6): a new filter is compiled
// outside any lock and published by swapping one shared pointer, so a
// Retrieve in flight keeps the state it started with and a failed compile
// leaves the old filter in effect. Each collection's configurations are
// kept in the store (a "retrieves" snapshot) and loaded on open.
#include <utility>

#include "engine/embedding.h"
#include "engine/engine_impl.h"
#include "engine/internal.h"
#include "engine/ranking.h"
#include "engine/scope.h"
#include "text/query/query.h"

namespace engram {
namespace {

bool Blank(std::string_view s) {
  return s.find_first_not_of(" \t\r\n") == std::string_view::npos;
}

// The compiled filter for `text`, null for a blank one; the Diagnostic on error.
Checked<std::shared_ptr<const filter::CompiledFilter>> CompileOrClear(FilterDialect dialect,
                                                                      std::string_view text,
                                                                      const engine::Collection& c) {
  if (Blank(text)) return std::shared_ptr<const filter::CompiledFilter>();
  Checked<filter::CompiledFilter> compiled = c.CompileFilter(dialect, text);
  if (!compiled.ok()) return compiled.diagnostic();
  return std::make_shared<const filter::CompiledFilter>(std::move(compiled).value());
}

// What a retrieve configuration must be when put, and when read back from
// the store (a damaged one is Corruption there).
Status CheckRetrieve(const RetrieveSpec& spec) {
  if (spec.name.empty() || spec.name.size() > 128) {
    return Status::InvalidArgument("retrieve name must be 1-128 bytes");
  }
  if (spec.top_k == 0 || spec.top_k > search::kMaxK) {
    return Status::InvalidArgument("top_k must be in [1, " + std::to_string(search::kMaxK) + "]");
  }
  if (!(spec.threshold >= 0)) return Status::InvalidArgument("threshold must be >= 0");
  return Status::Ok();
}

json::Value SpecJson(const RetrieveSpec& spec) {
  return {{"name", spec.name},
          {"dialect", FilterDialectName(spec.dialect)},
          {"filter", spec.filter},
          {"top_k", spec.top_k},
          {"threshold", spec.threshold},
          {"mode", spec.mode == SearchMode::kText     ? "text"
                   : spec.mode == SearchMode::kVector ? "vector"
                                                      : "hybrid"}};
}

}  // namespace

Status Engine::Impl::PublishRetrieve(std::shared_ptr<const RetrieveState> state) {
  std::lock_guard<std::mutex> lock(retrieve_mutex);
  // The collection's configurations as they will be, durable before they are visible.
  json::Value doc = json::Value::array();
  for (const auto& [name, other] : retrieves) {
    if (name != state->spec.name && other->spec.collection == state->spec.collection) {
      doc.push_back(SpecJson(other->spec));
    }
  }
  doc.push_back(SpecJson(state->spec));
  RETURN_IF_ERROR(
      store->PutSnapshot(state->spec.collection, kRetrieveSnapshot, {0, json::Dump(doc)}));
  retrieves[state->spec.name] = std::move(state);
  return Status::Ok();
}

Status Engine::Impl::LoadRetrieves(const engine::Collection& c) {
  const std::string& collection = c.spec().name;
  ASSIGN_OR_RETURN(std::optional<storage::Snapshot> snapshot,
                   store->GetSnapshot(collection, kRetrieveSnapshot));
  if (!snapshot) return Status::Ok();
  auto corrupt = [&](const std::string& what) {
    return Status::Corruption("collection '" + collection + "': retrieve configurations: " + what);
  };
  json::ReadOptions unbounded;  // written by us; its size was bounded on the way in
  unbounded.max_bytes = 0;
  json::ReadResult read = json::Read(snapshot->bytes, unbounded);
  if (!read.ok() || !read.value.is_array()) return corrupt("not a JSON array");
  try {
    for (const json::Value& doc : read.value) {
      RetrieveSpec spec;
      spec.name = doc.at("name").get<std::string>();
      spec.collection = collection;
      const std::optional<FilterDialect> dialect =
          FilterDialectFromName(doc.at("dialect").get<std::string>());
      const std::optional<SearchMode> mode = SearchModeFromName(doc.at("mode").get<std::string>());
      if (!dialect || !mode) return corrupt("unknown dialect or mode");
      spec.dialect = *dialect;
      spec.mode = *mode;
      spec.filter = doc.at("filter").get<std::string>();
      spec.top_k = json::GetCount(doc.at("top_k"));
      spec.threshold = doc.at("threshold").get<double>();
      if (Status checked = CheckRetrieve(spec); !checked.ok()) return corrupt(checked.message());
      Checked<std::shared_ptr<const filter::CompiledFilter>> compiled =
          CompileOrClear(spec.dialect, spec.filter, c);
      if (!compiled.ok()) return corrupt(compiled.diagnostic().message);
      retrieves[spec.name] =
          std::make_shared<const RetrieveState>(RetrieveState{spec, compiled.value()});
    }
  } catch (const json::Value::exception& e) {
    return corrupt(e.what());
  }
  return Status::Ok();
}

StatusOr<std::optional<Diagnostic>> Engine::PutRetrieve(const RetrieveSpec& spec) {
  RETURN_IF_ERROR(CheckRetrieve(spec));
  ASSIGN_OR_RETURN(std::shared_ptr<engine::Collection> c, impl_->Find(spec.collection));
  Checked<std::shared_ptr<const filter::CompiledFilter>> compiled =
      CompileOrClear(spec.dialect, spec.filter, *c);
  if (!compiled.ok()) return std::optional<Diagnostic>(compiled.diagnostic());
  {
    std::lock_guard<std::mutex> lock(impl_->retrieve_mutex);
    auto it = impl_->retrieves.find(spec.name);
    if (it != impl_->retrieves.end() && it->second->spec.collection != spec.collection) {
      return Status::AlreadyExists("retrieve configuration '" + spec.name +
                                   "' belongs to collection '" + it->second->spec.collection + "'");
    }
  }
  RETURN_IF_ERROR(impl_->PublishRetrieve(
      std::make_shared<const RetrieveState>(RetrieveState{spec, compiled.value()})));
  return std::optional<Diagnostic>();
}

StatusOr<std::optional<Diagnostic>> Engine::SetRetrieveFilter(std::string_view name,
                                                              FilterDialect dialect,
                                                              std::string_view text) {
  std::shared_ptr<const RetrieveState> old;
  {
    std::lock_guard<std::mutex> lock(impl_->retrieve_mutex);
    auto it = impl_->retrieves.find(name);
    if (it == impl_->retrieves.end()) {
      return Status::NotFound("no retrieve configuration named '" + std::string(name) + "'");
    }
    old = it->second;
  }
  ASSIGN_OR_RETURN(std::shared_ptr<engine::Collection> c, impl_->Find(old->spec.collection));
  Checked<std::shared_ptr<const filter::CompiledFilter>> compiled =
      CompileOrClear(dialect, text, *c);
  if (!compiled.ok()) return std::optional<Diagnostic>(compiled.diagnostic());
  RetrieveState next{old->spec, compiled.value()};
  next.spec.dialect = dialect;
  next.spec.filter = Blank(text) ? std::string() : std::string(text);
  RETURN_IF_ERROR(impl_->PublishRetrieve(std::make_shared<const RetrieveState>(std::move(next))));
  return std::optional<Diagnostic>();
}

StatusOr<RetrieveSpec> Engine::GetRetrieve(std::string_view name) const {
  std::lock_guard<std::mutex> lock(impl_->retrieve_mutex);
  auto it = impl_->retrieves.find(name);
  if (it == impl_->retrieves.end()) {
    return Status::NotFound("no retrieve configuration named '" + std::string(name) + "'");
  }
  return it->second->spec;
}

std::vector<RetrieveSpec> Engine::ListRetrieves() const {
  std::lock_guard<std::mutex> lock(impl_->retrieve_mutex);
  std::vector<RetrieveSpec> specs;
  for (const auto& [name, state] : impl_->retrieves) specs.push_back(state->spec);
  return specs;
}

StatusOr<SearchResponse> Engine::Retrieve(std::string_view name, std::string_view query,
                                          std::optional<std::vector<float>> vector,
                                          const std::optional<Scope>& scope,
                                          const RequestBounds& bounds) const {
  const Deadline deadline(bounds.deadline);
  std::shared_ptr<const RetrieveState> state;
  {
    std::lock_guard<std::mutex> lock(impl_->retrieve_mutex);
    auto it = impl_->retrieves.find(name);
    if (it == impl_->retrieves.end()) {
      return Status::NotFound("no retrieve configuration named '" + std::string(name) + "'");
    }
    state = it->second;  // this call runs with this state to the end
  }
  ASSIGN_OR_RETURN(std::shared_ptr<engine::Collection> c, impl_->Find(state->spec.collection));
  search::Request r;
  r.deadline = &deadline;
  r.max_expansions = bounds.max_expansions;
  const bool text = c->has_text() && !Blank(query);
  if (!vector && text && state->spec.mode != SearchMode::kText) {
    ASSIGN_OR_RETURN(vector, engine::QueryVector(*c, query));  // with an embedder
  }
  const bool vectors = c->has_vectors() && vector.has_value();
  if (text) {
    Checked<text::Query> q = text::ParseQuery(query, text::QueryOptions{});
    if (!q.ok()) {
      SearchResponse rejected;
      rejected.rejected = q.diagnostic();
      return rejected;
    }
    r.query = std::move(q.value().def);
  }
  if (vectors) r.vector = std::move(*vector);
  r.mode = text && vectors ? search::Mode::kHybrid
           : vectors       ? search::Mode::kVector
                           : search::Mode::kText;
  if (state->spec.mode == SearchMode::kText && text) r.mode = search::Mode::kText;
  if (state->spec.mode == SearchMode::kVector && vectors) r.mode = search::Mode::kVector;
  r.filter = state->filter.get();
  const Datetime now = impl_->Now();  // expiry's and decay's
  r.dialect = ToInternal(state->spec.dialect);
  r.k = state->spec.top_k;
  r.fusion = DefaultFusion(c->spec());
  // The collection's default ranking, as a search that names none gets it.
  Checked<search::Ranking> ranking =
      engine::ResolveRanking(c->schema(), c->spec().decay, c->spec().boost, now);
  if (!ranking.ok()) {
    SearchResponse rejected;
    rejected.rejected = ranking.diagnostic();
    return rejected;
  }
  r.ranking = std::move(ranking).value();
  // The threshold is a distance (SEARCH.md §2): it applies when vectors are searched.
  if (vectors && state->spec.threshold > 0) r.threshold = state->spec.threshold;
  return impl_->Run(*c, &r, scope, engine::ReadTime{now}, bounds.max_reply_bytes);
}

}  // namespace engram
