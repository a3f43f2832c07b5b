#include "server/http/request_decode.h"

#include <algorithm>

#include "server/common/json_input.h"
#include "server/http/json_reader.h"
#include "server/http/request_fields.h"
#include "server/http/router.h"

namespace engram::server::http {
namespace {

using nlohmann::json;

const std::vector<std::string_view> kDialects = {"retrieve", "expr_v1", "vector_filter",
                                                 "search_memory"};

bool Blank(std::string_view s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; });
}

// `filter`: absent or null is none; a string is the filter text itself; any
// other JSON value (the dialects' objects and arrays) is handed over as text.
bool ReadFilter(ObjectReader& r, const Limits& limits, std::string* text) {
  const json* v = r.Get("filter");
  if (v == nullptr) return false;
  std::string t = v->is_string() ? v->get<std::string>() : v->dump();
  if (t.size() > limits.max_filter_bytes) {
    r.Fail("filter", "exceeds the limit of " + std::to_string(limits.max_filter_bytes) + " bytes");
    return false;
  }
  *text = std::move(t);
  return true;
}

bool ReadDialect(ObjectReader& r, FilterDialect* out) {
  std::string name;
  if (!r.Enum("dialect", &name, kDialects)) return false;
  *out = *FilterDialectFromName(name);
  return true;
}

// A filter with its dialect; the dialect is required when a filter is given.
// Returns whether a (non-blank) filter is present.
bool ReadFilterAndDialect(ObjectReader& r, const Limits& limits, std::string* text,
                          FilterDialect* dialect, std::optional<FilterDialect> fallback) {
  const bool has_filter = ReadFilter(r, limits, text) && !Blank(*text);
  const bool has_dialect = ReadDialect(r, dialect);
  if (!has_dialect && fallback) *dialect = *fallback;
  if (has_filter && !has_dialect && !fallback && r.ok()) {
    r.Fail("dialect",
           "is required with a filter (retrieve, expr_v1, vector_filter, search_memory)");
  }
  return has_filter;
}

template <typename T>
Decoded<T> Finish(ObjectReader& r, T value) {
  if (!r.Finish()) return r.problem();
  return value;
}

}  // namespace

Decoded<json> ParseBody(std::string_view body, const Limits& limits) {
  if (body.size() > limits.max_body_bytes) return PayloadTooLarge(limits.max_body_bytes);
  if (Blank(body)) return BadRequest("$", "$: the request needs a JSON object body");
  JsonInput in = ParseJsonInput(body, JsonLimits{limits.max_body_bytes, limits.max_json_depth});
  if (!in.ok()) {
    return BadRequest("$", "$: the body is not valid JSON: " + in.error, "request.invalid_json");
  }
  if (!in.value.is_object()) {
    return BadRequest("$", "$: expected a JSON object, got " + JsonTypeName(in.value));
  }
  return std::move(in.value);
}

Decoded<UpsertBody> DecodeUpsert(const json& body, const Limits& limits) {
  ObjectReader r(body, "$");
  UpsertBody out;
  if (const json* records = r.Require("records"); records != nullptr) {
    if (!records->is_array() || records->empty() || records->size() > limits.max_batch) {
      r.Fail("records", "expected an array of 1 to " + std::to_string(limits.max_batch) +
                            " record objects" +
                            (records->is_array() ? ", got " + std::to_string(records->size())
                                                 : ", got " + JsonTypeName(*records)));
    }
    for (std::size_t i = 0; r.ok() && i < records->size(); ++i) {
      const json& rec = (*records)[i];
      if (!rec.is_object()) {
        const std::string path = JsonPathIndex(r.PathOf("records"), i);
        r.Fail(BadRequest(path, path + ": expected a record object, got " + JsonTypeName(rec)));
        break;
      }
      out.records.push_back(rec.dump());
    }
  }
  return Finish(r, std::move(out));
}

Decoded<DeleteBody> DecodeDelete(const json& body, const Limits& limits) {
  ObjectReader r(body, "$");
  DeleteBody out;
  const json* ids = r.Get("ids");
  out.by_filter = ReadFilterAndDialect(r, limits, &out.filter, &out.dialect, std::nullopt);
  if (ids != nullptr && out.by_filter) {
    r.Fail("ids", "give either ids or a filter, not both");
  } else if (ids == nullptr && !out.by_filter) {
    r.Fail(BadRequest("$", "$: give ids (an array of record ids) or a filter with its dialect"));
  } else if (ids != nullptr) {
    if (!ids->is_array() || ids->empty() || ids->size() > limits.max_batch) {
      r.Fail("ids", "expected an array of 1 to " + std::to_string(limits.max_batch) + " ids");
    }
    for (std::size_t i = 0; r.ok() && i < ids->size(); ++i) {
      const json& id = (*ids)[i];
      if (!id.is_string() || id.get_ref<const std::string&>().empty() ||
          id.get_ref<const std::string&>().size() > 1024) {
        const std::string path = JsonPathIndex(r.PathOf("ids"), i);
        r.Fail(BadRequest(path, path + ": expected a non-empty id string of at most 1024 bytes"));
        break;
      }
      out.ids.push_back(id.get<std::string>());
    }
  }
  std::string agent;
  if (r.String("agent", &agent, 1024)) {
    if (out.by_filter) {
      r.Fail("agent", "an agent names the owner of ids; a filter names its own records");
    } else if (agent.empty()) {
      r.Fail("agent", "expected a non-empty agent id");
    }
    out.agent = std::move(agent);
  }
  return Finish(r, std::move(out));
}

Decoded<SearchRequest> DecodeSearch(const json& body, const Limits& limits) {
  ObjectReader r(body, "$");
  SearchRequest req;
  std::string query;
  if (r.String("query", &query, limits.max_query_bytes)) req.query = std::move(query);
  r.Vector("vector", &req.vector, limits.max_vector_dim);
  std::string name;
  if (r.Enum("mode", &name, {"text", "vector", "hybrid"})) req.mode = SearchModeFromName(name);
  FilterDialect dialect = FilterDialect::kRetrieve;
  if (!ReadFilterAndDialect(r, limits, &req.filter, &dialect, std::nullopt)) {
    req.filter.clear();
  } else {
    req.dialect = dialect;
  }
  r.Size("k", &req.k, 1, limits.max_k);
  std::size_t candidate_k = 0;
  if (r.Size("candidate_k", &candidate_k, 1, std::max<std::size_t>(10000, limits.max_k))) {
    req.candidate_k = candidate_k;
  }
  if (r.Enum("filter_mode", &name, {"auto", "pre", "post"})) {
    req.filter_mode = *FilterModeFromName(name);
  }
  double d = 0;
  if (r.Number("threshold", &d, 0, 1e12)) req.threshold = d;
  if (r.Number("score_threshold", &d, 0, 1)) req.score_threshold = d;
  r.String("anchor", &req.anchor, 32);
  r.String("as_of", &req.as_of, kMaxAsOfBytes);
  ReadRanking(r, &req.decay, &req.boost);
  ReadFusion(r, &req.fusion);
  r.Bool("explain", &req.explain);
  r.Bool("impact", &req.impact);
  return Finish(r, std::move(req));
}

namespace {
// The filter and dialect of a listing, count or facets body.
RecordSelection ReadSelection(ObjectReader& r, const Limits& limits) {
  RecordSelection s;
  FilterDialect dialect = FilterDialect::kRetrieve;
  if (ReadFilterAndDialect(r, limits, &s.filter, &dialect, std::nullopt)) {
    s.dialect = dialect;
  } else {
    s.filter.clear();
  }
  r.String("as_of", &s.as_of, kMaxAsOfBytes);
  return s;
}
}  // namespace

Decoded<ListRequest> DecodeList(const json& body, const Limits& limits) {
  ObjectReader r(body, "$");
  ListRequest req;
  req.selection = ReadSelection(r, limits);
  r.String("order_by", &req.order_by, 128);
  r.Size("page_size", &req.page_size, 1, kMaxPageSize);
  r.String("page_token", &req.page_token, kMaxPageTokenBytes);
  return Finish(r, std::move(req));
}

Decoded<RecordSelection> DecodeCount(const json& body, const Limits& limits) {
  ObjectReader r(body, "$");
  RecordSelection s = ReadSelection(r, limits);
  return Finish(r, std::move(s));
}

Decoded<FacetRequest> DecodeFacets(const json& body, const Limits& limits) {
  ObjectReader r(body, "$");
  FacetRequest req;
  req.selection = ReadSelection(r, limits);
  if (r.Require("field")) r.String("field", &req.field, 64);
  r.Size("top", &req.top, 1, kMaxFacetTop);
  if (const json* ranges = r.Get("ranges"); ranges != nullptr) {
    if (!ranges->is_array() || ranges->empty() || ranges->size() > kMaxFacetRanges) {
      r.Fail("ranges", "expected an array of 1 to " + std::to_string(kMaxFacetRanges) +
                           " {from, to} objects");
    }
    for (std::size_t i = 0; r.ok() && i < ranges->size(); ++i) {
      ObjectReader range((*ranges)[i], JsonPathIndex(r.PathOf("ranges"), i));
      FacetRange out;
      for (const char* side : {"from", "to"}) {
        const json* v = range.Get(side);
        if (v == nullptr) continue;
        if (v->is_number()) {
          (std::string_view(side) == "from" ? out.from : out.to) = v->dump();
        } else if (v->is_string() && v->get_ref<const std::string&>().size() <= 64) {
          (std::string_view(side) == "from" ? out.from : out.to) = v->get<std::string>();
        } else {
          range.Fail(side, "expected a number or a datetime string, got " + JsonTypeName(*v));
        }
      }
      if (!range.Finish()) r.Fail(range.problem());
      req.ranges.push_back(std::move(out));
    }
  }
  return Finish(r, std::move(req));
}

Decoded<FilterBody> DecodeFilter(const json& body, const Limits& limits, bool translate) {
  ObjectReader r(body, "$");
  FilterBody out;
  r.Require("filter");
  ReadFilterAndDialect(r, limits, &out.filter, &out.dialect, std::nullopt);
  if (r.ok() && !r.Get("dialect")) r.Fail("dialect", "is required");
  if (translate && r.Require("target")) r.String("target", &out.target, 64);
  return Finish(r, std::move(out));
}

Decoded<RetrieveSpec> DecodeRetrieveSpec(const json& body, const Limits& limits,
                                         const std::string& name) {
  ObjectReader r(body, "$");
  RetrieveSpec spec;
  spec.name = name;
  if (r.Require("collection")) r.String("collection", &spec.collection, 64);
  ReadFilterAndDialect(r, limits, &spec.filter, &spec.dialect, FilterDialect::kRetrieve);
  r.Size("top_k", &spec.top_k, 1, limits.max_k);
  r.Number("threshold", &spec.threshold, 0, 1e12);
  std::string mode;
  if (r.Enum("mode", &mode, {"text", "vector", "hybrid"})) spec.mode = *SearchModeFromName(mode);
  return Finish(r, std::move(spec));
}

Decoded<FilterBody> DecodeRetrieveFilter(const json& body, const Limits& limits) {
  ObjectReader r(body, "$");
  FilterBody out;
  // Present but possibly blank: a blank text clears the filter (FILTERS.md §1.6).
  if (r.Require("filter")) ReadFilter(r, limits, &out.filter);
  if (!ReadDialect(r, &out.dialect)) out.dialect = FilterDialect::kRetrieve;
  return Finish(r, std::move(out));
}

Decoded<GetBody> DecodeGet(const json& body, const Limits& /*limits*/) {
  ObjectReader r(body, "$");
  GetBody out;
  if (r.Require("id") && r.String("id", &out.id, 1024) && out.id.empty()) {
    r.Fail("id", "expected a non-empty record id");
  }
  std::string agent;
  if (r.String("agent", &agent, 1024)) {
    if (agent.empty()) r.Fail("agent", "expected a non-empty agent id");
    out.request.agent = std::move(agent);
  }
  r.String("as_of", &out.request.as_of, kMaxAsOfBytes);
  r.Bool("include_history", &out.request.include_history);
  return Finish(r, std::move(out));
}

Decoded<RunBody> DecodeRun(const json& body, const Limits& limits) {
  ObjectReader r(body, "$");
  RunBody out;
  r.String("query", &out.query, limits.max_query_bytes);
  r.Vector("vector", &out.vector, limits.max_vector_dim);
  return Finish(r, std::move(out));
}

std::optional<Problem> CheckRequest(std::string_view method, std::string_view path,
                                    std::string_view body, const Limits& limits) {
  std::variant<RouteMatch, Problem> m = MatchRoute(method, path);
  if (auto* p = std::get_if<Problem>(&m)) return *p;
  const RouteMatch& route = std::get<RouteMatch>(m);
  if (!HasJsonBody(route.route)) return std::nullopt;
  Decoded<json> doc = ParseBody(body, limits);
  if (!doc.ok()) return doc.problem();
  auto problem_of = [](const auto& decoded) -> std::optional<Problem> {
    if (decoded.ok()) return std::nullopt;
    return decoded.problem();
  };
  switch (route.route) {
    case Route::kCreateCollection:
      return problem_of(DecodeCollectionSpec(doc.value(), limits));
    case Route::kReembedCollection:
      return problem_of(DecodeReembed(doc.value(), limits));
    case Route::kUpsertRecords:
      return problem_of(DecodeUpsert(doc.value(), limits));
    case Route::kDeleteRecords:
      return problem_of(DecodeDelete(doc.value(), limits));
    case Route::kSearch:
      return problem_of(DecodeSearch(doc.value(), limits));
    case Route::kListRecords:
      return problem_of(DecodeList(doc.value(), limits));
    case Route::kCountRecords:
      return problem_of(DecodeCount(doc.value(), limits));
    case Route::kFacetRecords:
      return problem_of(DecodeFacets(doc.value(), limits));
    case Route::kCheckFilter:
      return problem_of(DecodeFilter(doc.value(), limits, false));
    case Route::kTranslateFilter:
      return problem_of(DecodeFilter(doc.value(), limits, true));
    case Route::kPutRetrieve:
      return problem_of(DecodeRetrieveSpec(doc.value(), limits, route.name));
    case Route::kSetRetrieveFilter:
      return problem_of(DecodeRetrieveFilter(doc.value(), limits));
    case Route::kRunRetrieve:
      return problem_of(DecodeRun(doc.value(), limits));
    case Route::kGetRecordVersion:
      return problem_of(DecodeGet(doc.value(), limits));
    default:
      return std::nullopt;
  }
}

}  // namespace engram::server::http
