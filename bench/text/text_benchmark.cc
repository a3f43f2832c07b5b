// engram's end-to-end full-text benchmark (issues 3 and 21; results in
// bench/RESULTS.md "Full-text search"). One process, one thread, the peers
// measured in the same run on the same documents and queries, doing the same
// work (equal_work.h): every engine gets the terms engram's query parser keeps
// of the query text and the same k, under engram's semantics (AND, relaxed to
// OR below k hits, QUERY_DSL.md §3) and under plain OR, and each peer row
// reports how often its top-10 equals engram's under the same semantics.
//
//  1. BEIR SciFact (5,183 abstracts, 300 test claims): nDCG@10 computed here
//     from the qrels (ndcg.h), indexing throughput, p50/p99 query latency for
//     top-10, for engram, SQLite FTS5, Xapian InMemory and Xapian glass
//     (peers.h).
//  2. The Debian 12 packages (63,666): the same over a fixed, seeded set of
//     queries made of words of package descriptions (MakeDebianQueries).
//  3. Filtered top-10 on the Debian corpus: filters on section, tags and
//     installed_size_kib at about 50 %, 5 % and 0.5 % selectivity. engram gets
//     the allowed-set as a Roaring bitmap built by engram's filter compiler
//     (vector_filter dialect) over the records, and every result is checked
//     against the exhaustive oracle (SearchExhaustive); Xapian (InMemory,
//     engram's semantics and terms) runs the same filter as boolean terms / a
//     value range under OP_FILTER.
//  4. Only with --only scale: engram alone on the Debian packages scaled to
//     --scale-docs sizes (default 10,000, 63,666 and 1,000,000;
//     scaled_corpus.h): build time, index memory and snapshot size, latency
//     under both semantics (issue 21, item 5).
//
// engram: TextIndex with fields title and text (weight 1.0 each, the
// default), English stemming, BM25 k1 1.2, b 0.75, relax on (the defaults);
// queries parsed by text::ParseQuery in the default profile, once, outside
// the timed region: every engine's work starts from that parse (the peers
// use it as their query analyser), so a row's latency is engram's Search of
// the parsed query (the claim, or `t1 OR t2 ...`), or a peer's building of
// its query from the terms and its search; the parse is timed on its own.
//
// Usage: text_benchmark [--data DIR] [--passes N] [--builds N] [--queries N]
//                       [--seed S] [--only scifact|debian|filter|scale] [--json-out FILE]
//                       [--scale-docs N,N,...]
// --json-out writes one JSON object per row of the engine tables (JSON Lines):
// {"corpus","engine","semantics","p50_us","p99_us","ndcg10","docs_per_s",
//  "same_top10_as_engram"}; engines engram, xapian-inmemory, xapian-glass,
// fts5; semantics engram or or; ndcg10 null without judgements;
// same_top10_as_engram the share of queries whose top-10 set equals engram's.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/core.h>
#include <roaring/roaring.hh>
#include <sqlite3.h>
#include <unistd.h>
#include <xapian.h>

#include "common/cli.h"
#include "common/format.h"
#include "common/json_out.h"
#include "data.h"
#include "debian_cases.h"
#include "equal_work.h"
#include "filter/compiler.h"
#include "ndcg.h"
#include "peers.h"
#include "scaled_corpus.h"
#include "schema/record.h"
#include "schema/schema.h"
#include "text/index/index_data.h"
#include "text/index/stemmer.h"
#include "text/index/text_index.h"
#include "text/query/query.h"
#include "text/query/stopwords.h"

#ifndef ENGRAM_DATA_DIR
#define ENGRAM_DATA_DIR "../shared/data"
#endif

namespace engram::bench {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

struct Options {
  std::string data = ENGRAM_DATA_DIR;
  int passes = 5;  // measured passes over the query set (after one warm-up pass)
  int builds = 3;  // index builds; the median time is reported
  std::size_t debian_queries = 300;
  std::uint64_t seed = 20261121;
  std::string only;
  std::string json_out;
  std::vector<std::size_t> scale_docs = {10000, 63666, 1000000};  // --only scale
};

// Nearest-rank percentile of `v` (sorted in place), p in (0, 100].
double Percentile(std::vector<double>& v, double p) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(v.size())));
  return v[std::max<std::size_t>(rank, 1) - 1];
}

struct Latency {
  double p50_us = 0, p99_us = 0, mean_us = 0;
};

// One warm-up pass, then `passes` timed passes over the queries; every
// query's time in every pass is one sample.
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

// Times `build` `reps` times (each builds from scratch); the median. `reset`
// drops the previous build first, outside the timed region, so that no
// engine's time includes tearing down its last index.
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

// ---- engram ----------------------------------------------------------------

text::TextIndexOptions EngramOptions() {
  text::TextIndexOptions o;  // English stemming, k1 1.2, b 0.75, relax: the defaults
  o.fields = {{"title", 1.0}, {"text", 1.0}};
  return o;
}

// The stemmer engram's index uses, which QueryTerms groups the terms by.
const text::Stemmer kStemmer = EngramOptions().stemmer;

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

// A diagnostic engram index with title and text in one field, so that it
// ranks by plain BM25 over the whole document as the peers do (engram's
// default is BM25F: each field's length normalised on its own); with
// `split`, the text is first cut into words as the peers' tokenizers cut it
// (SplitWords: `covid-19` is `covid 19`, where engram's tokenizer makes one
// word `covid19`).
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

// Search and the oracle agree: same documents in the same order, scores equal
// up to floating-point summation order.
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

// ---- the equal-work comparison ----------------------------------------------

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

// `uptime`'s load averages and the CPU count, printed with every table,
// and a warning when the machine is loaded: the 1-minute load average above
// 1 + CPUs / 4 (1.5 on 2 CPUs: this benchmark's one thread and more than
// half a core of other work), when the latency columns are not results.
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

constexpr Semantics kBoth[] = {Semantics::kEngram, Semantics::kOr};
constexpr std::size_t kTopK = 10;

// A corpus's queries, prepared once (outside the timed region): the text
// each semantics starts from (the query as given; its OR form), engram's
// parse of it, and the terms engram's parser keeps, which the peers get.
struct QuerySet {
  std::vector<std::string> text[2];  // indexed by Semantics
  std::vector<text::DefaultQuery> parsed[2];
  std::vector<std::vector<std::string>> terms;
  const std::string& Text(Semantics s, std::size_t i) const { return text[static_cast<int>(s)][i]; }
  const text::DefaultQuery& Parsed(Semantics s, std::size_t i) const {
    return parsed[static_cast<int>(s)][i];
  }
};

// Parses every query, takes its terms (QueryTerms) and checks that the OR
// form parses back to the same terms (throws if not).
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

// The four indexes of one corpus and their median build times.
struct Engines {
  std::unique_ptr<text::TextIndex> engram;
  std::unique_ptr<Fts5Peer> fts;
  std::unique_ptr<XapianPeer> xapian[2];  // indexed by XapianBackend
  double build_s[4] = {};                 // engram, FTS5, Xapian InMemory, Xapian glass
};

std::string XapianDir(const char* name) {
  std::string base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  return fmt::format("{}/engram-bench-{}-{}", base, name, getpid());
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

// The checks that every engine is given the same terms, printed with the
// table: engram's two query texts parse to the same terms (PrepareQueries
// threw otherwise); Xapian's stemmer (Snowball English, as engram's) gives
// engram's stems; each Xapian query holds exactly the terms' distinct stems
// (throws if not); FTS5 sees each term as one token of its tokenizer; and
// how many terms each index lacks (the tokenizers differ: `covid-19` is one
// word `covid19` to engram, two to Xapian).
void PrintTermChecks(const QuerySet& qs, Engines& e) {
  std::size_t n = qs.terms.size(), terms = 0, xap_same = 0, fts_one = 0, xap_missing = 0;
  std::size_t engram_missing = 0, queries_missing = 0, same_stem = 0;
  std::string examples;  // the first few terms Xapian's index lacks
  const text::IndexData& engram = e.engram->data();
  XapianPeer& xap = *e.xapian[0];
  for (const auto& t : qs.terms) {
    terms += t.size();
    std::set<std::string> want;
    Xapian::Stem stem("english");
    for (const std::string& w : t) want.insert(stem(w));
    bool same = want.size() == t.size();  // no two terms share a stem
    for (auto op : {Xapian::Query::OP_AND, Xapian::Query::OP_OR}) {
      Xapian::Query q = xap.TermsQuery(t, op);
      same = same &&
             std::set<std::string>(q.get_unique_terms_begin(), q.get_unique_terms_end()) == want;
    }
    xap_same += same ? 1 : 0;
    bool missing = false;
    for (const std::string& w : t) {
      auto words = SplitWords(w);
      fts_one += words.size() == 1 && words[0] == w ? 1 : 0;
      const bool absent = !xap.Indexed(w);
      missing = missing || absent;
      if (absent && ++xap_missing <= 6) examples += fmt::format(" `{}`", w);
      std::string engram_stem = text::Stem(engram.options.stemmer, w);
      engram_missing += engram.Find(engram_stem) < 0 ? 1 : 0;
      same_stem += engram_stem == stem(w) ? 1 : 0;
    }
    queries_missing += missing ? 1 : 0;
  }
  if (xap_same != n) throw std::runtime_error("a Xapian query differs from engram's terms");
  fmt::print(
      "query terms (engram's parser): {} queries, {} terms ({:.2f} a query). Checked: the OR "
      "form parses to the same terms in {} of {}; Xapian's stemmer gives engram's stem for {} of "
      "{} terms; Xapian's AND and OR queries hold exactly the terms' distinct stems in {} of {}; "
      "FTS5's MATCH string quotes the same terms, each one token of "
      "its tokenizer: {} of {} terms. Terms absent from the index (tokenizers differ): engram {}, "
      "Xapian {} (in {} queries; first:{})\n",
      n, terms, static_cast<double>(terms) / static_cast<double>(n), n, n, same_stem, terms,
      xap_same, n, fts_one, terms, engram_missing, xap_missing, queries_missing, examples);
}

// The engine's name in --json-out rows.
std::string EngineId(std::string_view table_name) {
  if (table_name.find("engram") != std::string_view::npos) return "engram";
  if (table_name == "SQLite FTS5") return "fts5";
  if (table_name == "Xapian InMemory") return "xapian-inmemory";
  if (table_name == "Xapian glass") return "xapian-glass";
  throw std::logic_error("no --json-out name for " + std::string(table_name));
}

struct Row {
  std::string engine;
  Semantics semantics;
  double build_s = 0;
  std::optional<double> ndcg;
  Latency lat;
  Agreement agree;  // with engram under the same semantics; empty for engram
  std::vector<std::vector<std::uint32_t>> top;  // each query's top-k record numbers
};

// One engine under one semantics: query i's top-k record numbers, from
// engram's parsed query (engram) or its terms (the peers).
using SearchFn = std::function<std::vector<std::uint32_t>(std::size_t i)>;

// For SciFact: record numbers -> document ids for nDCG@10.
struct Judged {
  const std::vector<TextDoc>* docs;
  const std::vector<TextQuery>* queries;
  const Qrels* qrels;
};

// The rows as --json-out objects.
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

void PrintTable(const std::vector<Row>& rows, std::size_t docs, bool with_ndcg) {
  fmt::print("engines: engram (this tree); {}\n{}\n", PeerVersions(), LoadLine());
  fmt::print(
      "| engine | semantics | {}same top-10 as engram (set / order) | shared with engram's "
      "top-10 | index time | docs/s | p50 | p99 | mean |\n",
      with_ndcg ? "nDCG@10 | " : "");
  fmt::print("|---|---|{}---|---|---|---|---|---|---|\n", with_ndcg ? "---|" : "");
  for (const Row& r : rows) {
    fmt::print("| {} | {} | {}{} | {} | {:.3f} s | {} | {} | {} | {} |\n", r.engine,
               SemanticsName(r.semantics),
               with_ndcg ? fmt::format("{:.4f} | ", r.ndcg.value_or(0)) : "", r.agree.Format(),
               r.agree.FormatShared(), r.build_s, Thousands(static_cast<double>(docs) / r.build_s),
               Us(r.lat.p50_us), Us(r.lat.p99_us), Us(r.lat.mean_us));
  }
  fmt::print("\nengram's latency against each peer's (peer / engram):\n");
  for (const Row& r : rows) {
    if (r.engine.find("engram") != std::string::npos) continue;
    for (const Row& e : rows) {
      if (e.engine.find("engram") == std::string::npos || e.semantics != r.semantics) continue;
      fmt::print("- vs {}, {} semantics: p50 {:.2f}x, p99 {:.2f}x\n", r.engine,
                 SemanticsName(r.semantics), r.lat.p50_us / e.lat.p50_us,
                 r.lat.p99_us / e.lat.p99_us);
    }
  }
  std::fflush(stdout);
}

// engram's own checks under `sem`: how many queries relaxed, and Search
// against the exhaustive oracle.
void PrintEngramChecks(const text::TextIndex& index, const QuerySet& qs, Semantics sem) {
  const std::size_t n = qs.terms.size();
  std::size_t relaxed = 0, oracle_ok = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const text::DefaultQuery& q = qs.Parsed(sem, i);
    text::TextSearchStats st;
    auto hits = index.Search(q, kTopK, nullptr, &st);
    relaxed += st.relaxed ? 1 : 0;
    oracle_ok += SameHits(hits, index.SearchExhaustive(q, kTopK)) ? 1 : 0;
  }
  fmt::print(
      "engram, {} semantics: {} of {} queries relaxed; Search equals SearchExhaustive on {} of "
      "{}\n",
      SemanticsName(sem), relaxed, n, oracle_ok, n);
}

// Where the top-10 lists differ, why: the peers against each other, and
// one-field engram indexes (plain BM25 over title + text, as the peers rank;
// then also words cut as the peers cut them) against the peers.
void PrintCrossChecks(const std::vector<Row>& rows, const std::vector<PeerDoc>& docs,
                      const QuerySet& qs) {
  std::unique_ptr<text::TextIndex> one_field[] = {BuildEngramOneField(docs, false),
                                                  BuildEngramOneField(docs, true)};
  auto find = [&](std::string_view engine, Semantics sem) -> const Row& {
    for (const Row& r : rows) {
      if (r.engine == engine && r.semantics == sem) return r;
    }
    throw std::logic_error("no row " + std::string(engine));
  };
  auto both = [](const Agreement& a) { return a.Format() + " (" + a.FormatShared() + ")"; };
  fmt::print("\ntop-10 agreement (same set / same order; shared ids a query) between:\n");
  for (Semantics sem : kBoth) {
    const Row& mem = find("Xapian InMemory", sem);
    const Row& glass = find("Xapian glass", sem);
    const Row& fts = find("SQLite FTS5", sem);
    Agreement backends, peers, one_xap[2], one_fts[2];
    for (std::size_t i = 0; i < qs.terms.size(); ++i) {
      backends.Add(mem.top[i], glass.top[i]);
      peers.Add(fts.top[i], mem.top[i]);
      for (int s = 0; s < 2; ++s) {
        auto one = Ids(one_field[s]->Search(qs.Parsed(sem, i), kTopK));
        one_xap[s].Add(one, mem.top[i]);
        one_fts[s].Add(one, fts.top[i]);
      }
    }
    fmt::print(
        "- {} semantics: Xapian InMemory and glass {}; FTS5 and Xapian {}; engram with one "
        "field (BM25, not BM25F) and Xapian {}, and FTS5 {}; the same with words cut as the peers "
        "cut them and Xapian {}, and FTS5 {}\n",
        SemanticsName(sem), both(backends), both(peers), both(one_xap[0]), both(one_fts[0]),
        both(one_xap[1]), both(one_fts[1]));
  }
}

// A diagnostic for SciFact: what engram's terms cost the peers in quality.
// engram's tokenizer joins a word's parts across punctuation (`0-dimensional`
// is the term `0dimensional`), which the peers' indexes split, so such a term
// matches nothing there. Here Xapian InMemory gets the query's words as its
// own tokenizer cuts them (SplitWords, lower-cased), engram's stopwords
// dropped (all kept if none would be left), distinct by stem: not equal work,
// only the nDCG@10 that the peer would reach with its own tokenization.
void PrintOwnWordsNdcg(const QuerySet& qs, Engines& e, const Judged& judged) {
  XapianPeer& xap = *e.xapian[static_cast<int>(XapianBackend::kInMemory)];
  fmt::print("\nXapian InMemory with the claims' words cut by its own tokenizer (diagnostic):");
  for (Semantics sem : kBoth) {
    std::map<std::string, std::vector<std::string>> runs;
    for (std::size_t i = 0; i < qs.terms.size(); ++i) {
      std::vector<std::string> words, kept;
      for (std::string w : SplitWords(qs.Text(Semantics::kEngram, i))) {
        for (char& c : w) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
        words.push_back(w);
        if (!text::IsStopword(w)) kept.push_back(w);
      }
      std::vector<std::string> terms, stems;
      for (const std::string& w : kept.empty() ? words : kept) {
        std::string st = text::Stem(kStemmer, w);
        if (std::find(stems.begin(), stems.end(), st) != stems.end()) continue;
        stems.push_back(std::move(st));
        terms.push_back(w);
      }
      auto& run = runs[(*judged.queries)[i].id];
      for (std::uint32_t d : xap.Search(terms, sem, kTopK)) run.push_back((*judged.docs)[d].id);
    }
    fmt::print(" {} semantics nDCG@10 {:.4f};", SemanticsName(sem),
               MeanNdcgAtK(runs, *judged.qrels, kTopK));
  }
  fmt::print("\n");
}

// Runs every engine under both semantics over `raw` queries and prints the
// table; `judged` (optional) adds nDCG@10.
void Compare(std::string_view corpus, const std::vector<PeerDoc>& docs,
             const std::vector<std::string>& raw, const Options& opt, Engines& e,
             const Judged* judged, JsonOut& json) {
  QuerySet qs = PrepareQueries(raw);
  PrintTermChecks(qs, e);
  const std::size_t n = raw.size();
  std::vector<Row> rows;
  for (Semantics sem : kBoth) {
    PrintEngramChecks(*e.engram, qs, sem);
    std::vector<std::pair<std::string, SearchFn>> engines;
    engines.emplace_back("**engram**", [&, sem](std::size_t i) {
      return Ids(e.engram->Search(qs.Parsed(sem, i), kTopK));
    });
    engines.emplace_back(
        "SQLite FTS5", [&, sem](std::size_t i) { return e.fts->Search(qs.terms[i], sem, kTopK); });
    for (XapianBackend b : {XapianBackend::kInMemory, XapianBackend::kGlass}) {
      engines.emplace_back(fmt::format("Xapian {}", BackendName(b)), [&, sem, b](std::size_t i) {
        return e.xapian[static_cast<int>(b)]->Search(qs.terms[i], sem, kTopK);
      });
    }
    const std::size_t engram_row = rows.size();
    for (std::size_t j = 0; j < engines.size(); ++j) {
      Row r{engines[j].first, sem, e.build_s[j], std::nullopt, {}, {}, {}};
      for (std::size_t i = 0; i < n; ++i) r.top.push_back(engines[j].second(i));
      if (j > 0) {
        for (std::size_t i = 0; i < n; ++i) r.agree.Add(rows[engram_row].top[i], r.top[i]);
      }
      if (judged != nullptr) {
        std::map<std::string, std::vector<std::string>> runs;
        for (std::size_t i = 0; i < n; ++i) {
          auto& run = runs[(*judged->queries)[i].id];
          for (std::uint32_t d : r.top[i]) run.push_back((*judged->docs)[d].id);
        }
        r.ndcg = MeanNdcgAtK(runs, *judged->qrels, kTopK);
      }
      r.lat = Measure(n, opt.passes, [&](std::size_t i) {
        if (engines[j].second(i).size() > kTopK) std::abort();
      });
      rows.push_back(std::move(r));
    }
  }
  Latency parse = Measure(n, opt.passes, [&](std::size_t i) {
    if (QueryTerms(Parse(qs.Text(Semantics::kEngram, i)), kStemmer).empty()) std::abort();
  });
  fmt::print(
      "engram's parse and the terms taken from it (shared by every row, so in none of their "
      "latencies): p50 {}, p99 {}\n\n",
      Us(parse.p50_us), Us(parse.p99_us));
  PrintTable(rows, docs.size(), judged != nullptr);
  WriteRows(rows, corpus, docs.size(), json);
  PrintCrossChecks(rows, docs, qs);
  if (judged != nullptr) PrintOwnWordsNdcg(qs, e, *judged);
}

// ---- 1. SciFact -------------------------------------------------------------

void RunSciFact(const Options& opt, JsonOut& json) {
  SciFact s = LoadSciFact(opt.data + "/scifact");
  fmt::print("\n## BEIR SciFact: {} documents, {} test queries, {} judged queries\n\n",
             s.docs.size(), s.queries.size(), s.qrels.size());
  std::vector<PeerDoc> docs;
  for (const TextDoc& d : s.docs) docs.push_back({d.title, d.text, {}, nullptr, -1});
  std::vector<std::string> raw;
  for (const TextQuery& q : s.queries) raw.push_back(q.text);
  Engines e;
  BuildEngines(docs, opt.builds, "scifact", &e);
  Judged judged{&s.docs, &s.queries, &s.qrels};
  Compare("scifact", docs, raw, opt, e, &judged, json);
}

// ---- 2. Debian --------------------------------------------------------------

// ---- 3. filtered top-10 ----------------------------------------------------

// Xapian's form of a filter case: boolean terms OR-ed, or a value range.
Xapian::Query XapianFilter(const FilterCase& c) {
  if (c.xapian_min_size >= 0) {
    return Xapian::Query(Xapian::Query::OP_VALUE_GE, 0,
                         Xapian::sortable_serialise(static_cast<double>(c.xapian_min_size)));
  }
  return Xapian::Query(Xapian::Query::OP_OR, c.xapian_terms.begin(), c.xapian_terms.end());
}

void RunFiltered(const Options& opt, const std::vector<Package>& pkgs,
                 const std::vector<std::string>& queries, Engines& e) {
  auto schema = DebianSchema();
  std::vector<Record> records;
  for (const Package& p : pkgs) {
    json::Value j = json::Value::object();
    j["id"] = p.id;
    if (!p.section.empty()) j["section"] = p.section;
    if (!p.priority.empty()) j["priority"] = p.priority;
    if (p.installed_size_kib >= 0) j["installed_size_kib"] = p.installed_size_kib;
    if (!p.tags.empty()) j["tags"] = p.tags;
    auto rec = ParseRecord(j, *schema);
    if (!rec.ok()) throw std::runtime_error("record " + p.id + ": " + rec.diagnostic().message);
    records.push_back(std::move(rec.value()));
  }
  fmt::print("\n## Filtered top-10 on the Debian packages ({} queries each)\n\n", queries.size());
  fmt::print(
      "Xapian: engram's terms and semantics, both backends. engines: engram (this tree); {}\n{}\n",
      PeerVersions(), LoadLine());
  fmt::print(
      "| field | aim | filter (engram `vector_filter`) | allowed | selectivity | engram p50 | "
      "engram p99 | engram exhaustive (oracle) p50 | Xapian InMemory p50 / p99 | Xapian glass "
      "p50 / p99 | faster Xapian / engram p50 | Xapian same top-10 (set / order) | = oracle "
      "|\n");
  fmt::print("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  std::size_t total_bad = 0, same_filters = 0, cases = 0;
  std::vector<text::DefaultQuery> parsed;
  std::vector<std::vector<std::string>> terms;
  for (const std::string& q : queries) {
    parsed.push_back(Parse(q));
    terms.push_back(QueryTerms(parsed.back(), kStemmer));
  }
  for (const FilterCase& c : DebianFilters()) {
    ++cases;
    auto compiled = filter::Compile(filter::Dialect::kVectorFilter, c.filter, schema);
    if (!compiled.ok()) throw std::runtime_error("filter: " + compiled.diagnostic().message);
    roaring::Roaring allowed;
    for (std::size_t i = 0; i < records.size(); ++i) {
      if (compiled.value().program.Matches(records[i].slots)) {
        allowed.add(static_cast<std::uint32_t>(i));
      }
    }
    allowed.runOptimize();
    // Xapian's filter, checked to select the same documents in both backends.
    const Xapian::Query xf = XapianFilter(c);
    bool same = true;
    for (const auto& xap : e.xapian) {
      std::vector<std::uint32_t> sel = xap->Select(xf);
      same = same && roaring::Roaring(sel.size(), sel.data()) == allowed;
    }
    same_filters += same ? 1 : 0;
    if (!same) fmt::print(stderr, "Xapian's filter selects other documents: {}\n", c.filter);
    XapianPeer& mem = *e.xapian[static_cast<int>(XapianBackend::kInMemory)];
    std::size_t ok = 0;
    Agreement agree;
    for (std::size_t i = 0; i < parsed.size(); ++i) {
      auto hits = e.engram->Search(parsed[i], kTopK, &allowed);
      ok += SameHits(hits, e.engram->SearchExhaustive(parsed[i], kTopK, &allowed)) ? 1 : 0;
      agree.Add(Ids(hits), mem.Search(terms[i], Semantics::kEngram, kTopK, &xf));
    }
    total_bad += parsed.size() - ok;
    Latency le = Measure(queries.size(), opt.passes, [&](std::size_t i) {
      auto hits = e.engram->Search(parsed[i], kTopK, &allowed);
      if (hits.size() > kTopK) std::abort();
    });
    Latency lo = Measure(queries.size(), 1, [&](std::size_t i) {
      (void)e.engram->SearchExhaustive(parsed[i], kTopK, &allowed);
    });
    Latency lx[2];
    for (int b = 0; b < 2; ++b) {
      lx[b] = Measure(queries.size(), opt.passes, [&](std::size_t i) {
        (void)e.xapian[b]->Search(terms[i], Semantics::kEngram, kTopK, &xf);
      });
    }
    double sel =
        100.0 * static_cast<double>(allowed.cardinality()) / static_cast<double>(records.size());
    std::string shown = c.filter.size() > 70 ? c.filter.substr(0, 67) + "...}" : c.filter;
    fmt::print(
        "| `{}` | {} | `{}` | {} | {:.2f} % | {} | {} | {} | {} / {} | {} / {} | {:.2f}x | {} | "
        "{}/{} |\n",
        c.field, c.target, shown, Thousands(static_cast<double>(allowed.cardinality())), sel,
        Us(le.p50_us), Us(le.p99_us), Us(lo.p50_us), Us(lx[0].p50_us), Us(lx[0].p99_us),
        Us(lx[1].p50_us), Us(lx[1].p99_us), std::min(lx[0].p50_us, lx[1].p50_us) / le.p50_us,
        agree.Format(), ok, parsed.size());
    std::fflush(stdout);
  }
  fmt::print(
      "\nfiltered results different from the oracle: {}; Xapian's filter selects exactly "
      "engram's allowed-set in {} of {} cases (both backends)\n",
      total_bad, same_filters, cases);
}

void RunDebian(const Options& opt, bool plain, bool filtered, JsonOut& json) {
  std::vector<Package> pkgs = LoadDebian(opt.data + "/debian/packages.jsonl.gz");
  std::vector<PeerDoc> docs;
  for (const Package& p : pkgs) {
    docs.push_back({p.title, p.text, p.section, &p.tags, p.installed_size_kib});
  }
  std::vector<std::string> queries = MakeDebianQueries(pkgs, opt.debian_queries, opt.seed);
  fmt::print(
      "\n## Debian 12 packages: {} documents (title + description), {} queries "
      "(seed {})\n\nfirst queries: ",
      docs.size(), queries.size(), opt.seed);
  for (std::size_t i = 0; i < 8 && i < queries.size(); ++i) {
    fmt::print("{}`{}`", i ? ", " : "", queries[i]);
  }
  fmt::print("\n\n");

  Engines e;
  BuildEngines(docs, plain ? opt.builds : 1, "debian", &e);
  if (plain) Compare("debian", docs, queries, opt, e, nullptr, json);
  if (filtered) RunFiltered(opt, pkgs, queries, e);
}

// ---- 4. Cost as the work grows (--only scale) --------------------------------

// engram alone on the Debian packages scaled to each size of --scale-docs
// (scaled_corpus.h), the Debian queries under both semantics: build time,
// index memory and snapshot size, latency.
void RunScale(const Options& opt, JsonOut& json) {
  const std::vector<Package> pkgs = LoadDebian(opt.data + "/debian/packages.jsonl.gz");
  const QuerySet qs = PrepareQueries(MakeDebianQueries(pkgs, opt.debian_queries, opt.seed));
  const std::size_t n = qs.terms.size();
  fmt::print(
      "\n## engram as the corpus grows: the Debian packages scaled (seed {}), {} queries\n\n{}\n"
      "| documents | index time | docs/s | index memory | bytes / doc | snapshot | engram "
      "semantics p50 / p99 | OR p50 / p99 |\n|---:|---:|---:|---:|---:|---:|---:|---:|\n",
      opt.seed, n, LoadLine());
  for (const std::size_t size : opt.scale_docs) {
    const std::vector<ScaledDoc> scaled = ScaleDebian(pkgs, size, opt.seed);
    std::vector<PeerDoc> docs;
    docs.reserve(scaled.size());
    for (const ScaledDoc& d : scaled) docs.push_back({d.title, d.text, {}, nullptr, -1});
    const auto t0 = Clock::now();
    const std::unique_ptr<text::TextIndex> index = BuildEngram(docs);
    const double build_s = Seconds(t0, Clock::now());
    const double memory = static_cast<double>(index->MemoryBytes());
    const double snapshot = static_cast<double>(index->Serialize().size());
    std::vector<Row> rows;
    for (Semantics sem : kBoth) {
      Row r{"**engram**", sem, build_s, std::nullopt, {}, {}, {}};
      r.lat = Measure(n, opt.passes, [&](std::size_t i) {
        if (index->Search(qs.Parsed(sem, i), kTopK).size() > kTopK) std::abort();
      });
      rows.push_back(std::move(r));
    }
    WriteRows(rows, fmt::format("debian-scaled-{}", docs.size()), docs.size(), json);
    const Latency& lat0 = rows[0].lat;
    const Latency& lat1 = rows[1].lat;
    fmt::print("| {} | {:.2f} s | {} | {:.1f} MiB | {:.0f} | {:.1f} MiB | {} / {} | {} / {} |\n",
               Thousands(static_cast<double>(docs.size())), build_s,
               Thousands(static_cast<double>(docs.size()) / build_s), memory / (1 << 20),
               memory / static_cast<double>(docs.size()), snapshot / (1 << 20), Us(lat0.p50_us),
               Us(lat0.p99_us), Us(lat1.p50_us), Us(lat1.p99_us));
    std::fflush(stdout);
  }
}

Options ParseArgs(int argc, char** argv) {
  Options o;
  for (ArgReader args(argc, argv); args.Next();) {
    if (args.Is("--data")) {
      o.data = args.Value();
    } else if (args.Is("--passes")) {
      o.passes = std::stoi(args.Value());
    } else if (args.Is("--builds")) {
      o.builds = std::stoi(args.Value());
    } else if (args.Is("--queries")) {
      o.debian_queries = std::stoul(args.Value());
    } else if (args.Is("--seed")) {
      o.seed = std::stoull(args.Value());
    } else if (args.Is("--only")) {
      o.only = args.Value();
    } else if (args.Is("--json-out")) {
      o.json_out = args.Value();
    } else if (args.Is("--scale-docs")) {
      o.scale_docs.clear();
      for (const std::string& n : args.List()) o.scale_docs.push_back(std::stoul(n));
    } else {
      args.Unknown(
          "--data DIR --passes N --builds N --queries N --seed S "
          "--only scifact|debian|filter|scale --json-out FILE --scale-docs N,N,...");
    }
  }
  return o;
}

}  // namespace
}  // namespace engram::bench

int main(int argc, char** argv) {
  using namespace engram::bench;
  return RunGuarded("text_benchmark", [&] {
    const Options opt = ParseArgs(argc, argv);
    JsonOut json(opt.json_out);
    fmt::print(
        "# engram full-text benchmark\n\ndata: {}; single thread; {}; top-{}; {} timed passes "
        "after one warm-up; index build: median of {}\n",
        opt.data, PeerVersions(), kTopK, opt.passes, opt.builds);
    if (opt.only.empty() || opt.only == "scifact") RunSciFact(opt, json);
    bool plain = opt.only.empty() || opt.only == "debian";
    bool filtered = opt.only.empty() || opt.only == "filter";
    if (plain || filtered) RunDebian(opt, plain, filtered, json);
    if (opt.only == "scale") RunScale(opt, json);
  });
}
