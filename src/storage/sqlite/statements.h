// The prepared statements of the SQLite store and the small helpers that bind
// and read them. Internal to storage/sqlite: every value reaches SQL as a
// bound parameter, never as text spliced into a statement.
#ifndef ENGRAM_STORAGE_SQLITE_STATEMENTS_H_
#define ENGRAM_STORAGE_SQLITE_STATEMENTS_H_

#include <string>
#include <string_view>

#include <sqlite3.h>

#include "engram/status.h"
#include "storage/printable.h"

namespace engram::storage {

// Prepared once per connection (SQLITE_PREPARE_PERSISTENT) and reused by
// every call: the hot loop of Apply prepares nothing.
struct Statements {
  explicit Statements(sqlite3* db) : db_(db) {}
  Statements(const Statements&) = delete;
  Statements& operator=(const Statements&) = delete;

  Status Prepare();
  void Finalize();

  sqlite3_stmt* begin = nullptr;
  sqlite3_stmt* commit = nullptr;
  sqlite3_stmt* rollback = nullptr;
  sqlite3_stmt* get_meta = nullptr;
  sqlite3_stmt* set_meta = nullptr;
  sqlite3_stmt* find_collection = nullptr;
  sqlite3_stmt* insert_collection = nullptr;
  sqlite3_stmt* set_collection_config = nullptr;
  sqlite3_stmt* delete_collection = nullptr;
  sqlite3_stmt* list_collections = nullptr;
  sqlite3_stmt* delete_range = nullptr;
  sqlite3_stmt* delete_snapshots = nullptr;
  sqlite3_stmt* delete_record = nullptr;
  sqlite3_stmt* insert_record = nullptr;
  sqlite3_stmt* touch_record = nullptr;
  sqlite3_stmt* scan = nullptr;
  sqlite3_stmt* get_record = nullptr;
  sqlite3_stmt* record_limit = nullptr;
  sqlite3_stmt* delete_snapshot = nullptr;
  sqlite3_stmt* put_snapshot = nullptr;
  sqlite3_stmt* get_snapshot = nullptr;
  sqlite3_stmt* next_part_gen = nullptr;
  sqlite3_stmt* put_part = nullptr;
  sqlite3_stmt* size_parts = nullptr;
  sqlite3_stmt* get_parts = nullptr;
  sqlite3_stmt* delete_other_parts = nullptr;
  sqlite3_stmt* delete_parts = nullptr;
  sqlite3_stmt* delete_collection_parts = nullptr;

 private:
  sqlite3* db_;
};

// Scope guard over a prepared statement: resets it and clears its bindings
// on exit, so no statement keeps a read transaction open or points at a
// caller's buffer after the call that used it.
class Bound {
 public:
  explicit Bound(sqlite3_stmt* s) : s_(s) {}
  ~Bound() {
    sqlite3_reset(s_);
    sqlite3_clear_bindings(s_);
  }
  Bound(const Bound&) = delete;
  Bound& operator=(const Bound&) = delete;
  operator sqlite3_stmt*() const { return s_; }  // NOLINT(google-explicit-constructor)

 private:
  sqlite3_stmt* s_;
};

// Binds without copying (the caller's bytes outlive the step). An empty
// value binds as a zero-length value, not NULL.
void BindBlob(sqlite3_stmt* s, int index, std::string_view bytes);
void BindText(sqlite3_stmt* s, int index, std::string_view text);

// A column's bytes (blob or text), valid until the statement steps or resets;
// NULL reads as empty.
std::string_view ColumnBytes(sqlite3_stmt* s, int column);

}  // namespace engram::storage

#endif  // ENGRAM_STORAGE_SQLITE_STATEMENTS_H_
