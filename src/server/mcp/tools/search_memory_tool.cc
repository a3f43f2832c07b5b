// SearchMemory (seed 001, SEARCH.md §5): basic and filtered search over the
// `memories` collection, or one memory by id, shown at a chosen detail.
#include <string>
#include <vector>

#include "server/mcp/memory_view.h"
#include "server/mcp/tools/arguments.h"
#include "server/mcp/tools/result_budget.h"
#include "server/mcp/tools/search_memory_seed.h"
#include "server/mcp/tools/tool.h"
#include "server/mcp/uuid.h"

namespace engram::server::mcp {
namespace {

using nlohmann::json;

struct SearchArguments {
  std::string query;
  std::int64_t limit = 3;
  std::string search_type = "basic";
  json filters = json::array();
  std::string detail = "summary";
  double score_threshold = 0.4;
};

// Every bound of the seed's inputSchema, checked here because a client need
// not validate before calling. The `filters` items are checked by the
// engine's `search_memory` dialect, which locates errors as
// `filters[<i>].<key>: <message>`.
std::string ReadArguments(const json& args, SearchArguments* out) {
  std::string error = CheckArgumentObject(
      args, {"query", "limit", "search_type", "filters", "detail", "score_threshold"});
  if (error.empty()) error = ReadString(args, "query", {true, 0, 1000}, &out->query);
  if (error.empty()) error = ReadInteger(args, "limit", 1, 100, &out->limit);
  if (error.empty()) {
    error = ReadEnum(args, "search_type", {"basic", "filtered", "by_memory_id"}, &out->search_type);
  }
  if (error.empty() && args.contains("filters")) {
    const json& filters = args["filters"];
    if (!filters.is_array())
      return std::string("filters: must be an array, got ") + filters.type_name();
    out->filters = filters;
  }
  if (error.empty()) {
    error = ReadEnum(args, "detail", {"compact", "summary", "graph", "full"}, &out->detail);
  }
  if (error.empty()) error = ReadNumber(args, "score_threshold", 0, 1, &out->score_threshold);
  return error;
}

bool IsBlank(const std::string& text) {
  return text.find_first_not_of(" \t\r\n") == std::string::npos;
}

class SearchMemoryTool : public Tool {
 public:
  SearchMemoryTool() {
    const json seed = json::parse(kSearchMemorySeed);
    name_ = seed.at("name").get<std::string>();
    descriptor_ = seed;
    descriptor_["outputSchema"] =
        json{{"type", "object"},
             {"properties",
              {{"results", {{"type", "array"}, {"items", MemoryViewSchema()}}},
               {"search_type", {{"type", "string"}}},
               {"detail", {{"type", "string"}}},
               {"truncated", {{"type", "boolean"}}},
               {"omitted", {{"type", "integer"}, {"minimum", 0}}}}},
             {"required", json::array({"results"})}};
  }

  const std::string& name() const override { return name_; }
  const json& descriptor() const override { return descriptor_; }

  StatusOr<ToolResult> Call(const json& arguments, const ToolContext& context) const override {
    SearchArguments args;
    if (std::string error = ReadArguments(arguments, &args); !error.empty()) {
      return ToolResult::Error(error);
    }
    if (Status s = context.store->Ensure(); !s.ok()) return s;
    const Detail detail = *DetailFromName(args.detail);
    const TimePoint now = context.options->clock();
    json results = json::array();
    ResultBudget budget(context.bounds.max_reply_bytes);
    SearchResponse searched;  // what the engine left out, for the report
    Engine* engine = context.store->engine();
    const std::string& collection = context.store->collection();
    if (args.search_type == "by_memory_id") {
      // Filters and threshold are ignored; the id is the whole question.
      if (!IsUuid(args.query)) {
        return ToolResult::Error(
            "query: must be a memory UUID (8-4-4-4-12 hexadecimal digits) for search_type "
            "by_memory_id, got \"" +
            Preview(args.query, 60) + "\"");
      }
      // UUIDs compare case-insensitively (uuid.h).
      for (const std::string& spelling : UuidSpellings(args.query)) {
        StatusOr<std::optional<std::string>> record =
            engine->Get(collection, spelling, context.principal->scope());
        if (!record.ok()) return record.status();
        if (!record->has_value()) continue;
        const json parsed = json::parse(**record, nullptr, false);
        if (parsed.is_object()) budget.Add(RenderMemory(parsed, 1.0, detail, now), &results);
        break;
      }
    } else {
      SearchRequest request;
      request.scope = context.principal->scope();
      request.k = static_cast<std::size_t>(args.limit);
      request.bounds = context.bounds;
      if (!args.filters.empty()) {
        request.dialect = FilterDialect::kSearchMemory;
        request.filter = args.filters.dump();
      }
      // An empty query cannot rank: `filtered` lists what passes the
      // filters, newest first, with no threshold, and `basic` does the same
      // (SEARCH.md §5: basic is filtered with a ranking query).
      const bool listing = IsBlank(args.query);
      if (!listing) {
        request.query = args.query;
        request.score_threshold = args.score_threshold;
      }
      StatusOr<SearchResponse> response = engine->Search(collection, request);
      if (!response.ok()) return response.status();
      if (response->rejected) return ToolResult::Error(Located(*response->rejected));
      for (const SearchHit& hit : response->hits) {
        const json parsed = json::parse(hit.record, nullptr, false);
        if (!parsed.is_object()) continue;
        budget.Add(RenderMemory(parsed, hit.relevance, detail, now), &results);
      }
      searched.truncated = response->truncated;
      searched.omitted = response->omitted;
    }
    json result{{"results", std::move(results)},
                {"search_type", args.search_type},
                {"detail", args.detail}};
    budget.Report(searched, &result);
    return ToolResult{std::move(result), {}};
  }

 private:
  // Filter diagnostics already start with their `filters[i].key` path; a
  // query's do not.
  static std::string Located(const Diagnostic& d) {
    if (d.kind.rfind("query.", 0) == 0) return "query: " + d.message;
    return d.message;
  }

  std::string name_;
  json descriptor_;
};

}  // namespace

std::unique_ptr<Tool> MakeSearchMemoryTool() {
  return std::make_unique<SearchMemoryTool>();
}

}  // namespace engram::server::mcp
