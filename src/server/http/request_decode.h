// Decoding request bodies into engine requests: JSON text -> a bounded,
// validated struct from include/engram, or the 400/422 Problem that says
// where (`$.records[3]`, `$.k`, `$.filter`) and why. Engine-free, so the fuzz
// target (tests/fuzz/http_request_fuzz.cc) drives it with raw bytes.
#ifndef ENGRAM_SERVER_HTTP_REQUEST_DECODE_H_
#define ENGRAM_SERVER_HTTP_REQUEST_DECODE_H_

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "engram/engine.h"
#include "server/http/problem.h"

namespace engram::server::http {

// The request bounds (all flags of `engram serve`).
struct Limits {
  std::size_t max_body_bytes = 8 << 20;
  std::size_t max_batch = 1000;  // records per upsert, ids per delete
  std::size_t max_query_bytes = 4096;
  std::size_t max_filter_bytes = 64 << 10;
  std::size_t max_k = 1000;
  std::size_t max_json_depth = 64;
  std::size_t max_vector_dim = 65536;
  // Bounds on the work a request may cause (RequestBounds): the deadline
  // after its arrival (0: none), the prefix-expansion cap, and the byte
  // budget of a search reply's hits.
  std::chrono::milliseconds request_timeout{5000};
  std::size_t max_expansions = 1024;
  std::size_t max_reply_bytes = 16 << 20;
};

// A decoded value or the Problem explaining why there is none.
template <typename T>
class Decoded {
 public:
  Decoded(T value) : rep_(std::move(value)) {}            // NOLINT(google-explicit-constructor)
  Decoded(Problem problem) : rep_(std::move(problem)) {}  // NOLINT(google-explicit-constructor)
  bool ok() const { return std::holds_alternative<T>(rep_); }
  T& value() { return std::get<T>(rep_); }
  const Problem& problem() const { return std::get<Problem>(rep_); }

 private:
  std::variant<T, Problem> rep_;
};

// The body as a JSON object (size, depth, duplicate keys, UTF-8 checked).
Decoded<nlohmann::json> ParseBody(std::string_view body, const Limits& limits);

struct UpsertBody {
  std::vector<std::string> records;  // JSON object texts
};
struct DeleteBody {
  std::vector<std::string> ids;      // by id, or else by filter
  std::optional<std::string> agent;  // with ids: their owner (engine.h, "Record keys")
  bool by_filter = false;
  FilterDialect dialect = FilterDialect::kRetrieve;
  std::string filter;
};
struct FilterBody {
  FilterDialect dialect = FilterDialect::kRetrieve;
  std::string filter;
  std::string target;  // translate only
};
struct GetBody {
  std::string id;
  GetRequest request;  // agent, as_of, include_history (the scope is the caller's)
};
struct RunBody {
  std::string query;
  std::optional<std::vector<float>> vector;
};

// POST /v1/collections: {name, schema, text, vector, language, time_field,
// embedder, fusion}. `schema` is "preset:memory", "preset:notes" or an inline
// schema object (never a server-side file); `embedder` a spec string or
// object, `fusion` a fusion string or object (docs/embedders.md).
Decoded<CollectionSpec> DecodeCollectionSpec(const nlohmann::json& body, const Limits& limits);
// POST /v1/collections/{name}/reembed: {embedder}.
Decoded<EmbedderSpec> DecodeReembed(const nlohmann::json& body, const Limits& limits);
Decoded<UpsertBody> DecodeUpsert(const nlohmann::json& body, const Limits& limits);
Decoded<DeleteBody> DecodeDelete(const nlohmann::json& body, const Limits& limits);
// The longest as_of accepted (an RFC 3339 datetime is at most ~35 bytes).
inline constexpr std::size_t kMaxAsOfBytes = 64;
Decoded<SearchRequest> DecodeSearch(const nlohmann::json& body, const Limits& limits);
// records:get {id, agent, as_of, include_history} (engine.h GetRequest).
Decoded<GetBody> DecodeGet(const nlohmann::json& body, const Limits& limits);
// records:list {filter, dialect, as_of, order_by, page_size, page_token},
// records:count {filter, dialect, as_of}, records:facets {field, top,
// ranges, filter, dialect, as_of} (listing.h). Range bounds are numbers or datetime strings.
Decoded<ListRequest> DecodeList(const nlohmann::json& body, const Limits& limits);
Decoded<RecordSelection> DecodeCount(const nlohmann::json& body, const Limits& limits);
Decoded<FacetRequest> DecodeFacets(const nlohmann::json& body, const Limits& limits);
// filters/check (`translate` false) and filters/translate.
Decoded<FilterBody> DecodeFilter(const nlohmann::json& body, const Limits& limits, bool translate);
// PUT /v1/retrieves/{name}: the spec named `name`.
Decoded<RetrieveSpec> DecodeRetrieveSpec(const nlohmann::json& body, const Limits& limits,
                                         const std::string& name);
// PATCH /v1/retrieves/{name}/filter: a string filter may be blank (clears it).
Decoded<FilterBody> DecodeRetrieveFilter(const nlohmann::json& body, const Limits& limits);
Decoded<RunBody> DecodeRun(const nlohmann::json& body, const Limits& limits);

// Routes `method` + `path` and decodes `body` as that route would, without an
// engine: nullopt when the request would reach the engine, else its Problem.
std::optional<Problem> CheckRequest(std::string_view method, std::string_view path,
                                    std::string_view body, const Limits& limits);

}  // namespace engram::server::http

#endif  // ENGRAM_SERVER_HTTP_REQUEST_DECODE_H_
