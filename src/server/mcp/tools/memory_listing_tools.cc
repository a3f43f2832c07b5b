// ListMemories and MemoryStats: the caller's memories under SearchMemory's
// `filters` (the search_memory dialect), a page at a time with a cursor
// (engine.h List: keyset pagination, the cursor bound to the query), or
// counted, with the top values or range counts of one field (Count,
// Facets). Expired and other agents' private memories never show.
#include <string>

#include "server/mcp/memory_view.h"
#include "server/mcp/tools/arguments.h"
#include "server/mcp/tools/search_memory_seed.h"
#include "server/mcp/tools/tool.h"

namespace engram::server::mcp {
namespace {

using nlohmann::json;

// SearchMemory's `filters` property, exactly as the seed declares it.
json FiltersSchema() {
  return json::parse(kSearchMemorySeed).at("inputSchema").at("properties").at("filters");
}

// `filters` as the selection's filter text (none when absent or empty).
std::string ReadFilters(const json& args, RecordSelection* selection) {
  if (!args.contains("filters")) return "";
  const json& filters = args["filters"];
  if (!filters.is_array())
    return std::string("filters: must be an array, got ") + filters.type_name();
  if (!filters.empty()) {
    selection->dialect = FilterDialect::kSearchMemory;
    selection->filter = filters.dump();
  }
  return "";
}

// A rejected request, located: filter diagnostics carry their filters[i]
// path already; the others are named by their argument.
std::string Located(const Diagnostic& d, std::string_view argument) {
  if (d.kind.rfind("filter.", 0) == 0) return d.message;
  std::string_view message = d.message;
  const std::string own = d.path + ": ";
  if (message.substr(0, own.size()) == own) message.remove_prefix(own.size());
  return std::string(argument) + ": " + std::string(message);
}

class ListMemoriesTool : public Tool {
 public:
  ListMemoriesTool()
      : name_("ListMemories"),
        descriptor_{
            {"name", name_},
            {"description",
             "List your stored memories page by page, newest first unless ordered by a field, "
             "optionally filtered. Pass the returned next_cursor to get the next page; no "
             "next_cursor means the list is complete."},
            {"inputSchema",
             {{"type", "object"},
              {"properties",
               {{"filters", FiltersSchema()},
                {"order_by",
                 {{"type", "string"},
                  {"description",
                   "A memory field to order by, with :asc (default) or :desc, e.g. "
                   "\"sequence_order:desc\". Default: newest timestamp first."},
                  {"maxLength", 128}}},
                {"page_size",
                 {{"type", "integer"},
                  {"description", "Memories per page"},
                  {"default", 20},
                  {"minimum", 1},
                  {"maximum", 100}}},
                {"cursor",
                 {{"type", "string"},
                  {"description", "next_cursor from the previous page of the same listing"},
                  {"maxLength", kMaxPageTokenBytes}}},
                {"detail",
                 {{"type", "string"},
                  {"enum", json::array({"compact", "summary", "graph", "full"})},
                  {"default", "summary"}}}}},
              {"additionalProperties", false}}},
            {"outputSchema",
             {{"type", "object"},
              {"properties",
               {{"memories", {{"type", "array"}, {"items", MemoryViewSchema()}}},
                {"next_cursor", {{"type", "string"}}}}},
              {"required", json::array({"memories"})}}}} {}

  const std::string& name() const override { return name_; }
  const json& descriptor() const override { return descriptor_; }

  StatusOr<ToolResult> Call(const json& args, const ToolContext& context) const override {
    ListRequest request;
    std::int64_t page_size = 20;
    std::string detail = "summary";
    std::string error =
        CheckArgumentObject(args, {"filters", "order_by", "page_size", "cursor", "detail"});
    if (error.empty()) error = ReadFilters(args, &request.selection);
    if (error.empty()) error = ReadString(args, "order_by", {false, 0, 128}, &request.order_by);
    if (error.empty()) error = ReadInteger(args, "page_size", 1, 100, &page_size);
    if (error.empty()) {
      error = ReadString(args, "cursor", {false, 0, kMaxPageTokenBytes}, &request.page_token);
    }
    if (error.empty()) {
      error = ReadEnum(args, "detail", {"compact", "summary", "graph", "full"}, &detail);
    }
    if (!error.empty()) return ToolResult::Error(error);
    if (Status s = context.store->Ensure(); !s.ok()) return s;
    request.page_size = static_cast<std::size_t>(page_size);
    request.selection.scope = context.principal->scope();
    request.bounds = context.bounds;
    StatusOr<ListResponse> page =
        context.store->engine()->List(context.store->collection(), request);
    if (!page.ok()) return page.status();
    if (page->rejected) {
      const Diagnostic& d = *page->rejected;
      return ToolResult::Error(Located(d, d.path == "page_token" ? "cursor" : d.path));
    }
    json memories = json::array();
    for (const ListedRecord& r : page->records) {
      const json parsed = json::parse(r.record, nullptr, false);
      if (parsed.is_object()) {
        memories.push_back(
            RenderMemory(parsed, 1.0, *DetailFromName(detail), context.options->clock()));
      }
    }
    json result{{"memories", std::move(memories)}};
    if (!page->next_page_token.empty()) result["next_cursor"] = page->next_page_token;
    return ToolResult{std::move(result), {}};
  }

 private:
  std::string name_;
  json descriptor_;
};

class MemoryStatsTool : public Tool {
 public:
  MemoryStatsTool()
      : name_("MemoryStats"),
        descriptor_{
            {"name", name_},
            {"description",
             "Count your stored memories, optionally filtered, and optionally break them down "
             "by one field: the most frequent values of session_id, tool, title and the other "
             "text fields, or counts per range of sequence_order or timestamp."},
            {"inputSchema",
             {{"type", "object"},
              {"properties",
               {{"filters", FiltersSchema()},
                {"field",
                 {{"type", "string"},
                  {"description", "A memory field to break the count down by."},
                  {"maxLength", 64}}},
                {"top",
                 {{"type", "integer"},
                  {"description", "How many of the most frequent values"},
                  {"default", 10},
                  {"minimum", 1},
                  {"maximum", 100}}},
                {"ranges",
                 {{"type", "array"},
                  {"description",
                   "For sequence_order or timestamp: ranges from (inclusive) to (exclusive); "
                   "either side may be left out."},
                  {"maxItems", kMaxFacetRanges},
                  {"items",
                   {{"type", "object"},
                    {"properties",
                     {{"from", {{"type", json::array({"number", "string"})}}},
                      {"to", {{"type", json::array({"number", "string"})}}}}},
                    {"additionalProperties", false}}}}}}},
              {"additionalProperties", false}}},
            {"outputSchema",
             {{"type", "object"},
              {"properties",
               {{"count", {{"type", "integer"}, {"minimum", 0}}},
                {"field", {{"type", "string"}}},
                {"values",
                 {{"type", "array"},
                  {"items",
                   {{"type", "object"},
                    {"properties",
                     {{"value", {{"type", json::array({"string", "boolean"})}}},
                      {"count", {{"type", "integer"}}}}},
                    {"required", json::array({"value", "count"})}}}}},
                {"ranges",
                 {{"type", "array"},
                  {"items",
                   {{"type", "object"},
                    {"properties",
                     {{"from", {{"type", json::array({"number", "string"})}}},
                      {"to", {{"type", json::array({"number", "string"})}}},
                      {"count", {{"type", "integer"}}}}},
                    {"required", json::array({"count"})}}}}}}},
              {"required", json::array({"count"})}}}} {}

  const std::string& name() const override { return name_; }
  const json& descriptor() const override { return descriptor_; }

  StatusOr<ToolResult> Call(const json& args, const ToolContext& context) const override {
    FacetRequest request;
    std::int64_t top = 10;
    std::string error = CheckArgumentObject(args, {"filters", "field", "top", "ranges"});
    if (error.empty()) error = ReadFilters(args, &request.selection);
    if (error.empty()) error = ReadString(args, "field", {false, 0, 64}, &request.field);
    if (error.empty()) error = ReadInteger(args, "top", 1, 100, &top);
    if (error.empty() && args.contains("ranges")) {
      const json& ranges = args["ranges"];
      if (!ranges.is_array() || ranges.size() > kMaxFacetRanges) {
        error = "ranges: must be an array of at most " + std::to_string(kMaxFacetRanges) +
                " {from, to} objects";
      }
      for (std::size_t i = 0; error.empty() && i < ranges.size(); ++i) {
        const std::string at = "ranges[" + std::to_string(i) + "]";
        error = CheckArgumentObject(ranges[i], {"from", "to"});
        if (!error.empty()) error = at + ": " + error;
        FacetRange range;
        for (const char* side : {"from", "to"}) {
          if (!error.empty() || !ranges[i].contains(side)) continue;
          const json& v = ranges[i][side];
          std::optional<std::string>& out =
              std::string_view(side) == "from" ? range.from : range.to;
          if (v.is_number()) {
            out = v.dump();
          } else if (v.is_string() && v.get_ref<const std::string&>().size() <= 64) {
            out = v.get<std::string>();
          } else {
            error = at + "." + side + ": must be a number or a datetime string";
          }
        }
        request.ranges.push_back(std::move(range));
      }
    }
    if (!error.empty()) return ToolResult::Error(error);
    if (Status s = context.store->Ensure(); !s.ok()) return s;
    request.top = static_cast<std::size_t>(top);
    request.selection.scope = context.principal->scope();
    request.bounds = context.bounds;
    Engine* engine = context.store->engine();
    StatusOr<CountResponse> count =
        engine->Count(context.store->collection(), request.selection, request.bounds);
    if (!count.ok()) return count.status();
    if (count->rejected) return ToolResult::Error(Located(*count->rejected, "filters"));
    json result{{"count", count->count}};
    if (request.field.empty()) {
      if (!request.ranges.empty()) return ToolResult::Error("ranges: name the field they apply to");
      return ToolResult{std::move(result), {}};
    }
    StatusOr<FacetResponse> facets = engine->Facets(context.store->collection(), request);
    if (!facets.ok()) return facets.status();
    if (facets->rejected) {
      return ToolResult::Error(Located(*facets->rejected, facets->rejected->path));
    }
    result["field"] = facets->field;
    if (!facets->ranges.empty()) {
      json ranges = json::array();
      // Each range as the caller wrote it, with its count.
      for (std::size_t i = 0; i < facets->ranges.size(); ++i) {
        json range = args["ranges"][i];
        range["count"] = facets->ranges[i].count;
        ranges.push_back(std::move(range));
      }
      result["ranges"] = std::move(ranges);
    } else {
      json values = json::array();
      for (const FacetValue& v : facets->values) {
        values.push_back({{"value", json::parse(v.value)}, {"count", v.count}});
      }
      result["values"] = std::move(values);
    }
    return ToolResult{std::move(result), {}};
  }

 private:
  std::string name_;
  json descriptor_;
};

}  // namespace

std::unique_ptr<Tool> MakeListMemoriesTool() {
  return std::make_unique<ListMemoriesTool>();
}

std::unique_ptr<Tool> MakeMemoryStatsTool() {
  return std::make_unique<MemoryStatsTool>();
}

}  // namespace engram::server::mcp
