// Random schemas, records and filters for differential tests and fuzz seeds:
// one generator, many implementations (LevelDB table/table_test.cc style).
// Values come from small domains with the edge cases that matter (2^53,
// -0.0, int/float pairs, absent optional fields, Unicode case pairs), so that
// random filters and records actually meet.
#ifndef ENGRAM_TESTS_SUPPORT_RANDOM_FILTER_H_
#define ENGRAM_TESTS_SUPPORT_RANDOM_FILTER_H_

#include <memory>
#include <random>
#include <string>

#include "base/json.h"
#include "filter/dialects/dialect.h"
#include "filter/ir/ir.h"
#include "schema/record.h"
#include "schema/schema.h"

namespace engram::testing {

using Rng = std::mt19937_64;

// 3 to 9 fields of random types and presences, at least one of each type.
std::shared_ptr<const Schema> RandomSchema(Rng& rng);

// A record valid for `schema` (optional fields absent about a third of the
// time), as JSON with "id" = `id`.
json::Value RandomRecordJson(Rng& rng, const Schema& schema, const std::string& id);
Record RandomRecord(Rng& rng, const Schema& schema, const std::string& id);

// A well-typed IR tree over `schema` (every op kind), at most `depth` deep.
filter::Node RandomIr(Rng& rng, const Schema& schema, int depth);

// Filter text in `dialect` over `schema`'s filterable fields; valid most of
// the time, sometimes not (wrong types, unknown fields, bad shapes), so that
// both paths are exercised. For search_memory the schema should be the
// memory preset, for expr_v1 any schema works.
std::string RandomDialectFilter(Rng& rng, const Schema& schema, filter::Dialect dialect);

}  // namespace engram::testing

#endif  // ENGRAM_TESTS_SUPPORT_RANDOM_FILTER_H_
