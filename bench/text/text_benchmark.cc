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
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "common/cli.h"
#include "common/format.h"
#include "common/json_out.h"
#include "debian_cases.h"
#include "harness.h"
#include "scaled_corpus.h"

namespace engram::bench {
namespace {

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

// ---- 2. Debian, and 3. filtered top-10 (filtered.cc) ------------------------

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
    } else if (args.Is("--full-sum-postings")) {
      o.full_sum_postings = std::stoul(args.Value());
    } else if (args.Is("--scale-docs")) {
      o.scale_docs.clear();
      for (const std::string& n : args.List()) o.scale_docs.push_back(std::stoul(n));
    } else {
      args.Unknown(
          "--data DIR --passes N --builds N --queries N --seed S "
          "--only scifact|debian|filter|scale --json-out FILE --scale-docs N,N,... "
          "--full-sum-postings N");
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
