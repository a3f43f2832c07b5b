#include "storage/postgres/statements.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "base/status.h"

namespace engram::storage::postgres {
namespace {

// Collection names, configurations, ids and bodies are bytea: the store's
// contract keeps them as opaque bytes (NUL and invalid UTF-8 included), which
// text cannot hold. Vectors and snapshots are stored out of line without
// compression (STORAGE EXTERNAL): float and index bytes do not compress, so
// trying only costs time.
constexpr const char* kMigrations[] = {
    // 1: the first layout.
    R"sql(
CREATE TABLE engram_meta(
  key text PRIMARY KEY,
  value bigint NOT NULL);
INSERT INTO engram_meta(key, value) VALUES ('last_seq', 0);
CREATE TABLE engram_collections(
  num bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name bytea NOT NULL UNIQUE,
  config bytea NOT NULL);
CREATE TABLE engram_records(
  coll bigint NOT NULL REFERENCES engram_collections(num) ON DELETE CASCADE,
  doc bigint NOT NULL CHECK (doc BETWEEN 0 AND 4294967295),
  id bytea NOT NULL,
  seq bigint NOT NULL,
  body bytea NOT NULL,
  vector bytea,
  CONSTRAINT engram_records_doc PRIMARY KEY (coll, doc),
  CONSTRAINT engram_records_id UNIQUE (coll, id));
ALTER TABLE engram_records ALTER COLUMN vector SET STORAGE EXTERNAL;
CREATE TABLE engram_snapshots(
  coll bigint NOT NULL REFERENCES engram_collections(num) ON DELETE CASCADE,
  name bytea NOT NULL,
  seq bigint NOT NULL,
  bytes bytea NOT NULL,
  PRIMARY KEY (coll, name));
ALTER TABLE engram_snapshots ALTER COLUMN bytes SET STORAGE EXTERNAL;
)sql",
    // 2: a change feed for engines sharing the store. Every sequence is one
    // row of engram_changes; a batch's puts are the records carrying its
    // sequence (found by engram_records_seq); engram_collections.seq is the
    // sequence of the collection's last batch (WriteBatch::after).
    R"sql(
ALTER TABLE engram_collections ADD COLUMN seq bigint NOT NULL DEFAULT 0;
CREATE INDEX engram_records_seq ON engram_records(seq);
CREATE TABLE engram_changes(
  seq bigint PRIMARY KEY,
  kind bigint NOT NULL,
  collection bytea NOT NULL,
  removes bytea,
  touches bytea,
  snapshot bytea);
)sql",
};
static_assert(std::size(kMigrations) == kPostgresSchemaVersion);

// The advisory lock key of schema migrations: 'engram' in ASCII.
constexpr std::int64_t kMigrationLock = 0x656e6772616d;

// In the order of enum Sql.
constexpr Statement kStatements[] = {
    {"find_collection", "SELECT num FROM engram_collections WHERE name = $1", "b"},
    {"insert_collection",
     "INSERT INTO engram_collections(name, config, seq) VALUES ($1, $2, $3) "
     "ON CONFLICT (name) DO NOTHING RETURNING num",
     "bbi"},
    {"set_collection_config", "UPDATE engram_collections SET config = $2 WHERE num = $1", "ib"},
    {"delete_collection", "DELETE FROM engram_collections WHERE num = $1", "i"},
    {"list_collections", "SELECT name, config FROM engram_collections ORDER BY name", ""},
    // The row lock this takes is held to COMMIT: commits take their
    // sequences one at a time, in commit order.
    {"next_sequence",
     "UPDATE engram_meta SET value = value + 1 WHERE key = 'last_seq' RETURNING value", ""},
    {"last_sequence", "SELECT value FROM engram_meta WHERE key = 'last_seq'", ""},
    {"delete_record", "DELETE FROM engram_records WHERE coll = $1 AND id = $2", "ib"},
    // A put of a stored id replaces it (and may move it to a new doc); a doc
    // held by another id violates the primary key.
    {"upsert_record",
     "INSERT INTO engram_records(coll, doc, id, seq, body, vector) VALUES ($1, $2, $3, $4, $5, $6) "
     "ON CONFLICT ON CONSTRAINT engram_records_id DO UPDATE SET doc = excluded.doc, "
     "seq = excluded.seq, body = excluded.body, vector = excluded.vector",
     "iibibb"},
    {"touch_record", "UPDATE engram_records SET body = $3 WHERE coll = $1 AND id = $2", "ibb"},
    // No row: no such collection; one row of NULLs: an empty one. The CASE
    // keeps the server from reading vectors the caller does not want.
    {"scan",
     "SELECT r.doc, r.id, r.seq, r.body, CASE WHEN r.seq > $2 THEN r.vector END "
     "FROM engram_collections c LEFT JOIN engram_records r ON r.coll = c.num "
     "WHERE c.name = $1 ORDER BY r.doc",
     "bi"},
    {"get_record",
     "SELECT r.doc, r.seq, r.body, r.vector FROM engram_collections c "
     "LEFT JOIN engram_records r ON r.coll = c.num AND r.id = $2 WHERE c.name = $1",
     "bb"},
    // No row: no such collection; NULL: no records. The subquery reads the
    // last entry of the primary key's index.
    {"record_limit",
     "SELECT (SELECT max(doc) FROM engram_records WHERE coll = c.num) "
     "FROM engram_collections c WHERE c.name = $1",
     "b"},
    {"put_snapshot",
     "INSERT INTO engram_snapshots(coll, name, seq, bytes) VALUES ($1, $2, $3, $4) "
     "ON CONFLICT (coll, name) DO UPDATE SET seq = excluded.seq, bytes = excluded.bytes",
     "ibib"},
    {"get_snapshot",
     "SELECT s.seq, s.bytes FROM engram_collections c "
     "LEFT JOIN engram_snapshots s ON s.coll = c.num AND s.name = $2 WHERE c.name = $1",
     "bb"},
    // No row: a batch of the collection later than $3 is committed (or the
    // collection is gone). A NULL $3 checks nothing.
    {"set_collection_seq",
     "UPDATE engram_collections SET seq = $2 WHERE num = $1 AND ($3::bigint IS NULL OR seq <= $3) "
     "RETURNING num",
     "iii"},
    {"log_change",
     "INSERT INTO engram_changes(seq, kind, collection, removes, touches, snapshot) "
     "VALUES ($1, $2, $3, $4, $5, $6)",
     "iibbbb"},
    {"read_changes",
     "SELECT seq, kind, collection, removes, touches, snapshot FROM engram_changes "
     "WHERE seq > $1 ORDER BY seq LIMIT $2",
     "ii"},
    {"trim_changes", "DELETE FROM engram_changes WHERE seq <= $1", "i"},
    {"read_puts",
     "SELECT c.name, r.seq, r.doc, r.id, r.body, r.vector FROM engram_records r "
     "JOIN engram_collections c ON c.num = r.coll WHERE r.seq > $1 AND r.seq <= $2 "
     "ORDER BY r.seq, r.doc",
     "ii"},
};
static_assert(std::size(kStatements) == static_cast<std::size_t>(Sql::kCount));

StatusOr<std::int64_t> AppliedVersion(Connection& c) {
  RETURN_IF_ERROR(
      c.Exec("CREATE TABLE IF NOT EXISTS engram_schema_version("
             "version bigint PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())",
             "create the version table"));
  ASSIGN_OR_RETURN(Result r,
                   c.Query("SELECT coalesce(max(version), 0)::bigint FROM engram_schema_version",
                           "read the schema version"));
  return CellInt(r.get(), 0, 0);
}

}  // namespace

std::string EncodeList(const std::vector<std::string_view>& items) {
  std::string out;
  for (std::string_view item : items) {
    const auto n = static_cast<std::uint32_t>(item.size());
    for (int shift = 0; shift < 32; shift += 8)
      out.push_back(static_cast<char>((n >> shift) & 0xff));
    out.append(item);
  }
  return out;
}

StatusOr<std::vector<std::string>> DecodeList(std::string_view bytes) {
  std::vector<std::string> items;
  while (!bytes.empty()) {
    if (bytes.size() < 4) return Status::Corruption("a change's list ends inside a length");
    std::uint32_t n = 0;
    for (int i = 0; i < 4; ++i)
      n |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i])) << (8 * i);
    bytes.remove_prefix(4);
    if (n > bytes.size()) return Status::Corruption("a change's list item runs past its end");
    items.emplace_back(bytes.substr(0, n));
    bytes.remove_prefix(n);
  }
  return items;
}

const Statement& StatementFor(Sql sql) {
  return kStatements[static_cast<int>(sql)];
}

Status Migrate(Connection& c) {
  Status status = [&]() -> Status {
    RETURN_IF_ERROR(c.Exec("BEGIN", "begin"));
    RETURN_IF_ERROR(c.Exec(fmt::format("SELECT pg_advisory_xact_lock({})", kMigrationLock).c_str(),
                           "wait for other openers"));
    ASSIGN_OR_RETURN(std::int64_t version, AppliedVersion(c));
    if (version > kPostgresSchemaVersion) {
      return Status::FailedPrecondition(fmt::format(
          "the database has engram schema version {}, newer than this build reads ({}); use a "
          "newer engram",
          version, kPostgresSchemaVersion));
    }
    if (version < 0) return Status::Corruption(fmt::format("schema version {}", version));
    for (std::int64_t v = version + 1; v <= kPostgresSchemaVersion; ++v) {
      const std::string what = fmt::format("migrate the schema to version {}", v);
      RETURN_IF_ERROR(c.Exec(kMigrations[v - 1], what));
      RETURN_IF_ERROR(c.Exec(
          fmt::format("INSERT INTO engram_schema_version(version) VALUES ({})", v).c_str(), what));
    }
    return c.Exec("COMMIT", "commit the schema");
  }();
  if (!status.ok() && !c.lost() && c.in_transaction()) (void)c.Exec("ROLLBACK", "roll back");
  return status;
}

}  // namespace engram::storage::postgres
