// The SQL of the PostgreSQL store: its schema, as numbered migrations, and
// the statements every connection prepares. Internal to storage/postgres.
#ifndef ENGRAM_STORAGE_POSTGRES_STATEMENTS_H_
#define ENGRAM_STORAGE_POSTGRES_STATEMENTS_H_

#include <cstdint>

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
inline constexpr std::int64_t kPostgresSchemaVersion = 1;

// Brings the database's schema to kPostgresSchemaVersion in one transaction,
// under an advisory lock so that concurrent openers migrate one at a time;
// each applied migration is recorded in `engram_schema_version`.
// FailedPrecondition when the database has a newer version than this build.
Status Migrate(Connection& connection);

}  // namespace engram::storage::postgres

#endif  // ENGRAM_STORAGE_POSTGRES_STATEMENTS_H_
