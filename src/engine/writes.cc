// Implements engine.h's writes: upserts and deletes. Every write checks its
// input first (a rejected batch writes nothing), then, holding the
// collection's Writer, makes the batch durable in the store and applies it
// to the indexes. The store is the truth: a crash between the two loses only
// index work, which recovery redoes.
#include <algorithm>
#include <cstring>
#include <map>
#include <unordered_map>
#include <utility>

#include "engine/dedup.h"
#include "engine/embedding.h"
#include "engine/engine_impl.h"
#include "engine/scope.h"
#include "engine/supersede.h"
#include "engine/touch.h"

namespace engram {

using engine::Collection;
using engine::PreparedRecord;

namespace {

Diagnostic ForbiddenWrite(std::string path, std::string message) {
  return Diagnostic{403, "scope.forbidden", std::move(path), std::move(message)};
}

WriteResult Rejected(Diagnostic diagnostic, std::size_t index = 0) {
  WriteResult rejected;
  rejected.rejected = std::move(diagnostic);
  rejected.rejected_index = index;
  return rejected;
}

// The records of a batch, the same key twice reduced to its last record (as
// two batches would leave it). Keys, not ids: in a collection keyed by owner
// two agents' records with one id are two records (engine.h, "Record keys").
std::vector<PreparedRecord> LastOfEachKey(std::vector<PreparedRecord> prepared) {
  std::unordered_map<std::string_view, std::size_t> last;
  for (std::size_t i = 0; i < prepared.size(); ++i) last[prepared[i].key] = i;
  std::vector<PreparedRecord> unique;
  unique.reserve(last.size());
  for (std::size_t i = 0; i < prepared.size(); ++i) {
    if (last[prepared[i].key] == i) unique.push_back(std::move(prepared[i]));
  }
  return unique;
}

}  // namespace

StatusOr<WriteResult> Engine::Upsert(std::string_view collection,
                                     std::span<const std::string_view> records,
                                     const std::function<void(std::size_t)>& progress,
                                     const std::optional<Scope>& scope) {
  // A collection switching embedders (Reembed) is replaced by a new
  // incarnation under the same name: a write that prepared its records for
  // the old one prepares them again for the new.
  return impl_->OnCurrent(
      collection, [&](Collection& c) { return impl_->Upsert(c, records, progress, scope); });
}

StatusOr<WriteResult> Engine::Impl::Upsert(Collection& c, std::span<const std::string_view> records,
                                           const std::function<void(std::size_t)>& progress,
                                           const std::optional<Scope>& scope) {
  const std::string& collection = c.spec().name;
  // One instant for the write: what the scope tests count as expired, what
  // dedup does, when its records are written and what they supersede.
  const Datetime now = Now();
  ASSIGN_OR_RETURN(std::optional<engine::ScopeTests> tests,
                   engine::MakeScopeTests(c, scope, engine::ReadTime{now, std::nullopt, true}));
  // Check every record before anything is written: a rejected batch writes nothing.
  std::vector<PreparedRecord> prepared;
  prepared.reserve(records.size());
  for (std::size_t i = 0; i < records.size(); ++i) {
    Checked<PreparedRecord> r = c.Prepare(records[i]);
    if (!r.ok()) return Rejected(r.diagnostic(), i);
    if (tests && !tests->owns.Matches(r.value().slots)) {
      return Rejected(ForbiddenWrite("agent_id", "a record's agent_id must be '" + scope->agent +
                                                     "', the caller's agent"),
                      i);
    }
    prepared.push_back(std::move(r).value());
    prepared.back().position = i;
  }
  // Records without a vector are embedded before the writer is taken: the
  // model (or an endpoint) may take a while, and nothing is acknowledged
  // without its vector.
  ASSIGN_OR_RETURN(auto refused, engine::EmbedRecords(c, prepared));
  if (refused) return Rejected(refused->first, refused->second);
  // A scoped writer's records all carry its agent, so their keys are its
  // own: it can only ever replace its own records.
  std::vector<PreparedRecord> unique = LastOfEachKey(std::move(prepared));

  ASSIGN_OR_RETURN(Collection::Writer writer, c.Write());
  WriteResult result;
  // Within one owner only: a scoped writer's records are all its own, and
  // so are the records their duplicates refresh.
  std::map<std::uint32_t, Datetime> refresh;
  result.deduplicated = engine::Deduplicate(c, writer, now, &unique, &refresh);
  // Every record is written now and current; the records it names in
  // `supersedes` (its owner's) stop being current now, in the same batch.
  ASSIGN_OR_RETURN(engine::Supersession supersession,
                   engine::Supersede(c, writer, *store, now, &unique));
  if (supersession.rejected) {
    return Rejected(std::move(*supersession.rejected), supersession.rejected_index);
  }
  result.superseded = std::move(supersession.report);
  storage::WriteBatch batch;
  // Refreshed records go in the same batch: touched, not written again.
  std::vector<engine::TouchedRecord> touched;
  for (const auto& [doc, t] : refresh) {
    ASSIGN_OR_RETURN(std::optional<engine::TouchedRecord> r, engine::RefreshStored(writer, doc, t));
    if (!r) continue;
    batch.touches.push_back({writer.key_of(doc), r->body});
    touched.push_back(std::move(*r));
  }
  std::vector<std::uint32_t> docs;
  std::vector<PreparedRecord> ordered;
  batch.puts.reserve(unique.size() + supersession.puts.size());
  docs.reserve(unique.size() + supersession.docs.size());
  ordered.reserve(unique.size() + supersession.records.size());
  for (PreparedRecord& r : unique) {
    const std::uint32_t doc = writer.Assign(r.key);
    docs.push_back(doc);
    batch.puts.push_back({r.key, doc, c.StoredBodyOf(r), engine::VectorBytes(r.vector)});
    ordered.push_back(std::move(r));
  }
  const std::size_t written = docs.size();
  // Every record was a duplicate (and so superseded nothing), none refreshing.
  if (written == 0 && touched.empty()) return result;
  for (std::size_t i = 0; i < supersession.docs.size(); ++i) {
    batch.puts.push_back(std::move(supersession.puts[i]));
    docs.push_back(supersession.docs[i]);
    ordered.push_back(std::move(supersession.records[i]));
  }
  batch.after = writer.applied_seq();
  ASSIGN_OR_RETURN(const std::uint64_t seq, store->Apply(collection, batch));
  result.seq = seq;
  Status indexed =
      writer.Apply(seq, docs, std::move(ordered), options.threads, progress, std::move(touched));
  maintenance->Wake();
  if (!indexed.ok()) {
    return Status::Internal("records are stored but indexing failed: " + indexed.message());
  }
  result.written = written;
  return result;
}

StatusOr<WriteResult> Engine::Impl::RemoveDocs(Collection::Writer& writer,
                                               const std::vector<std::uint32_t>& docs) {
  WriteResult result;
  ASSIGN_OR_RETURN(result.seq, engine::RemoveStored(*store, writer, docs));
  result.written = docs.size();
  if (result.written > 0) maintenance->Wake();
  return result;
}

StatusOr<WriteResult> Engine::Delete(std::string_view collection, std::span<const std::string> ids,
                                     const std::optional<Scope>& scope,
                                     const std::optional<std::string>& agent) {
  return impl_->OnCurrent(collection,
                          [&](Collection& c) { return impl_->DeleteIds(c, ids, scope, agent); });
}

StatusOr<WriteResult> Engine::Impl::DeleteIds(Collection& c, std::span<const std::string> ids,
                                              const std::optional<Scope>& scope,
                                              const std::optional<std::string>& agent) {
  ASSIGN_OR_RETURN(Collection::Writer writer, c.Write());
  // Superseded records are deleted like the others: forgetting forgets history.
  ASSIGN_OR_RETURN(std::optional<engine::ScopeTests> tests,
                   engine::MakeScopeTests(c, scope, engine::ReadTime{Now(), std::nullopt, true}));
  std::vector<std::uint32_t> docs;
  for (const std::string& id : ids) {
    // A scoped caller's ids name its own records only (scope.h).
    ASSIGN_OR_RETURN(std::optional<std::uint32_t> doc,
                     engine::ResolveId(writer, c, id, scope, tests, agent, /*read=*/false));
    if (doc) docs.push_back(*doc);
  }
  std::sort(docs.begin(), docs.end());
  docs.erase(std::unique(docs.begin(), docs.end()), docs.end());
  return RemoveDocs(writer, docs);
}

StatusOr<WriteResult> Engine::DeleteWhere(std::string_view collection, FilterDialect dialect,
                                          std::string_view filter_text,
                                          const std::optional<Scope>& scope,
                                          const RequestBounds& bounds) {
  const Deadline deadline(bounds.deadline);
  return impl_->OnCurrent(collection, [&](Collection& c) -> StatusOr<WriteResult> {
    Checked<filter::CompiledFilter> compiled = c.CompileFilter(dialect, filter_text);
    if (!compiled.ok()) return Rejected(compiled.diagnostic());
    if (scope) {
      ASSIGN_OR_RETURN(filter::Node own, engine::ScopeOwnNode(c.schema(), *scope, collection));
      compiled = engine::Restrict(&compiled.value(), std::move(own), c.spec().schema.get());
    }
    // Expired records are gone already as far as callers know (the count
    // deleted says nothing of them); the maintenance purges them.
    if (std::optional<filter::Node> expired = engine::ExpiredNode(c, impl_->Now())) {
      compiled = engine::Restrict(&compiled.value(), filter::MakeNot(std::move(*expired)),
                                  c.spec().schema.get());
    }
    ASSIGN_OR_RETURN(Collection::Writer writer, c.Write());
    // No other writer can change the collection now: the metadata index is
    // read without the shared lock.
    const roaring::Roaring matched =
        writer.metadata().Evaluate(compiled.value().optimized.root, &deadline);
    RETURN_IF_ERROR(deadline.Check("filtering"));  // nothing deleted
    const std::vector<std::uint32_t> docs(matched.begin(), matched.end());
    return impl_->RemoveDocs(writer, docs);
  });
}

}  // namespace engram
