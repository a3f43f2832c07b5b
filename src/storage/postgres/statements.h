// The SQL of the PostgreSQL store: its schema, as numbered migrations, and
// the statements every connection prepares. Internal to storage/postgres.
#ifndef ENGRAM_STORAGE_POSTGRES_STATEMENTS_H_
#define ENGRAM_STORAGE_POSTGRES_STATEMENTS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"
#include "storage/postgres/connection.h"

namespace engram::storage::postgres {

// A prepared statement: its name on the connection, its text, and the types
// of its parameters in order ('b' bytea, 'i' bigint).
struct Statement {
  const char* name;
  const char* sql;
  const char* types;
};
const Statement& StatementFor(Sql sql);

// The schema version this build writes (the largest migration).
inline constexpr std::int64_t kPostgresSchemaVersion = 2;

// Brings the database's schema to kPostgresSchemaVersion in one transaction,
// under an advisory lock so that concurrent openers migrate one at a time;
// each applied migration is recorded in `engram_schema_version`.
// FailedPrecondition when the database has a newer version than this build.
Status Migrate(Connection& connection);

// The kinds of engram_changes rows (Change::Kind, with a batch that replaced
// the configuration apart).
enum class ChangeKind : std::int64_t {
  kCreate = 1,
  kDrop = 2,
  kBatch = 3,
  kConfig = 4,
  kSnapshot = 5
};

// A list of byte strings as one bytea (each a 4-byte little-endian length
// and its bytes), and back: Corruption when `bytes` is not such a list.
std::string EncodeList(const std::vector<std::string_view>& items);
StatusOr<std::vector<std::string>> DecodeList(std::string_view bytes);

}  // namespace engram::storage::postgres

#endif  // ENGRAM_STORAGE_POSTGRES_STATEMENTS_H_
