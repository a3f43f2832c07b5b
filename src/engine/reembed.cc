// Engine::Reembed: a collection switches embedders without stopping its
// searches. A new incarnation of the collection (the new spec: embedder,
// identity, dimension) is built beside the old one from the records the
// store holds, each embedded with the new model, while the old incarnation
// goes on serving searches and taking writes. Then, holding the old
// incarnation's writer, the records written or removed meanwhile are redone
// in the new one, every record's new vector and the new configuration are
// written in one durable batch, and the collections map points the name at
// the new incarnation; the old one is marked retired, so a write waiting
// for its writer runs again on the new one (engine_impl.h OnCurrent).
// A crash before the batch leaves the old collection; after it, the new.
#include <chrono>
#include <limits>
#include <map>
#include <utility>

#include "engine/embedding.h"
#include "engine/engine_impl.h"

namespace engram {

using engine::Collection;
using engine::PreparedRecord;

namespace {

constexpr std::size_t kChunk = 256;  // records embedded per call

struct Row {
  std::uint32_t doc = 0;
  std::uint64_t seq = 0;
  std::string body;
  bool operator==(const Row&) const = default;
};
using Rows = std::map<std::string, Row, std::less<>>;  // id -> row

StatusOr<Rows> ScanRows(storage::Store& store, std::string_view collection) {
  Rows rows;
  RETURN_IF_ERROR(store.ScanRecords(
      collection, std::numeric_limits<std::uint64_t>::max(), [&](const storage::RecordRow& r) {
        rows.emplace(std::string(r.id), Row{r.doc, r.seq, std::string(r.body)});
        return Status::Ok();
      }));
  return rows;
}

// The records of `rows` (ids in `ids`) prepared for `fresh` with their new
// vectors; InvalidArgument naming a record whose text gives no vector.
StatusOr<std::vector<PreparedRecord>> Embed(const Collection& fresh, const Rows& rows,
                                            const std::vector<std::string>& ids,
                                            const std::function<void(std::size_t)>& done) {
  std::vector<PreparedRecord> out;
  out.reserve(ids.size());
  for (std::size_t at = 0; at < ids.size(); at += kChunk) {
    const std::size_t end = std::min(ids.size(), at + kChunk);
    std::vector<PreparedRecord> chunk;
    for (std::size_t i = at; i < end; ++i) {
      ASSIGN_OR_RETURN(PreparedRecord r, fresh.Reload(rows.find(ids[i])->second.body, ""));
      r.embed = true;
      chunk.push_back(std::move(r));
    }
    ASSIGN_OR_RETURN(auto refused, engine::EmbedRecords(fresh, chunk));
    if (refused) {
      return Status::InvalidArgument("record '" + chunk[refused->second].id +
                                     "': " + refused->first.message);
    }
    for (PreparedRecord& r : chunk) out.push_back(std::move(r));
    if (done) done(end);
  }
  return out;
}

}  // namespace

StatusOr<Engine::ReembedReport> Engine::Reembed(
    std::string_view name, const EmbedderSpec& spec,
    const std::function<void(std::size_t, std::size_t)>& progress) {
  const auto start = std::chrono::steady_clock::now();
  ASSIGN_OR_RETURN(std::shared_ptr<Collection> old, impl_->Find(name));
  if (old->spec().text.empty()) {
    return Status::InvalidArgument("collection '" + std::string(name) +
                                   "' has no text fields to embed");
  }
  CollectionSpec next = old->spec();
  next.embedder = EmbedderSpecText(spec);
  next.vector_dim = 0;  // the embedder's
  if (old->spec().vector_dim == 0) next.metric = "cosine";
  ASSIGN_OR_RETURN(std::shared_ptr<const Embedder> embedder, engine::OpenForCollection(&next));
  RETURN_IF_ERROR(engine::ValidateSpec(next));
  auto fresh = std::make_shared<Collection>(next, std::move(embedder));
  storage::Store& store = *impl_->store;
  const std::size_t threads = impl_->options.threads;

  // 1. Everything the store holds now, embedded while the old vectors serve.
  ASSIGN_OR_RETURN(Rows rows, ScanRows(store, name));
  std::vector<std::string> ids;
  std::uint64_t scanned_seq = 0;
  for (const auto& [id, row] : rows) {
    ids.push_back(id);
    scanned_seq = std::max(scanned_seq, row.seq);
  }
  const std::size_t total = ids.size();
  ASSIGN_OR_RETURN(std::vector<PreparedRecord> records,
                   Embed(*fresh, rows, ids, [&](std::size_t n) {
                     if (progress) progress(n, total);
                   }));
  std::map<std::string, std::vector<float>, std::less<>> vectors;  // id -> new vector
  std::vector<std::uint32_t> docs;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    vectors[ids[i]] = records[i].vector;
    docs.push_back(rows[ids[i]].doc);
  }
  RETURN_IF_ERROR(fresh->Load(scanned_seq, docs, std::move(records), threads));

  // 2. Writes stop here: redo in the new incarnation what changed meanwhile.
  ASSIGN_OR_RETURN(Collection::Writer old_writer, old->Write());
  ASSIGN_OR_RETURN(Collection::Writer fresh_writer, fresh->Write());
  ASSIGN_OR_RETURN(Rows now, ScanRows(store, name));
  std::vector<std::uint32_t> gone;
  std::vector<std::string> changed;
  for (const auto& [id, row] : rows) {
    auto it = now.find(id);
    if (it == now.end() || !(it->second == row)) gone.push_back(row.doc);
  }
  for (const auto& [id, row] : now) {
    auto it = rows.find(id);
    if (it == rows.end() || !(it->second == row)) changed.push_back(id);
  }
  fresh_writer.Remove(scanned_seq, gone);
  for (const auto& [id, row] : rows) {
    if (!now.count(id)) vectors.erase(id);
  }
  ASSIGN_OR_RETURN(std::vector<PreparedRecord> redone, Embed(*fresh, now, changed, {}));
  std::vector<std::uint32_t> redone_docs;
  for (std::size_t i = 0; i < changed.size(); ++i) {
    vectors[changed[i]] = redone[i].vector;
    redone_docs.push_back(now[changed[i]].doc);
  }

  // 3. One durable batch: every record with its new vector, and the new
  // configuration. Nothing has changed for anyone until it commits.
  storage::WriteBatch batch;
  batch.puts.reserve(now.size());
  for (auto& [id, row] : now) {
    batch.puts.push_back({id, row.doc, std::move(row.body), engine::VectorBytes(vectors[id])});
  }
  batch.config = json::Dump(engine::SpecToJson(next));
  batch.after = old_writer.applied_seq();
  ASSIGN_OR_RETURN(const std::uint64_t seq, store.Apply(name, batch));
  RETURN_IF_ERROR(fresh_writer.Apply(seq, redone_docs, std::move(redone), threads));

  // 4. The switch: searches from now on find the new incarnation; those
  // running finish on the old one.
  {
    std::lock_guard<std::mutex> lock(impl_->collections_mutex);
    auto it = impl_->collections.find(name);
    if (it != impl_->collections.end() && it->second == old) it->second = fresh;
  }
  old_writer.Retire();
  // Hits tallied on the old incarnation and not yet written follow their
  // records (the keys stay); a search still running there may add a few
  // that are lost.
  fresh->hits().Restore(old->hits().Take(kMaxPendingHitRecords));
  impl_->maintenance->Wake();
  ReembedReport report;
  report.records = now.size();
  report.caught_up = gone.size() + changed.size();
  report.identity = next.embedder_identity;
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace engram
