// Retrieve: runs a named retrieve configuration (seed 000's Retrieve node,
// kept in the store with Engine::PutRetrieve) with a query and returns the
// knowledge chunks it finds.
#include <string>

#include "server/mcp/tools/arguments.h"
#include "server/mcp/tools/result_budget.h"
#include "server/mcp/tools/tool.h"

namespace engram::server::mcp {
namespace {

using nlohmann::json;

class RetrieveTool : public Tool {
 public:
  RetrieveTool()
      : name_("Retrieve"),
        descriptor_{
            {"name", name_},
            {"description",
             "Run a named retrieve configuration (its collection, filter, top_k and "
             "threshold are set up in the store) with a query; returns the matching knowledge "
             "chunks, best first."},
            {"inputSchema",
             {{"type", "object"},
              {"properties",
               {{"name",
                 {{"type", "string"},
                  {"description", "The retrieve configuration's name."},
                  {"minLength", 1},
                  {"maxLength", 256}}},
                {"query",
                 {{"type", "string"}, {"description", "What to look for."}, {"maxLength", 1000}}}}},
              {"required", json::array({"name", "query"})},
              {"additionalProperties", false}}},
            {"outputSchema",
             {{"type", "object"},
              {"properties",
               {{"name", {{"type", "string"}}},
                {"chunks",
                 {{"type", "array"},
                  {"items",
                   {{"type", "object"},
                    {"properties",
                     {{"id", {{"type", "string"}}},
                      {"score", {{"type", "number"}}},
                      {"relevance", {{"type", "number"}}},
                      {"record", {{"type", "object"}}}}},
                    {"required", json::array({"id", "score", "record"})}}}}},
                {"truncated", {{"type", "boolean"}}},
                {"omitted", {{"type", "integer"}, {"minimum", 0}}}}},
              {"required", json::array({"name", "chunks"})}}}} {}

  const std::string& name() const override { return name_; }
  const json& descriptor() const override { return descriptor_; }

  StatusOr<ToolResult> Call(const json& args, const ToolContext& context) const override {
    std::string name, query;
    std::string error = CheckArgumentObject(args, {"name", "query"});
    if (error.empty()) error = ReadString(args, "name", {true, 1, 256}, &name);
    if (error.empty()) error = ReadString(args, "query", {true, 0, 1000}, &query);
    if (!error.empty()) return ToolResult::Error(error);
    StatusOr<SearchResponse> response = context.store->engine()->Retrieve(
        name, query, std::nullopt, context.principal->scope(), context.bounds);
    if (!response.ok()) return response.status();
    if (response->rejected) return ToolResult::Error(response->rejected->message);
    json chunks = json::array();
    ResultBudget budget(context.bounds.max_reply_bytes);
    for (const SearchHit& hit : response->hits) {
      json record = json::parse(hit.record, nullptr, false);
      if (!record.is_object()) record = json::object();
      budget.Add(json{{"id", hit.id},
                      {"score", hit.score},
                      {"relevance", hit.relevance},
                      {"record", std::move(record)}},
                 &chunks);
    }
    json result{{"name", name}, {"chunks", std::move(chunks)}};
    budget.Report(*response, &result);
    return ToolResult{std::move(result), {}};
  }

 private:
  std::string name_;
  json descriptor_;
};

}  // namespace

std::unique_ptr<Tool> MakeRetrieveTool() {
  return std::make_unique<RetrieveTool>();
}

}  // namespace engram::server::mcp
