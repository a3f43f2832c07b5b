// What text_benchmark's runs share (harness.h).
#include "harness.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include <fmt/core.h>
#include <sqlite3.h>
#include <unistd.h>
#include <xapian.h>

namespace engram::bench {
namespace {

// "SQLite 3.40.1 (Debian libsqlite3-0 3.40.1-2+deb12u2, amd64)" and the same
// for Xapian: what the table headers state for each peer.
std::string DebianPackage(const char* package) {
  std::string cmd =
      fmt::format("dpkg-query -W -f='${{Version}}, ${{Architecture}}' {} 2>/dev/null", package);
  std::string out;
  if (FILE* f = popen(cmd.c_str(), "r")) {
    char buf[256];
    while (std::fgets(buf, sizeof buf, f) != nullptr) out += buf;
    pclose(f);
  }
  return out.empty() ? "version unknown" : out;
}

std::string XapianDir(const char* name) {
  std::string base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  return fmt::format("{}/engram-bench-{}-{}", base, name, getpid());
}

// The engine's name in --json-out rows.
std::string EngineId(std::string_view table_name) {
  if (table_name.find("engram") != std::string_view::npos) return "engram";
  if (table_name == "SQLite FTS5") return "fts5";
  if (table_name == "Xapian InMemory") return "xapian-inmemory";
  if (table_name == "Xapian glass") return "xapian-glass";
  throw std::logic_error("no --json-out name for " + std::string(table_name));
}

}  // namespace

double Percentile(std::vector<double>& v, double p) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(v.size())));
  return v[std::max<std::size_t>(rank, 1) - 1];
}

Latency Measure(std::size_t n, int passes, const std::function<void(std::size_t)>& run) {
  for (std::size_t i = 0; i < n; ++i) run(i);
  std::vector<double> us;
  us.reserve(n * static_cast<std::size_t>(passes));
  for (int p = 0; p < passes; ++p) {
    for (std::size_t i = 0; i < n; ++i) {
      auto t0 = Clock::now();
      run(i);
      auto t1 = Clock::now();
      us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    }
  }
  double sum = 0;
  for (double x : us) sum += x;
  Latency l;
  l.mean_us = us.empty() ? 0 : sum / static_cast<double>(us.size());
  l.p50_us = Percentile(us, 50);
  l.p99_us = Percentile(us, 99);
  return l;
}

double MedianBuildSeconds(int reps, const std::function<void()>& reset,
                          const std::function<void()>& build) {
  std::vector<double> s;
  for (int r = 0; r < std::max(reps, 1); ++r) {
    reset();
    auto t0 = Clock::now();
    build();
    s.push_back(Seconds(t0, Clock::now()));
  }
  return Percentile(s, 50);
}

std::string Us(double us) {
  if (us >= 1000) return fmt::format("{:.2f} ms", us / 1000);
  return fmt::format("{:.1f} µs", us);
}

text::TextIndexOptions EngramOptions() {
  text::TextIndexOptions o;  // English stemming, k1 1.2, b 0.75, relax: the defaults
  o.fields = {{"title", 1.0}, {"text", 1.0}};
  return o;
}

text::QueryOptions EngramQueryOptions() {
  text::QueryOptions q;                 // the default profile
  q.anchor = text::Date{2026, 11, 21};  // fixed, for reproducible temporal hints
  return q;
}

text::DefaultQuery Parse(std::string_view q) {
  auto parsed = text::ParseQuery(q, EngramQueryOptions());
  if (!parsed.ok()) throw std::runtime_error("query: " + parsed.diagnostic().message);
  return std::move(parsed.value().def);
}

std::unique_ptr<text::TextIndex> BuildEngram(const std::vector<PeerDoc>& docs) {
  auto index = std::make_unique<text::TextIndex>(EngramOptions());
  std::vector<std::string_view> texts(2);
  for (std::size_t i = 0; i < docs.size(); ++i) {
    texts[0] = docs[i].title;
    texts[1] = docs[i].text;
    index->Put(static_cast<std::uint32_t>(i), texts);
  }
  return index;
}

std::unique_ptr<text::TextIndex> BuildEngramOneField(const std::vector<PeerDoc>& docs, bool split) {
  text::TextIndexOptions o = EngramOptions();
  o.fields = {{"body", 1.0}};
  auto index = std::make_unique<text::TextIndex>(o);
  std::vector<std::string_view> texts(1);
  std::string body;
  for (std::size_t i = 0; i < docs.size(); ++i) {
    body.assign(docs[i].title).append("\n").append(docs[i].text);
    if (split) {
      std::string words;
      for (const std::string& w : SplitWords(body)) words.append(w).append(" ");
      body = std::move(words);
    }
    texts[0] = body;
    index->Put(static_cast<std::uint32_t>(i), texts);
  }
  return index;
}

std::vector<std::uint32_t> Ids(const std::vector<text::TextHit>& hits) {
  std::vector<std::uint32_t> ids;
  ids.reserve(hits.size());
  for (const text::TextHit& h : hits) ids.push_back(h.doc);
  return ids;
}

bool SameHits(const std::vector<text::TextHit>& a, const std::vector<text::TextHit>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].doc != b[i].doc) return false;
    if (std::abs(a[i].score - b[i].score) > 1e-9 * std::max(1.0, std::abs(a[i].score))) {
      return false;
    }
  }
  return true;
}

std::string LoadLine() {
  double load[3] = {-1, -1, -1};
  if (FILE* f = std::fopen("/proc/loadavg", "r")) {
    if (std::fscanf(f, "%lf %lf %lf", &load[0], &load[1], &load[2]) != 3) load[0] = -1;
    std::fclose(f);
  }
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  if (load[0] < 0) return fmt::format("load average: unknown, {} CPUs\n", cpus);
  std::string line =
      fmt::format("load average at this table: {:.2f} {:.2f} {:.2f} (1, 5, 15 min), {} CPUs\n",
                  load[0], load[1], load[2], cpus);
  if (load[0] > 1.0 + static_cast<double>(cpus) / 4) {
    line += "**loaded machine**: the latency columns are not results; rerun on a quiet machine\n";
  }
  return line;
}

std::string PeerVersions() {
  return fmt::format(
      "SQLite {} (Debian package libsqlite3-0 {}), Xapian {} (Debian package libxapian30 {}); "
      "both Debian's generic builds",
      sqlite3_libversion(), DebianPackage("libsqlite3-0"), Xapian::version_string(),
      DebianPackage("libxapian30"));
}

QuerySet PrepareQueries(const std::vector<std::string>& raw) {
  QuerySet q;
  for (const std::string& r : raw) {
    text::DefaultQuery parsed = Parse(r);
    std::vector<std::string> terms = QueryTerms(parsed, kStemmer);
    std::string or_text = OrQueryText(terms);
    text::DefaultQuery or_parsed = Parse(or_text);
    if (QueryTerms(or_parsed, kStemmer) != terms) {
      throw std::runtime_error("the OR form `" + or_text + "` of `" + r + "` parses differently");
    }
    q.text[0].push_back(r);
    q.text[1].push_back(std::move(or_text));
    q.parsed[0].push_back(std::move(parsed));
    q.parsed[1].push_back(std::move(or_parsed));
    q.terms.push_back(std::move(terms));
  }
  return q;
}

void BuildEngines(const std::vector<PeerDoc>& docs, int builds, const char* name, Engines* e) {
  e->build_s[0] = MedianBuildSeconds(
      builds, [&] { e->engram.reset(); }, [&] { e->engram = BuildEngram(docs); });
  e->build_s[1] = MedianBuildSeconds(
      builds, [&] { e->fts.reset(); },
      [&] {
        e->fts = std::make_unique<Fts5Peer>();
        e->fts->Build(docs);
      });
  for (XapianBackend b : {XapianBackend::kInMemory, XapianBackend::kGlass}) {
    auto& x = e->xapian[static_cast<int>(b)];
    e->build_s[2 + static_cast<int>(b)] = MedianBuildSeconds(
        builds, [&] { x.reset(); },
        [&] {
          x = std::make_unique<XapianPeer>(b, XapianDir(name));
          x->Build(docs);
        });
  }
}

void WriteRows(const std::vector<Row>& rows, std::string_view corpus, std::size_t docs,
               JsonOut& out) {
  for (const Row& r : rows) {
    const bool engram = EngineId(r.engine) == "engram";
    nlohmann::ordered_json j;
    j["corpus"] = corpus;
    j["engine"] = EngineId(r.engine);
    j["semantics"] = r.semantics == Semantics::kEngram ? "engram" : "or";
    j["p50_us"] = r.lat.p50_us;
    j["p99_us"] = r.lat.p99_us;
    j["ndcg10"] = r.ndcg ? nlohmann::ordered_json(*r.ndcg) : nlohmann::ordered_json(nullptr);
    j["docs_per_s"] = static_cast<double>(docs) / r.build_s;
    if (engram) {
      j["same_top10_as_engram"] = 1.0;
    } else if (r.agree.queries == 0) {
      j["same_top10_as_engram"] = nullptr;
    } else {
      j["same_top10_as_engram"] =
          static_cast<double>(r.agree.same_set) / static_cast<double>(r.agree.queries);
    }
    out.Write(j);
  }
}

}  // namespace engram::bench
