// Named retrieve configurations (seed 000's Retrieve node) and their
// runtime-replaceable filter (FILTERS.md §1.6): a new filter is compiled
// outside any lock and published by swapping one shared pointer, so a
// Retrieve in flight keeps the state it started with and a failed compile
// leaves the old filter in effect.
#include <utility>

#include "engine/engine_impl.h"
#include "engine/internal.h"
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

}  // namespace

StatusOr<std::optional<Diagnostic>> Engine::PutRetrieve(const RetrieveSpec& spec) {
  if (spec.name.empty() || spec.name.size() > 128) {
    return Status::InvalidArgument("retrieve name must be 1-128 bytes");
  }
  if (spec.top_k == 0 || spec.top_k > search::kMaxK) {
    return Status::InvalidArgument("top_k must be in [1, " + std::to_string(search::kMaxK) + "]");
  }
  if (!(spec.threshold >= 0)) return Status::InvalidArgument("threshold must be >= 0");
  ASSIGN_OR_RETURN(std::shared_ptr<engine::Collection> c, impl_->Find(spec.collection));
  Checked<std::shared_ptr<const filter::CompiledFilter>> compiled =
      CompileOrClear(spec.dialect, spec.filter, *c);
  if (!compiled.ok()) return std::optional<Diagnostic>(compiled.diagnostic());
  auto state = std::make_shared<const RetrieveState>(RetrieveState{spec, compiled.value()});
  std::lock_guard<std::mutex> lock(impl_->retrieve_mutex);
  impl_->retrieves[spec.name] = std::move(state);
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
  std::lock_guard<std::mutex> lock(impl_->retrieve_mutex);
  impl_->retrieves[std::string(name)] = std::make_shared<const RetrieveState>(std::move(next));
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
                                          const std::optional<Scope>& scope) const {
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
  const bool text = c->has_text() && !Blank(query);
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
  std::optional<filter::CompiledFilter> scoped;
  if (scope) {
    ASSIGN_OR_RETURN(filter::Node read, engine::ScopeReadNode(c->schema(), *scope, c->spec().name));
    scoped.emplace(engine::Restrict(r.filter, std::move(read), c->spec().schema.get()));
    r.filter = &*scoped;
  }
  r.dialect = ToInternal(state->spec.dialect);
  r.k = state->spec.top_k;
  // The threshold is a distance (SEARCH.md §2): it applies when vectors are searched.
  if (vectors && state->spec.threshold > 0) r.threshold = state->spec.threshold;
  return impl_->Run(*c, r);
}

}  // namespace engram
