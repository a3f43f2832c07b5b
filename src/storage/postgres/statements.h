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

// The store's owner lock: a session advisory lock on the key ('engr', 1) in
// the store's database, and the query that names the session holding it.
inline constexpr const char* kTakeOwnerLock = "SELECT pg_try_advisory_lock(1701734258, 1)";
inline constexpr const char* kOwnerLockHolder =
    "SELECT a.application_name, a.pid::bigint FROM pg_locks l JOIN pg_stat_activity a "
    "ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.classid = 1701734258 AND l.objid = 1 "
    "AND l.objsubid = 2 AND l.granted AND l.database = "
    "(SELECT oid FROM pg_database WHERE datname = current_database())";

// Brings the database's schema to kPostgresSchemaVersion in one transaction,
// under an advisory lock so that concurrent openers migrate one at a time;
// each applied migration is recorded in `engram_schema_version`.
// FailedPrecondition when the database has a newer version than this build.
Status Migrate(Connection& connection);

}  // namespace engram::storage::postgres

#endif  // ENGRAM_STORAGE_POSTGRES_STATEMENTS_H_
