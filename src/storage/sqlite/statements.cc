#include "storage/sqlite/statements.h"

#include <string>
#include <string_view>

#include <fmt/format.h>
#include <sqlite3.h>

namespace engram::storage {

Status Statements::Prepare() {
  struct Entry {
    sqlite3_stmt** stmt;
    const char* sql;
  };
  const Entry entries[] = {
      {&begin, "BEGIN IMMEDIATE"},
      {&commit, "COMMIT"},
      {&rollback, "ROLLBACK"},
      {&get_meta, "SELECT value FROM meta WHERE key = ?1"},
      {&set_meta, "UPDATE meta SET value = ?1 WHERE key = ?2"},
      {&find_collection, "SELECT num FROM collections WHERE name = ?1"},
      {&insert_collection, "INSERT INTO collections(name, config) VALUES (?1, ?2)"},
      {&set_collection_config, "UPDATE collections SET config = ?1 WHERE num = ?2"},
      {&delete_collection, "DELETE FROM collections WHERE num = ?1"},
      {&list_collections, "SELECT name, config FROM collections ORDER BY name"},
      {&delete_range, "DELETE FROM records WHERE key BETWEEN ?1 AND ?2"},
      {&delete_snapshots, "DELETE FROM snapshots WHERE coll = ?1"},
      {&delete_record, "DELETE FROM records WHERE coll = ?1 AND id = ?2"},
      {&insert_record,
       "INSERT INTO records(key, coll, id, seq, body, vector) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"},
      {&touch_record, "UPDATE records SET body = ?1 WHERE coll = ?2 AND id = ?3"},
      // The CASE keeps SQLite from reading vectors the caller does not want.
      {&scan,
       "SELECT key, id, seq, body, CASE WHEN seq > ?3 THEN vector END FROM records "
       "WHERE key BETWEEN ?1 AND ?2 ORDER BY key"},
      {&get_record, "SELECT key, seq, body, vector FROM records WHERE coll = ?1 AND id = ?2"},
      // The last key of the collection's range: one step down the rowid tree.
      {&record_limit, "SELECT max(key) FROM records WHERE key BETWEEN ?1 AND ?2"},
      // A snapshot replaces the old one by a delete and then an insert in one
      // transaction: the new image fills the pages the old one freed, where
      // an update in place would take new pages first (the file would grow
      // by an image per checkpoint).
      {&delete_snapshot, "DELETE FROM snapshots WHERE coll = ?1 AND name = ?2"},
      {&put_snapshot,
       "INSERT INTO snapshots(coll, name, seq, bytes, gen) VALUES (?1, ?2, ?3, ?4, ?5)"},
      {&get_snapshot, "SELECT seq, bytes, gen FROM snapshots WHERE coll = ?1 AND name = ?2"},
      // A large image is written as parts under a new generation number
      // first; the snapshot row then names that generation.
      {&next_part_gen, "SELECT coalesce(max(gen), 0) + 1 FROM snapshot_parts"},
      {&put_part,
       "INSERT INTO snapshot_parts(coll, name, gen, part, bytes) VALUES (?1, ?2, ?3, ?4, ?5)"},
      {&size_parts,  // length() of a blob reads no overflow page
       "SELECT coalesce(sum(length(bytes)), 0) FROM snapshot_parts "
       "WHERE coll = ?1 AND name = ?2 AND gen = ?3"},
      {&get_parts,
       "SELECT part, bytes FROM snapshot_parts WHERE coll = ?1 AND name = ?2 AND gen = ?3 "
       "ORDER BY part"},
      // ?3 NULL: every part of the name (IS NOT matches NULL as a value).
      {&delete_other_parts,
       "DELETE FROM snapshot_parts WHERE coll = ?1 AND name = ?2 AND gen IS NOT ?3"},
      {&delete_parts, "DELETE FROM snapshot_parts WHERE coll = ?1 AND name = ?2 AND gen = ?3"},
      {&delete_collection_parts, "DELETE FROM snapshot_parts WHERE coll = ?1"},
  };
  for (const Entry& e : entries) {
    int rc = sqlite3_prepare_v3(db_, e.sql, -1, SQLITE_PREPARE_PERSISTENT, e.stmt, nullptr);
    if (rc != SQLITE_OK) {
      Status status = Status::Corruption(
          fmt::format("prepare \"{}\": {} (sqlite code {})", e.sql, sqlite3_errmsg(db_), rc));
      if ((rc & 0xff) == SQLITE_IOERR) status = Status::IoError(status.message());
      return status;
    }
  }
  return Status::Ok();
}

void Statements::Finalize() {
  for (sqlite3_stmt** s : {&begin,
                           &commit,
                           &rollback,
                           &get_meta,
                           &set_meta,
                           &find_collection,
                           &insert_collection,
                           &set_collection_config,
                           &delete_collection,
                           &list_collections,
                           &delete_range,
                           &delete_snapshots,
                           &delete_record,
                           &insert_record,
                           &touch_record,
                           &scan,
                           &get_record,
                           &record_limit,
                           &delete_snapshot,
                           &put_snapshot,
                           &get_snapshot,
                           &next_part_gen,
                           &put_part,
                           &size_parts,
                           &get_parts,
                           &delete_other_parts,
                           &delete_parts,
                           &delete_collection_parts}) {
    sqlite3_finalize(*s);
    *s = nullptr;
  }
}

void BindBlob(sqlite3_stmt* s, int index, std::string_view bytes) {
  // A null pointer would bind NULL (sqlite3_bind_blob's contract).
  sqlite3_bind_blob64(s, index, bytes.empty() ? "" : bytes.data(), bytes.size(), SQLITE_STATIC);
}

void BindText(sqlite3_stmt* s, int index, std::string_view text) {
  sqlite3_bind_text64(s, index, text.empty() ? "" : text.data(), text.size(), SQLITE_STATIC,
                      SQLITE_UTF8);
}

std::string_view ColumnBytes(sqlite3_stmt* s, int column) {
  // sqlite3_column_blob before sqlite3_column_bytes (the order sqlite.org
  // recommends), and no conversion: text comes back as stored.
  const void* p = sqlite3_column_blob(s, column);
  const int n = sqlite3_column_bytes(s, column);
  if (p == nullptr || n <= 0) return {};
  return {static_cast<const char*>(p), static_cast<std::size_t>(n)};
}

}  // namespace engram::storage
