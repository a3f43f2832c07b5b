// The commands that work on a store directory through the public engine API:
// `collection create|list`, `ingest`, `search`, `delete`, `list`, `count`
// and `facets` (README "Using the engine"). Exit codes: 0 success, 1 input rejected (a located
// error), 2 usage, 3 the store failed (I/O, corruption), 4 not found.
#ifndef ENGRAM_CLI_ENGINE_COMMANDS_H_
#define ENGRAM_CLI_ENGINE_COMMANDS_H_

#include <cstddef>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "engram/engine.h"
#include "engram/status.h"

namespace engram::cli {

struct EngineOptions {
  std::string db;
  std::string collection;
  // collection create
  std::string schema;
  std::string text;     // FIELD[:WEIGHT],...
  std::string vectors;  // DIM:METRIC
  std::string language = "en";
  std::string time_field;
  std::string ttl_field;
  bool has_ttl_field = false;  // given, perhaps empty (no expiry)
  std::string embedder;        // also collection reembed
  std::string dedup;           // off | exact | near:THRESHOLD, then :skip | :refresh
  std::string hit_count_field, last_hit_field;  // recall statistics
  std::vector<std::string> graph_fields;        // --graph-field (repeated)
  bool has_hit_count_field = false, has_last_hit_field = false;
  // collection create (defaults) and search: ranking (engine.h, DecaySpec)
  std::string decay;  // FIELD:exp|gauss|linear:SCALE[:OFFSET[:FLOOR]] | off
  std::string boost;  // FIELD[:WEIGHT] | off
  // ingest
  std::string file;
  std::size_t batch = 10000;
  // search
  std::string query;
  bool has_query = false;
  std::string vector;
  std::string mode;
  std::string filter;
  std::string dialect;
  std::size_t k = 10;
  std::size_t candidate_k = 0;
  std::string filter_mode = "auto";
  std::optional<double> threshold;
  std::optional<double> score_threshold;
  std::string fusion;  // METHOD[:NAME=VALUE,...]
  std::string anchor;
  std::string as_of;  // search, list, count, facets: the records current then
  bool explain = false;
  bool impact = false;
  bool json = false;
  // delete
  std::vector<std::string> ids;
  // list, count, facets
  std::string order_by;
  std::size_t page_size = 50;
  std::string page_token;
  std::string field;
  std::size_t top = 10;
  std::string ranges;  // FROM..TO,... (either side may be empty)
};

// Registers the commands; `*run` is set to the one to execute ("collection
// create", "collection list", "ingest", "search", "delete").
void AddEngineCommands(CLI::App* app, EngineOptions* options, std::string* run);

int RunCollectionCreate(const EngineOptions& o, std::ostream& out, std::ostream& err);
int RunCollectionList(const EngineOptions& o, std::ostream& out, std::ostream& err);
int RunCollectionReembed(const EngineOptions& o, std::ostream& out, std::ostream& err);
int RunIngest(const EngineOptions& o, std::ostream& out, std::ostream& err);
int RunSearch(const EngineOptions& o, std::istream& in, std::ostream& out, std::ostream& err);
int RunDelete(const EngineOptions& o, std::istream& in, std::ostream& out, std::ostream& err);
int RunList(const EngineOptions& o, std::ostream& out, std::ostream& err);
int RunCount(const EngineOptions& o, std::ostream& out, std::ostream& err);
int RunFacets(const EngineOptions& o, std::ostream& out, std::ostream& err);

// --dialect for --filter (required with one); false after printing why.
bool ParseDialect(const EngineOptions& o, std::optional<FilterDialect>* dialect, std::ostream& err);

// --decay and --boost on `cmd` (`which` prefixes their help), and their
// parsing into specs (false, after printing the located error, when bad).
void AddRankingOptions(CLI::App* cmd, EngineOptions* o, const std::string& which);
bool ParseRanking(const EngineOptions& o, std::optional<DecaySpec>* decay,
                  std::optional<BoostSpec>* boost, std::ostream& err);

// The exit code for a failed Status (3 or 4), after printing it.
int ReportStatus(const Status& status, std::ostream& err);

// --fusion: empty leaves `*out` unset; false (after printing why) when
// malformed.
bool ParseFusionOption(const std::string& text, std::optional<FusionSpec>* out, std::ostream& err);

}  // namespace engram::cli

#endif  // ENGRAM_CLI_ENGINE_COMMANDS_H_
