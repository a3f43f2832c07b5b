// Applying a change another engine committed to the shared store
// (follow.h): creations and drops of collections, batches of records,
// replaced configurations and retrieve configurations. The store is the
// truth: a batch's records are checked as on open (Collection::Reload) and
// indexed at the numbers the store gave them. Each change applies once per
// incarnation: one the engine already has (its own write, or a load that saw
// it) is skipped by its sequence.
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "engine/engine_impl.h"

namespace engram {

using engine::Collection;
using engine::PreparedRecord;

namespace {

// The open collection `name`, or null.
std::shared_ptr<Collection> OpenNamed(const Engine::Impl& impl, std::string_view name) {
  StatusOr<std::shared_ptr<Collection>> found = impl.Find(name);
  return found.ok() ? std::move(found).value() : nullptr;
}

// The batch's records checked, with the docs of what it removes and touches.
struct CheckedBatch {
  std::vector<std::uint32_t> removed;
  std::vector<std::uint32_t> docs;
  std::vector<PreparedRecord> records;
  std::vector<engine::TouchedRecord> touched;
};

StatusOr<CheckedBatch> Check(const Collection& c, const Collection::Writer& writer,
                             const storage::Change& change) {
  CheckedBatch out;
  for (const std::string& key : change.removes) {
    if (std::optional<std::uint32_t> doc = writer.Find(key)) out.removed.push_back(*doc);
  }
  for (const storage::Change::Put& put : change.puts) {
    ASSIGN_OR_RETURN(PreparedRecord r, c.Reload(put.body, put.vector));
    if (r.key != put.id) {
      return Status::Corruption("record '" + put.id + "' is stored under another key");
    }
    if (c.has_vectors() && r.vector.empty()) {
      return Status::Corruption("record '" + put.id + "' has no stored vector");
    }
    out.docs.push_back(put.doc);
    out.records.push_back(std::move(r));
  }
  for (const storage::BodyWrite& touch : change.touches) {
    std::optional<std::uint32_t> doc = writer.Find(touch.id);
    if (!doc) continue;  // removed since
    ASSIGN_OR_RETURN(PreparedRecord r, c.Reload(touch.body, {}));
    out.touched.push_back({*doc, std::move(r.body), std::move(r.slots)});
  }
  return out;
}

}  // namespace

Status Engine::Impl::ApplyChange(const storage::Change& change) {
  using Kind = storage::Change::Kind;
  std::shared_ptr<Collection> c = OpenNamed(*this, change.collection);
  switch (change.kind) {
    case Kind::kCreate: {
      // Loaded as the store has it now (a later drop comes as its own change).
      if (c) return Status::Ok();
      ASSIGN_OR_RETURN(std::optional<storage::CollectionRow> row,
                       CollectionRowOf(change.collection));
      return row ? Reload(*row, nullptr) : Status::Ok();
    }
    case Kind::kDrop: {
      // An incarnation begun at or after the drop is a later one.
      if (!c || c->created_seq() >= change.seq) return Status::Ok();
      StatusOr<Collection::Writer> writer = c->Write();
      if (!writer.ok()) return Status::Ok();  // dropped or replaced here meanwhile
      Forget(change.collection, c);
      writer->Drop();
      return Status::Ok();
    }
    case Kind::kSnapshot: {
      if (!c || change.snapshot != kRetrieveSnapshot) return Status::Ok();  // index images: ours
      std::lock_guard<std::mutex> lock(retrieve_mutex);
      return LoadRetrieves(*c);
    }
    case Kind::kBatch:
      break;
  }
  // An incarnation replaced meanwhile (a switch of embedder here) hands the
  // change to its successor, which decides by its own sequence.
  StatusOr<std::pair<std::shared_ptr<Collection>, Collection::Writer>> current =
      CurrentWriter(change.collection);
  if (!current.ok()) return Status::Ok();  // dropped since
  auto& [open, writer] = *current;
  if (change.seq <= writer.applied_seq()) return Status::Ok();
  if (change.config) {
    // A new configuration (a switch of embedder): the new incarnation is
    // loaded whole, as the store has it.
    ASSIGN_OR_RETURN(std::optional<storage::CollectionRow> row, CollectionRowOf(change.collection));
    return row ? Reload(*row, &writer) : Status::Ok();
  }
  ASSIGN_OR_RETURN(CheckedBatch batch, Check(*open, writer, change));
  RETURN_IF_ERROR(writer.Follow(change.seq, batch.removed, batch.docs, std::move(batch.records),
                                std::move(batch.touched), options.threads));
  maintenance->Wake();
  return Status::Ok();
}

StatusOr<std::optional<storage::CollectionRow>> Engine::Impl::CollectionRowOf(
    std::string_view name) {
  ASSIGN_OR_RETURN(std::vector<storage::CollectionRow> rows, store->ListCollections());
  for (storage::CollectionRow& row : rows) {
    if (row.name == name) return std::optional<storage::CollectionRow>(std::move(row));
  }
  return std::optional<storage::CollectionRow>();
}

Status Engine::Impl::Reload(const storage::CollectionRow& row, Collection::Writer* old) {
  StatusOr<std::shared_ptr<Collection>> loaded = Load(row);
  // Dropped while it loaded: its drop follows.
  if (loaded.status().code() == StatusCode::kNotFound) return Status::Ok();
  ASSIGN_OR_RETURN(std::shared_ptr<Collection> fresh, std::move(loaded));
  {
    std::lock_guard<std::mutex> lock(retrieve_mutex);
    RETURN_IF_ERROR(LoadRetrieves(*fresh));
  }
  std::lock_guard<std::mutex> lock(collections_mutex);
  collections[row.name] = fresh;
  if (old != nullptr) old->Retire();
  return Status::Ok();
}

StatusOr<std::uint64_t> Engine::Impl::ReloadAll() {
  ASSIGN_OR_RETURN(const std::uint64_t last, store->LastSequence());
  ASSIGN_OR_RETURN(std::vector<storage::CollectionRow> rows, store->ListCollections());
  std::set<std::string> kept;
  for (const storage::CollectionRow& row : rows) {
    kept.insert(row.name);
    StatusOr<std::pair<std::shared_ptr<Collection>, Collection::Writer>> current =
        CurrentWriter(row.name);
    RETURN_IF_ERROR(Reload(row, current.ok() ? &current->second : nullptr));
  }
  for (const std::shared_ptr<Collection>& c : All()) {
    if (kept.count(c->spec().name) > 0) continue;
    StatusOr<Collection::Writer> writer = c->Write();
    if (!writer.ok()) continue;
    Forget(c->spec().name, c);
    writer->Drop();
  }
  return last;
}

void Engine::Impl::Forget(const std::string& name, const std::shared_ptr<Collection>& c) {
  {
    std::lock_guard<std::mutex> lock(collections_mutex);
    auto it = collections.find(name);
    if (it != collections.end() && it->second == c) collections.erase(it);
  }
  ForgetRetrieves(name);
}

}  // namespace engram
