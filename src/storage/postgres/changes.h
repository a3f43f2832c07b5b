// Reading the change feed of the PostgreSQL store (store.h, Store::ReadChanges):
// the rows of engram_changes and the records their batches put. Internal to
// storage/postgres.
#ifndef ENGRAM_STORAGE_POSTGRES_CHANGES_H_
#define ENGRAM_STORAGE_POSTGRES_CHANGES_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engram/status.h"
#include "storage/postgres/connection.h"
#include "storage/store.h"

namespace engram::storage::postgres {

// Appends to `out` the changes after `after`, at most `max`, with the records
// of their batches. The caller runs it inside one REPEATABLE READ
// transaction, so that the changes and the records agree. Corruption for a
// row the store could not have written.
Status ReadChanges(Connection& c, std::int64_t after, std::size_t max, std::vector<Change>* out);

}  // namespace engram::storage::postgres

#endif  // ENGRAM_STORAGE_POSTGRES_CHANGES_H_
