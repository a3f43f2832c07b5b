// `engram list`, `engram count` and `engram facets` (engine.h List, Count,
// Facets): a bad filter, order, page token, field or range is exit 1 with
// the located error (and {"ok":false,"error":...} on stdout).
#include <ostream>
#include <string>

#include "cli/engine_commands.h"
#include "cli/output.h"
#include "cli/store_option.h"

namespace engram::cli {
namespace {

// --ranges FROM..TO,...: false after printing why.
bool ParseRanges(const std::string& text, std::vector<FacetRange>* ranges, std::ostream& err) {
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string range = text.substr(start, comma - start);
    const std::size_t dots = range.find("..");
    if (dots == std::string::npos) {
      err << "engram: --ranges: '" << range << "' is not FROM..TO (either side may be empty)\n";
      return false;
    }
    FacetRange r;
    if (dots > 0) r.from = range.substr(0, dots);
    if (dots + 2 < range.size()) r.to = range.substr(dots + 2);
    ranges->push_back(std::move(r));
    start = comma + 1;
  }
  return true;
}

// The selection of --filter/--dialect; false after printing why.
bool ParseSelection(const EngineOptions& o, RecordSelection* selection, std::ostream& err) {
  if (!ParseDialect(o, &selection->dialect, err)) return false;
  selection->filter = o.filter;
  selection->as_of = o.as_of;
  return true;
}

int Rejected(const Diagnostic& d, std::ostream& out, std::ostream& err) {
  err << "engram: " << (d.path.empty() || d.message.rfind(d.path, 0) == 0 ? "" : d.path + ": ")
      << d.message << '\n';
  return WriteRejected(out, DiagnosticJson(d));
}

}  // namespace

int RunList(const EngineOptions& o, std::ostream& out, std::ostream& err) {
  ListRequest request;
  if (!ParseSelection(o, &request.selection, err)) return 2;
  request.order_by = o.order_by;
  request.page_size = o.page_size;
  request.page_token = o.page_token;
  StatusOr<std::unique_ptr<Engine>> engine = OpenStore(o.db, "engram list");
  if (!engine.ok()) return ReportStatus(engine.status(), err);
  StatusOr<ListResponse> r = (*engine)->List(o.collection, request);
  if (!r.ok()) return ReportStatus(r.status(), err);
  if (r->rejected) return Rejected(*r->rejected, out, err);
  if (o.json) {
    Json records = Json::array();
    for (const ListedRecord& record : r->records) records.push_back(Json::parse(record.record));
    Json doc = {{"records", std::move(records)}};
    if (!r->next_page_token.empty()) doc["next_page_token"] = r->next_page_token;
    out << Dump(doc) << '\n';
    return 0;
  }
  if (r->records.empty()) out << "no records\n";
  for (const ListedRecord& record : r->records) out << record.id << '\t' << record.record << '\n';
  if (!r->next_page_token.empty()) out << "next page: --page-token " << r->next_page_token << '\n';
  return 0;
}

int RunCount(const EngineOptions& o, std::ostream& out, std::ostream& err) {
  RecordSelection selection;
  if (!ParseSelection(o, &selection, err)) return 2;
  StatusOr<std::unique_ptr<Engine>> engine = OpenStore(o.db, "engram count");
  if (!engine.ok()) return ReportStatus(engine.status(), err);
  StatusOr<CountResponse> r = (*engine)->Count(o.collection, selection);
  if (!r.ok()) return ReportStatus(r.status(), err);
  if (r->rejected) return Rejected(*r->rejected, out, err);
  if (o.json) {
    out << Dump(Json{{"count", r->count}}) << '\n';
  } else {
    out << r->count << '\n';
  }
  return 0;
}

int RunFacets(const EngineOptions& o, std::ostream& out, std::ostream& err) {
  FacetRequest request;
  if (!ParseSelection(o, &request.selection, err)) return 2;
  request.field = o.field;
  request.top = o.top;
  if (!o.ranges.empty() && !ParseRanges(o.ranges, &request.ranges, err)) return 2;
  StatusOr<std::unique_ptr<Engine>> engine = OpenStore(o.db, "engram facets");
  if (!engine.ok()) return ReportStatus(engine.status(), err);
  StatusOr<FacetResponse> r = (*engine)->Facets(o.collection, request);
  if (!r.ok()) return ReportStatus(r.status(), err);
  if (r->rejected) return Rejected(*r->rejected, out, err);
  Json doc = {{"field", r->field}};
  if (!r->ranges.empty()) {
    Json ranges = Json::array();
    for (const FacetRangeCount& c : r->ranges) {
      Json range = Json::object();
      if (c.range.from) range["from"] = *c.range.from;
      if (c.range.to) range["to"] = *c.range.to;
      range["count"] = c.count;
      ranges.push_back(std::move(range));
      if (!o.json) {
        out << c.range.from.value_or("") << ".." << c.range.to.value_or("") << '\t' << c.count
            << '\n';
      }
    }
    doc["ranges"] = std::move(ranges);
  } else {
    Json values = Json::array();
    for (const FacetValue& v : r->values) {
      values.push_back({{"value", Json::parse(v.value)}, {"count", v.count}});
      if (!o.json) out << v.value << '\t' << v.count << '\n';
    }
    doc["values"] = std::move(values);
  }
  if (o.json) out << Dump(doc) << '\n';
  return 0;
}

}  // namespace engram::cli
