// `engram ingest`: a JSONL file into a collection, in durable batches, with a
// progress line on a terminal and a summary at the end.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

#include "cli/engine_commands.h"
#include "cli/output.h"
#include "cli/store_option.h"
#include "engram/engine.h"

namespace engram::cli {
namespace {

constexpr std::size_t kMaxLineBytes = std::size_t{1} << 20;  // the engine's record limit
constexpr std::size_t kMaxListed = 1000;  // duplicates and supersessions in --json; all are counted

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

}  // namespace

int RunIngest(const EngineOptions& o, std::ostream& out, std::ostream& err) {
  if (std::filesystem::is_directory(o.file)) {
    err << "engram: '" << o.file << "' is a directory, not a JSONL file\n";
    return 2;
  }
  std::ifstream file(o.file, std::ios::binary);
  if (!file) {
    err << "engram: cannot open '" << o.file << "'\n";
    return 2;
  }
  file.seekg(0, std::ios::end);
  const auto total_bytes = static_cast<double>(file.tellg());
  file.seekg(0);
  StatusOr<std::unique_ptr<Engine>> opened = OpenStore(o.db, "engram ingest");
  if (!opened.ok()) return ReportStatus(opened.status(), err);
  Engine& engine = **opened;
  if (StatusOr<CollectionInfo> info = engine.DescribeCollection(o.collection); !info.ok()) {
    return ReportStatus(info.status(), err);
  }
  const bool tty = isatty(STDERR_FILENO) == 1;
  const auto start = std::chrono::steady_clock::now();
  std::size_t written = 0, batches = 0, line_no = 0, duplicates = 0, refreshed = 0;
  std::size_t supersessions = 0;
  // The duplicates (dedup) and the records superseded, each with the file
  // line of the record that did it; the first kMaxListed of each are listed,
  // all are counted.
  Json deduplicated = Json::array();
  Json superseded = Json::array();
  std::vector<std::string> lines;
  std::vector<std::size_t> numbers;  // the file line of each record in `lines`
  auto flush = [&]() -> int {
    if (lines.empty()) return 0;
    std::vector<std::string_view> views(lines.begin(), lines.end());
    const std::size_t before = written;
    StatusOr<WriteResult> r = engine.Upsert(o.collection, views, [&](std::size_t done) {
      if (!tty) return;
      const double pos = static_cast<double>(file.tellg());
      err << "\ringested " << before + done << " records"
          << (total_bytes > 0 && pos >= 0
                  ? " (" + std::to_string(static_cast<int>(100 * pos / total_bytes)) + " %)"
                  : "")
          << std::flush;
    });
    if (!r.ok()) {
      if (tty) err << '\n';
      err << "engram: " << written << " records were written before the failure\n";
      return ReportStatus(r.status(), err);
    }
    if (r->rejected) {
      if (tty) err << '\n';
      const std::size_t line = numbers[r->rejected_index];
      Json e = DiagnosticJson(*r->rejected);
      e["line"] = line;
      e["message"] = o.file + ":" + std::to_string(line) + ": " + r->rejected->message;
      err << "engram: " << e["message"].get<std::string>() << '\n'
          << "engram: the batch holding that line was not written; " << written
          << " records from earlier lines were written\n";
      return WriteRejected(out, e);
    }
    written += r->written;
    duplicates += r->deduplicated.size();
    for (const Deduplicated& d : r->deduplicated) refreshed += d.action == DedupAction::kRefresh;
    for (const Deduplicated& d : r->deduplicated) {
      if (deduplicated.size() >= kMaxListed) break;
      Json entry = {{"line", numbers[d.index]},
                    {"id", d.id},
                    {"duplicate_of", d.duplicate_of},
                    {"action", DedupActionName(d.action)}};
      if (d.similarity) entry["similarity"] = *d.similarity;
      deduplicated.push_back(std::move(entry));
    }
    supersessions += r->superseded.size();
    for (const Superseded& d : r->superseded) {
      if (superseded.size() >= kMaxListed) break;
      superseded.push_back(
          {{"line", numbers[d.index]}, {"id", d.id}, {"superseded", d.superseded}});
    }
    ++batches;
    lines.clear();
    numbers.clear();
    return 0;
  };
  std::string line;
  while (std::getline(file, line)) {
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    if (line.size() > kMaxLineBytes) {
      const std::string message = o.file + ":" + std::to_string(line_no) +
                                  ": record is larger than " + std::to_string(kMaxLineBytes) +
                                  " bytes";
      err << "engram: " << message << '\n';
      Json e = DiagnosticJson(Diagnostic{400, "record.invalid", "", message});
      e["line"] = line_no;
      return WriteRejected(out, e);
    }
    lines.push_back(std::move(line));
    numbers.push_back(line_no);
    if (lines.size() >= o.batch) {
      if (int code = flush(); code != 0) return code;
    }
  }
  if (file.bad()) {
    err << "engram: read error on '" << o.file << "'\n";
    return 3;
  }
  if (int code = flush(); code != 0) return code;
  if (Status s = engine.Checkpoint(o.collection); !s.ok()) return ReportStatus(s, err);
  const double seconds = Seconds(start);
  if (tty) err << '\n';
  if (o.json) {
    out << Dump(Json{{"ok", true},
                     {"collection", o.collection},
                     {"written", written},
                     {"batches", batches},
                     {"seconds", seconds},
                     {"deduplicated_total", duplicates},
                     {"deduplicated", std::move(deduplicated)},
                     {"superseded_total", supersessions},
                     {"superseded", std::move(superseded)}})
        << '\n';
  } else {
    char rate[64];
    std::snprintf(rate, sizeof rate, "%.2f s, %.0f records/s", seconds,
                  seconds > 0 ? static_cast<double>(written) / seconds : 0.0);
    out << "ingested " << written << " records into '" << o.collection << "' in " << batches
        << (batches == 1 ? " batch" : " batches") << " (" << rate << ")";
    if (duplicates > refreshed) out << "; " << duplicates - refreshed << " duplicates skipped";
    if (refreshed > 0) out << "; " << refreshed << " duplicates refreshed their originals";
    if (supersessions > 0) out << "; " << supersessions << " records superseded";
    out << '\n';
  }
  return 0;
}

}  // namespace engram::cli
