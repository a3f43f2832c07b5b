// Store: the narrow durable storage the engine writes through (SEARCH.md §1).
// It keeps collections (a name and an opaque configuration document),
// records (id, the engine's record number, the write sequence that last
// touched it, an opaque body and an optional vector), and index snapshots
// (opaque bytes tagged with the sequence they reflect). It knows nothing of
// schemas or indexes: the engine decides what the bytes mean (DESIGN.md).
#ifndef ENGRAM_STORAGE_STORE_H_
#define ENGRAM_STORAGE_STORE_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"

namespace engram::storage {

struct CollectionRow {
  std::string name;
  std::string config;  // the engine's configuration document, stored as given
};

// One record to write. `vector` holds dim float32 values in host byte order
// as raw bytes (empty when the collection has no vectors).
struct RecordWrite {
  std::string id;
  std::uint32_t doc = 0;  // the engine's record number, unique per collection
  std::string body;
  std::string vector;
};

// A new body for a stored record whose number and vector stay. The record
// keeps its sequence: a touch changes only what the engine reads back from
// the body on every open (metadata such as hit counts or a record time),
// never what an index snapshot holds, so a snapshot stays valid for it.
struct BodyWrite {
  std::string id;
  std::string body;
};

// All the writes of one batch: applied together or not at all. The removes
// apply first, then the puts in order (a later put of an id replaces an
// earlier one), so a batch may remove a record and give its doc to another;
// the touches last.
struct WriteBatch {
  std::vector<RecordWrite> puts;     // insert or replace by id
  std::vector<std::string> removes;  // ids; absent ids are ignored
  std::vector<BodyWrite> touches;    // by id; absent ids are ignored
  // When set, replaces the collection's configuration document in the same
  // transaction (a collection switching embedders rewrites its vectors and
  // its configuration together).
  std::optional<std::string> config;
  // When set, the batch applies only if no batch of the collection with a
  // sequence above `after` is committed (the writer decided it knowing the
  // collection up to `after`); otherwise Apply writes nothing and returns
  // Aborted. Engines sharing a store (Store::shared) write this way.
  std::optional<std::uint64_t> after;
};

// A change committed to a shared store (Store::shared), as ReadChanges
// yields it to the engines that follow the store.
struct Change {
  enum class Kind { kCreate, kDrop, kBatch, kSnapshot };
  std::uint64_t seq = 0;
  Kind kind = Kind::kBatch;
  std::string collection;
  // kBatch: what the batch did. `puts` are the records it wrote that still
  // carry its sequence (a record written again later comes with that later
  // change; one removed later, with none), with their vectors.
  struct Put {
    std::string id;
    std::uint32_t doc = 0;
    std::string body;
    std::string vector;
  };
  std::vector<Put> puts;
  std::vector<std::string> removes;
  std::vector<BodyWrite> touches;  // the bodies as the batch wrote them
  bool config = false;             // it replaced the configuration
  std::string snapshot;            // kSnapshot: the snapshot's name
};

// What a scan yields. The views are valid during the callback only.
struct RecordRow {
  std::string_view id;
  std::uint32_t doc = 0;
  std::uint64_t seq = 0;  // the sequence of the batch that last wrote it
  std::string_view body;
  std::string_view vector;  // empty unless asked for (see ScanRecords)
};

struct Snapshot {
  std::uint64_t seq = 0;  // the store's sequence when the snapshot was taken
  std::string bytes;
};

// Thread-safety: a Store may be used from several threads; writes are
// serialised inside. Every method returns IoError for a failed read or write
// of the underlying files and Corruption for contents it cannot read.
class Store {
 public:
  virtual ~Store() = default;

  // AlreadyExists when `name` is taken. Durable on return; the sequence the
  // creation took (larger than any earlier one, as Apply's).
  virtual StatusOr<std::uint64_t> CreateCollection(const CollectionRow& collection) = 0;
  // Removes the collection with its records and snapshots. NotFound if absent.
  // Like creating one, applying a batch and putting a snapshot, it takes a
  // sequence: every sequence a store hands out is one such change.
  virtual Status DropCollection(std::string_view name) = 0;
  virtual StatusOr<std::vector<CollectionRow>> ListCollections() = 0;

  // Applies `batch` to `collection` atomically in one transaction that is
  // synced to disk before this returns: after a crash at any moment a batch
  // is there whole or not at all, and an acknowledged one is there. Every
  // record the batch puts gets the returned sequence (a touched one keeps
  // its own), which is larger than
  // any earlier one in the store (an empty batch takes one too). NotFound
  // for an unknown collection; InvalidArgument, writing nothing, when a put's
  // doc belongs to another id after the batch's removes. After an IoError
  // a store with one owner refuses writes (FailedPrecondition) until it is
  // reopened, since its owner's indexes may disagree with it; a shared store
  // keeps writing (its followers learn from the change feed whether a batch
  // whose COMMIT went unanswered committed).
  virtual StatusOr<std::uint64_t> Apply(std::string_view collection, const WriteBatch& batch) = 0;

  // The store's last applied sequence (0 for a new store).
  virtual StatusOr<std::uint64_t> LastSequence() = 0;

  // Calls `fn` for every record of `collection` in record-number order; the
  // row's vector is filled only for records with seq > vectors_after (pass
  // UINT64_MAX for none, 0 for all). A non-ok status from `fn` stops the
  // scan and is returned. `fn` must not call this Store (it runs under the
  // store's lock).
  virtual Status ScanRecords(std::string_view collection, std::uint64_t vectors_after,
                             const std::function<Status(const RecordRow&)>& fn) = 0;

  // One more than the largest record number in `collection`, 0 when it has
  // no records: the bound ScanRecords' numbers stay below, read without the
  // scan (an index lookup), so that an opening engine can size what a
  // snapshot may name before the records arrive. NotFound for an unknown
  // collection.
  virtual StatusOr<std::uint64_t> RecordLimit(std::string_view collection) = 0;

  // The record with `id`, with its vector; nullopt when absent.
  struct Found {
    std::uint32_t doc = 0;
    std::uint64_t seq = 0;
    std::string body;
    std::string vector;
  };
  virtual StatusOr<std::optional<Found>> GetRecord(std::string_view collection,
                                                   std::string_view id) = 0;

  // Index snapshots under a name ("text", "vector"), replaced atomically.
  virtual Status PutSnapshot(std::string_view collection, std::string_view name,
                             const Snapshot& snapshot) = 0;
  virtual StatusOr<std::optional<Snapshot>> GetSnapshot(std::string_view collection,
                                                        std::string_view name) = 0;

  // Whether several engines may share this store, each following the
  // changes the others commit (ReadChanges, WaitForChange). A store with one
  // owner (the SQLite directory's lock) answers false and Unimplemented.
  virtual bool shared() const { return false; }
  // The changes with a sequence above `after`, in sequence order, at most
  // `max` of them, read from one consistent view of the store: every change
  // up to the last one returned is committed, and none is missing between.
  // Sequences are taken in commit order (a later one never commits first),
  // and every sequence the store hands out is a change, so the list has no
  // gaps. NotFound when the change after `after` was trimmed (TrimChanges).
  virtual StatusOr<std::vector<Change>> ReadChanges(std::uint64_t after, std::size_t max) {
    (void)after, (void)max;
    return Status::Unimplemented("this store has one owner and no change feed");
  }
  // Drops the changes up to `through` from the feed (they stay applied in
  // the store): the feed keeps what followers lagging by less still need.
  // A ReadChanges after a trimmed sequence is then NotFound: the follower
  // loads the store afresh. No-op on a store without a feed.
  virtual Status TrimChanges(std::uint64_t through) {
    (void)through;
    return Status::Ok();
  }
  // Waits up to `timeout` for a change committed by anyone; true when one
  // was announced, false at the timeout. IoError when the store cannot be
  // reached (the caller retries with backoff).
  virtual StatusOr<bool> WaitForChange(std::chrono::milliseconds timeout) {
    (void)timeout;
    return Status::Unimplemented("this store has one owner and no change feed");
  }
};

// Opens (creating when missing) the SQLite store in directory `dir`, which is
// created too. The database runs in WAL mode with synchronous=FULL.
StatusOr<std::unique_ptr<Store>> OpenSqliteStore(const std::string& dir);

// Whether `location` names a PostgreSQL store (postgresql:// or postgres://)
// rather than a SQLite store directory.
bool IsPostgresUrl(std::string_view location);

// Opens the PostgreSQL store in the database that `conninfo` (a libpq
// connection string or a postgresql:// URL) names, creating or migrating its
// tables (engram_*) first. The store is shared: any number of engines may
// open it and follow each other's changes. InvalidArgument for a malformed
// `conninfo`, IoError when the server cannot be reached, FailedPrecondition
// when the database holds a newer engram schema. Commits are durable as the
// server makes them (synchronous_commit is raised to `on` for the session if
// lower).
StatusOr<std::unique_ptr<Store>> OpenPostgresStore(const std::string& conninfo);

}  // namespace engram::storage

#endif  // ENGRAM_STORAGE_STORE_H_
