#include "cli/filter_command.h"

#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "cli/output.h"
#include "engram/filter.h"

namespace engram::cli {
namespace {

// The filter text: the argument, or stdin when it is absent or "-".
// stdin is read up to a bound well past any filter limit, so that an
// oversized filter is reported as such rather than truncated.
constexpr std::size_t kMaxStdinBytes = 16 << 20;

bool ReadFilterText(const FilterOptions& o, std::istream& in, std::string* text,
                    std::ostream& err) {
  if (o.filter != "-") {
    *text = o.filter;
    return true;
  }
  std::string data;
  char buf[65536];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    data.append(buf, static_cast<std::size_t>(in.gcount()));
    if (data.size() > kMaxStdinBytes) {
      err << "engram: filter on stdin is larger than " << kMaxStdinBytes << " bytes\n";
      return false;
    }
  }
  *text = std::move(data);
  return true;
}

struct Prepared {
  SchemaRef schema;
  CompiledFilterRef filter;
};

// Loads the schema and compiles the filter. Returns the exit code to stop
// with, or -1 with `*prepared` set.
int Prepare(const FilterOptions& o, std::istream& in, std::ostream& out, std::ostream& err,
            std::optional<Prepared>* prepared) {
  std::optional<FilterDialect> dialect = FilterDialectFromName(o.dialect);
  if (!dialect) {
    err << "engram: unknown dialect '" << o.dialect
        << "' (expected retrieve, expr_v1, vector_filter, search_memory)\n";
    return 2;
  }
  StatusOr<SchemaRef> schema = SchemaRef::Load(o.schema);
  if (!schema.ok()) {
    err << "engram: --schema: " << schema.status().message() << '\n';
    return 2;
  }
  std::string text;
  if (!ReadFilterText(o, in, &text, err)) return 2;
  Checked<CompiledFilterRef> compiled = CompiledFilterRef::Compile(*dialect, *schema, text);
  if (!compiled.ok()) return WriteRejected(out, DiagnosticJson(compiled.diagnostic()));
  prepared->emplace(Prepared{*schema, compiled.value()});
  return -1;
}

}  // namespace

void AddFilterCommands(CLI::App* app, FilterOptions* o, std::string* run) {
  CLI::App* filter = app->add_subcommand("filter", "Check and evaluate filters in any dialect");
  filter->require_subcommand(1);
  auto common = [o](CLI::App* cmd) {
    cmd->add_option("--dialect", o->dialect, "retrieve | expr_v1 | vector_filter | search_memory")
        ->required();
    cmd->add_option("--schema", o->schema, "a schema JSON file, or preset:memory / preset:notes")
        ->required();
    cmd->add_option("FILTER", o->filter,
                    "the filter JSON (search_memory: the filters array; expr_v1: the envelope); "
                    "stdin when absent or -");
    cmd->add_option("--ir", o->ir_format, "print the IR as json (default) or sexpr")
        ->check(CLI::IsMember({"json", "sexpr"}));
    cmd->add_flag("--unoptimized", o->unoptimized, "print the IR as checked, before optimisation");
  };
  CLI::App* check = filter->add_subcommand("check", "Compile a filter; print its IR or the error");
  common(check);
  check->callback([run] { *run = "check"; });
  CLI::App* eval = filter->add_subcommand("eval", "Print the ids of the records the filter keeps");
  common(eval);
  eval->add_option("--records", o->records, "a JSONL file: one record per line")->required();
  eval->callback([run] { *run = "eval"; });
  CLI::App* translate = filter->add_subcommand(
      "translate", "Translate a filter for another store or dialect; print it or the error");
  common(translate);
  std::string targets;
  for (const std::string& t : FilterTranslationTargets())
    targets += (targets.empty() ? "" : " | ") + t;
  translate->add_option("--to", o->target, targets)
      ->required()
      ->check(CLI::IsMember(FilterTranslationTargets()));
  translate->callback([run] { *run = "translate"; });
}

int RunFilterCheck(const FilterOptions& o, std::istream& in, std::ostream& out, std::ostream& err) {
  std::optional<Prepared> p;
  if (int code = Prepare(o, in, out, err, &p); code >= 0) return code;
  std::string ir = o.ir_format == "sexpr" ? Dump(Json(p->filter.IrSexpr(!o.unoptimized)))
                                          : p->filter.IrJson(!o.unoptimized);
  out << "{\"ok\":true,\"ir\":" << ir << "}\n";
  return 0;
}

int RunFilterEval(const FilterOptions& o, std::istream& in, std::ostream& out, std::ostream& err) {
  std::optional<Prepared> p;
  if (int code = Prepare(o, in, out, err, &p); code >= 0) return code;
  std::ifstream file(o.records, std::ios::binary);
  if (!file) {
    err << "engram: --records: cannot open '" << o.records << "'\n";
    return 2;
  }
  Json matches = Json::array();
  std::string line;
  for (std::size_t number = 1; std::getline(file, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    Checked<MetadataRecord> record = MetadataRecord::Parse(p->schema, line);
    if (!record.ok()) {
      const Diagnostic& d = record.diagnostic();
      Json e = DiagnosticJson(d);
      e["line"] = number;
      e["message"] = o.records + ":" + std::to_string(number) + ": " + d.message;
      return WriteRejected(out, e);
    }
    if (p->filter.Matches(record.value())) matches.push_back(record.value().id());
  }
  if (file.bad()) {
    err << "engram: --records: read error on '" << o.records << "'\n";
    return 2;
  }
  Json doc = Json::object();
  doc["ok"] = true;
  doc["matches"] = std::move(matches);
  out << Dump(doc) << '\n';
  return 0;
}

int RunFilterTranslate(const FilterOptions& o, std::istream& in, std::ostream& out,
                       std::ostream& err) {
  std::optional<Prepared> p;
  if (int code = Prepare(o, in, out, err, &p); code >= 0) return code;
  Checked<FilterTranslation> t = p->filter.Translate(o.target);
  if (!t.ok()) return WriteRejected(out, DiagnosticJson(t.diagnostic()));
  Json doc = Json::object();
  doc["ok"] = true;
  doc["target"] = t.value().target;
  doc["filter"] = Json::parse(t.value().filter);
  doc["params"] = Json::parse(t.value().params);
  out << Dump(doc) << '\n';
  return 0;
}

}  // namespace engram::cli
