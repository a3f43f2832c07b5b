// engram's end-to-end full-text benchmark (issue 3 acceptance; results in
// bench/RESULTS.md "Full-text search (issue 3)"). One process, one thread,
// the peers measured in the same run on the same documents and queries:
//
//  1. BEIR SciFact (5,183 abstracts, 300 test claims): nDCG@10 computed here
//     from the qrels (ndcg.h), indexing throughput, p50/p99 query latency for
//     top-10, for engram, SQLite FTS5 and Xapian (peers.h).
//  2. The Debian 12 packages (63,666): indexing throughput and latency over a
//     fixed, seeded set of queries made of words of package descriptions
//     (MakeDebianQueries).
//  3. Filtered top-10 on the Debian corpus: filters on section, tags and
//     installed_size_kib at about 50 %, 5 % and 0.5 % selectivity. engram gets
//     the allowed-set as a Roaring bitmap built by engram's filter compiler
//     (vector_filter dialect) over the records, and every result is checked
//     against the exhaustive oracle (SearchExhaustive); Xapian runs the same
//     filter as boolean terms / a value range under OP_FILTER.
//
// engram: TextIndex with fields title and text (weight 1.0 each, the
// default), English stemming, BM25 k1 1.2, b 0.75, relax on (the defaults);
// queries parsed by text::ParseQuery in the default profile (a claim is a
// bare-word query: stopwords stripped, implicit AND relaxed to fill top-k
// by BM25, QUERY_DSL.md §3). Latency is measured from the query text
// (parse + search for engram, query building + search for the peers).
//
// Usage: text_benchmark [--data DIR] [--passes N] [--builds N] [--queries N]
//                       [--seed S] [--only scifact|debian|filter]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
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
#include "data.h"
#include "filter/compiler.h"
#include "ndcg.h"
#include "peers.h"
#include "schema/record.h"
#include "schema/schema.h"
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

// ---- reporting --------------------------------------------------------------

struct EngineRow {
  std::string name;
  std::optional<double> ndcg;
  double build_s = 0;
  std::size_t docs = 0;
  Latency lat;
};

void PrintEngineTable(const std::vector<EngineRow>& rows, bool with_ndcg) {
  if (with_ndcg) {
    fmt::print("| engine | nDCG@10 | index time | docs/s | p50 | p99 | mean |\n");
    fmt::print("|---|---|---|---|---|---|---|\n");
  } else {
    fmt::print("| engine | index time | docs/s | p50 | p99 | mean |\n");
    fmt::print("|---|---|---|---|---|---|\n");
  }
  for (const EngineRow& r : rows) {
    std::string dps = Thousands(static_cast<double>(r.docs) / r.build_s);
    if (with_ndcg) {
      fmt::print("| {} | {:.4f} | {:.3f} s | {} | {} | {} | {} |\n", r.name, r.ndcg.value_or(0),
                 r.build_s, dps, Us(r.lat.p50_us), Us(r.lat.p99_us), Us(r.lat.mean_us));
    } else {
      fmt::print("| {} | {:.3f} s | {} | {} | {} | {} |\n", r.name, r.build_s, dps,
                 Us(r.lat.p50_us), Us(r.lat.p99_us), Us(r.lat.mean_us));
    }
  }
  const EngineRow* xap = nullptr;
  const EngineRow* eng = nullptr;
  for (const EngineRow& r : rows) {
    if (r.name.rfind("Xapian", 0) == 0) xap = &r;
    if (r.name.rfind("**engram", 0) == 0) eng = &r;
  }
  if (xap != nullptr && eng != nullptr) {
    fmt::print("\nengram vs Xapian: p50 {:.2f}x faster, p99 {:.2f}x, indexing {:.2f}x\n",
               xap->lat.p50_us / eng->lat.p50_us, xap->lat.p99_us / eng->lat.p99_us,
               xap->build_s / eng->build_s);
  }
  std::fflush(stdout);
}

std::string XapianDir(const char* name) {
  std::string base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  return fmt::format("{}/engram-bench-{}-{}", base, name, getpid());
}

// ---- 1. SciFact -------------------------------------------------------------

void RunSciFact(const Options& opt) {
  SciFact s = LoadSciFact(opt.data + "/scifact");
  fmt::print("\n## BEIR SciFact: {} documents, {} test queries, {} judged queries\n\n",
             s.docs.size(), s.queries.size(), s.qrels.size());
  std::vector<PeerDoc> docs;
  for (const TextDoc& d : s.docs) docs.push_back({d.title, d.text, {}, nullptr, -1});
  const std::size_t k = 10;
  std::vector<EngineRow> rows;

  // engram
  {
    std::unique_ptr<text::TextIndex> index;
    EngineRow r{"**engram**", std::nullopt, 0, docs.size(), {}};
    r.build_s = MedianBuildSeconds(
        opt.builds, [&] { index.reset(); }, [&] { index = BuildEngram(docs); });
    std::vector<text::DefaultQuery> parsed;
    for (const TextQuery& q : s.queries) parsed.push_back(Parse(q.text));
    std::map<std::string, std::vector<std::string>> runs;
    std::size_t relaxed = 0, oracle_ok = 0;
    for (std::size_t i = 0; i < s.queries.size(); ++i) {
      text::TextSearchStats st;
      auto hits = index->Search(parsed[i], k, nullptr, &st);
      relaxed += st.relaxed ? 1 : 0;
      oracle_ok += SameHits(hits, index->SearchExhaustive(parsed[i], k)) ? 1 : 0;
      auto& run = runs[s.queries[i].id];
      for (const auto& h : hits) run.push_back(s.docs[h.doc].id);
    }
    r.ndcg = MeanNdcgAtK(runs, s.qrels, k);
    r.lat = Measure(s.queries.size(), opt.passes, [&](std::size_t i) {
      auto q = Parse(s.queries[i].text);
      auto hits = index->Search(q, k);
      if (hits.size() > k) std::abort();
    });
    fmt::print(
        "engram: {} of {} queries relaxed (fewer than {} documents match every term); "
        "Search equals SearchExhaustive on {} of {}\n",
        relaxed, s.queries.size(), k, oracle_ok, s.queries.size());
    rows.push_back(r);
  }
  // SQLite FTS5
  {
    std::unique_ptr<Fts5Peer> fts;
    EngineRow r{"SQLite FTS5 (bm25)", std::nullopt, 0, docs.size(), {}};
    r.build_s = MedianBuildSeconds(
        opt.builds, [&] { fts.reset(); },
        [&] {
          fts = std::make_unique<Fts5Peer>();
          fts->Build(docs);
        });
    std::map<std::string, std::vector<std::string>> runs;
    for (const TextQuery& q : s.queries) {
      auto& run = runs[q.id];
      for (std::uint32_t d : fts->Search(q.text, k)) run.push_back(s.docs[d].id);
    }
    r.ndcg = MeanNdcgAtK(runs, s.qrels, k);
    r.lat = Measure(s.queries.size(), opt.passes,
                    [&](std::size_t i) { (void)fts->Search(s.queries[i].text, k); });
    rows.push_back(r);
  }
  // Xapian
  {
    std::unique_ptr<XapianPeer> xap;
    EngineRow r{"Xapian (BM25Weight)", std::nullopt, 0, docs.size(), {}};
    r.build_s = MedianBuildSeconds(
        opt.builds, [&] { xap.reset(); },
        [&] {
          xap = std::make_unique<XapianPeer>(XapianDir("scifact"));
          xap->Build(docs);
        });
    std::map<std::string, std::vector<std::string>> runs;
    for (const TextQuery& q : s.queries) {
      auto& run = runs[q.id];
      for (std::uint32_t d : xap->Search(q.text, k)) run.push_back(s.docs[d].id);
    }
    r.ndcg = MeanNdcgAtK(runs, s.qrels, k);
    r.lat = Measure(s.queries.size(), opt.passes,
                    [&](std::size_t i) { (void)xap->Search(s.queries[i].text, k); });
    rows.push_back(r);
  }
  fmt::print("\n");
  PrintEngineTable(rows, true);
}

// ---- 2. Debian --------------------------------------------------------------

// The fixed query set: with a 64-bit Mersenne Twister seeded with `seed`,
// draw a package uniformly; take the words of its description (`text`) that
// are runs of 3 or more ASCII letters, lower-cased, not English stopwords,
// distinct; if there are fewer than 3, draw again; pick 1, 2 or 3 of them
// (uniformly) in random order, joined by spaces. Only raw engine outputs
// (`% n`) are used, so the set is the same with any standard library.
std::vector<std::string> MakeDebianQueries(const std::vector<Package>& pkgs, std::size_t n,
                                           std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::string> out;
  while (out.size() < n) {
    const Package& p = pkgs[rng() % pkgs.size()];
    std::vector<std::string> words;
    std::set<std::string> seen;
    for (std::string w : SplitWords(p.text)) {
      bool letters = w.size() >= 3 && std::all_of(w.begin(), w.end(), [](char c) {
                       return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
                     });
      if (!letters) continue;
      for (char& c : w) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
      if (text::IsStopword(w) || !seen.insert(w).second) continue;
      words.push_back(w);
    }
    if (words.size() < 3) continue;
    std::size_t count = 1 + rng() % 3;
    std::string q;
    for (std::size_t j = 0; j < count; ++j) {
      std::size_t pick = j + rng() % (words.size() - j);
      std::swap(words[j], words[pick]);
      if (!q.empty()) q += ' ';
      q += words[j];
    }
    out.push_back(q);
  }
  return out;
}

struct FilterCase {
  std::string field;
  std::string target;                     // the aimed-at selectivity
  std::string filter;                     // vector_filter text, compiled by engram
  std::vector<std::string> xapian_terms;  // OR of boolean terms, or
  std::int64_t xapian_min_size = -1;      // installed_size_kib >= this (value slot 0)
};

std::vector<FilterCase> DebianFilters() {
  std::vector<FilterCase> f;
  auto sections = [&](std::string target, std::vector<std::string> v) {
    std::string list;
    FilterCase c{"section", std::move(target), "", {}, -1};
    for (const auto& s : v) {
      list += (list.empty() ? "\"" : ",\"") + s + "\"";
      c.xapian_terms.push_back("XS" + s);
    }
    c.filter = "{\"section\":{\"$in\":[" + list + "]}}";
    f.push_back(std::move(c));
  };
  auto tags = [&](std::string target, std::vector<std::string> v) {
    std::string list;
    FilterCase c{"tags", std::move(target), "", {}, -1};
    for (const auto& s : v) {
      list += (list.empty() ? "\"" : ",\"") + s + "\"";
      c.xapian_terms.push_back("XT" + s);
    }
    c.filter = "{\"tags\":{\"$in\":[" + list + "]}}";
    f.push_back(std::move(c));
  };
  auto size = [&](std::string target, std::int64_t min) {
    f.push_back({"installed_size_kib",
                 std::move(target),
                 fmt::format("{{\"installed_size_kib\":{{\"$gte\":{}}}}}", min),
                 {},
                 min});
  };
  sections("50 %", {"libs", "libdevel", "python", "doc", "perl", "devel", "utils"});
  sections("5 %", {"science", "admin"});
  sections("0.5 %", {"tex", "hamradio", "shells"});
  // Only 46.8 % of the packages have any debtag, so the broad tag filter is
  // every `role::` facet value (the widest natural tag filter).
  tags("50 %",
       {"role::program", "role::app-data", "role::data", "role::metapackage", "role::devel-lib",
        "role::shared-lib", "role::plugin", "role::documentation", "role::source",
        "role::debug-symbols", "role::TODO", "role::dummy", "role::examples", "role::kernel"});
  tags("5 %", {"devel::lang:perl"});
  tags("0.5 %", {"made-of::font"});
  size("50 %", 230);
  size("5 %", 17000);
  size("0.5 %", 160000);
  return f;
}

std::shared_ptr<const Schema> DebianSchema() {
  auto s = Schema::Parse(R"({"fields":[
    {"name":"section","type":"string","optional":true},
    {"name":"priority","type":"string","optional":true},
    {"name":"installed_size_kib","type":"int","optional":true},
    {"name":"tags","type":"set<string>","optional":true}]})");
  if (!s.ok()) throw std::runtime_error("schema: " + s.diagnostic().message);
  return s.value();
}

void RunDebian(const Options& opt, bool plain, bool filtered) {
  std::vector<Package> pkgs = LoadDebian(opt.data + "/debian/packages.jsonl.gz");
  std::vector<PeerDoc> docs;
  for (const Package& p : pkgs) {
    docs.push_back({p.title, p.text, p.section, &p.tags, p.installed_size_kib});
  }
  std::vector<std::string> queries = MakeDebianQueries(pkgs, opt.debian_queries, opt.seed);
  const std::size_t k = 10;
  fmt::print(
      "\n## Debian 12 packages: {} documents (title + description), {} queries "
      "(seed {})\n\nfirst queries: ",
      docs.size(), queries.size(), opt.seed);
  for (std::size_t i = 0; i < 8 && i < queries.size(); ++i) {
    fmt::print("{}`{}`", i ? ", " : "", queries[i]);
  }
  fmt::print("\n\n");

  std::unique_ptr<text::TextIndex> index;
  std::unique_ptr<XapianPeer> xap;
  std::vector<EngineRow> rows;
  int builds = plain ? opt.builds : 1;
  {
    EngineRow r{"**engram**", std::nullopt, 0, docs.size(), {}};
    r.build_s = MedianBuildSeconds(
        builds, [&] { index.reset(); }, [&] { index = BuildEngram(docs); });
    std::size_t relaxed = 0, oracle_ok = 0;
    for (const std::string& q : queries) {
      auto parsed = Parse(q);
      text::TextSearchStats st;
      auto hits = index->Search(parsed, k, nullptr, &st);
      relaxed += st.relaxed ? 1 : 0;
      oracle_ok += SameHits(hits, index->SearchExhaustive(parsed, k)) ? 1 : 0;
    }
    if (plain) {
      r.lat = Measure(queries.size(), opt.passes, [&](std::size_t i) {
        auto hits = index->Search(Parse(queries[i]), k);
        if (hits.size() > k) std::abort();
      });
      fmt::print("engram: {} of {} queries relaxed; Search equals SearchExhaustive on {} of {}\n",
                 relaxed, queries.size(), oracle_ok, queries.size());
    }
    rows.push_back(r);
  }
  if (plain) {
    std::unique_ptr<Fts5Peer> fts;
    EngineRow r{"SQLite FTS5 (bm25)", std::nullopt, 0, docs.size(), {}};
    r.build_s = MedianBuildSeconds(
        builds, [&] { fts.reset(); },
        [&] {
          fts = std::make_unique<Fts5Peer>();
          fts->Build(docs);
        });
    r.lat = Measure(queries.size(), opt.passes,
                    [&](std::size_t i) { (void)fts->Search(queries[i], k); });
    rows.push_back(r);
  }
  {
    EngineRow r{"Xapian (BM25Weight)", std::nullopt, 0, docs.size(), {}};
    r.build_s = MedianBuildSeconds(
        builds, [&] { xap.reset(); },
        [&] {
          xap = std::make_unique<XapianPeer>(XapianDir("debian"));
          xap->Build(docs);
        });
    if (plain) {
      r.lat = Measure(queries.size(), opt.passes,
                      [&](std::size_t i) { (void)xap->Search(queries[i], k); });
    }
    rows.push_back(r);
  }
  if (plain) {
    fmt::print("\n");
    PrintEngineTable(rows, false);
  }
  if (!filtered) return;

  // ---- 3. filtered top-10 ----
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
      "| field | aim | filter (engram `vector_filter`) | allowed | selectivity | engram p50 | "
      "engram p99 | engram exhaustive (oracle) p50 | Xapian p50 | Xapian p99 | engram vs Xapian "
      "p50 | "
      "= oracle |\n");
  fmt::print("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  std::size_t total_bad = 0, same_filters = 0, cases = 0;
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
    // Xapian's filter, checked to select the same documents.
    Xapian::Query xf;
    if (c.xapian_min_size >= 0) {
      xf = Xapian::Query(Xapian::Query::OP_VALUE_GE, 0,
                         Xapian::sortable_serialise(static_cast<double>(c.xapian_min_size)));
    } else {
      xf = Xapian::Query(Xapian::Query::OP_OR, c.xapian_terms.begin(), c.xapian_terms.end());
    }
    {
      Xapian::Database db(XapianDir("debian"));
      Xapian::Enquire e(db);
      e.set_query(xf);
      auto m = e.get_mset(0, db.get_doccount());
      roaring::Roaring xs;
      for (auto it = m.begin(); it != m.end(); ++it) xs.add(*it - 1);
      if (xs == allowed) {
        ++same_filters;
      } else {
        fmt::print(stderr, "Xapian filter selects {} documents, engram {}: {}\n", xs.cardinality(),
                   allowed.cardinality(), c.filter);
      }
    }
    std::vector<text::DefaultQuery> parsed;
    for (const std::string& q : queries) parsed.push_back(Parse(q));
    std::size_t ok = 0;
    for (const auto& q : parsed) {
      ok +=
          SameHits(index->Search(q, k, &allowed), index->SearchExhaustive(q, k, &allowed)) ? 1 : 0;
    }
    total_bad += parsed.size() - ok;
    Latency le = Measure(queries.size(), opt.passes, [&](std::size_t i) {
      auto hits = index->Search(Parse(queries[i]), k, &allowed);
      if (hits.size() > k) std::abort();
    });
    Latency lo = Measure(queries.size(), 1, [&](std::size_t i) {
      (void)index->SearchExhaustive(Parse(queries[i]), k, &allowed);
    });
    Latency lx = Measure(queries.size(), opt.passes,
                         [&](std::size_t i) { (void)xap->Search(queries[i], k, &xf); });
    double sel =
        100.0 * static_cast<double>(allowed.cardinality()) / static_cast<double>(records.size());
    std::string shown = c.filter.size() > 70 ? c.filter.substr(0, 67) + "...}" : c.filter;
    fmt::print("| `{}` | {} | `{}` | {} | {:.2f} % | {} | {} | {} | {} | {} | {:.2f}x | {}/{} |\n",
               c.field, c.target, shown, Thousands(static_cast<double>(allowed.cardinality())), sel,
               Us(le.p50_us), Us(le.p99_us), Us(lo.p50_us), Us(lx.p50_us), Us(lx.p99_us),
               lx.p50_us / le.p50_us, ok, parsed.size());
    std::fflush(stdout);
  }
  fmt::print(
      "\nfiltered results different from the oracle: {}; Xapian's filter selects exactly "
      "engram's allowed-set in {} of {} cases\n",
      total_bad, same_filters, cases);
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
    } else {
      args.Unknown(
          "--data DIR --passes N --builds N --queries N --seed S "
          "--only scifact|debian|filter");
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
    fmt::print(
        "# engram full-text benchmark\n\ndata: {}; single thread; SQLite {}; Xapian {}; "
        "{} timed passes after one warm-up; index build: median of {}\n",
        opt.data, sqlite3_libversion(), Xapian::version_string(), opt.passes, opt.builds);
    if (opt.only.empty() || opt.only == "scifact") RunSciFact(opt);
    bool plain = opt.only.empty() || opt.only == "debian";
    bool filtered = opt.only.empty() || opt.only == "filter";
    if (plain || filtered) RunDebian(opt, plain, filtered);
  });
}
