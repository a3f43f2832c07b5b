// The equal-work comparison of one corpus (harness.h: Compare): every
// engine under both semantics, the checks that they get the same terms,
// the table, and why top-10 lists differ.
#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <stdexcept>

#include <fmt/core.h>
#include <xapian.h>

#include "common/format.h"
#include "harness.h"
#include "text/index/index_data.h"
#include "text/query/stopwords.h"

namespace engram::bench {
namespace {

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

// One engine under one semantics: query i's top-k record numbers, from
// engram's parsed query (engram) or its terms (the peers).
using SearchFn = std::function<std::vector<std::uint32_t>(std::size_t i)>;

// One table: the rows, then each peer's latency against engram's.
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
void PrintEngramChecks(const text::TextIndex& index, const QuerySet& qs, Semantics sem,
                       const text::TextSearchOptions& options) {
  const std::size_t n = qs.terms.size();
  std::size_t relaxed = 0, oracle_ok = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const text::DefaultQuery& q = qs.Parsed(sem, i);
    text::TextSearchStats st;
    auto hits = index.Search(q, kTopK, nullptr, &st, options);
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

}  // namespace

void Compare(std::string_view corpus, const std::vector<PeerDoc>& docs,
             const std::vector<std::string>& raw, const Options& opt, Engines& e,
             const Judged* judged, JsonOut& json) {
  QuerySet qs = PrepareQueries(raw);
  PrintTermChecks(qs, e);
  const std::size_t n = raw.size();
  std::vector<Row> rows;
  text::TextSearchOptions options;
  options.full_sum_postings = opt.full_sum_postings;
  fmt::print("engram: ORs of three or more terms with at most {} postings summed whole\n",
             opt.full_sum_postings);
  for (Semantics sem : kBoth) {
    PrintEngramChecks(*e.engram, qs, sem, options);
    std::vector<std::pair<std::string, SearchFn>> engines;
    engines.emplace_back("**engram**", [&, sem](std::size_t i) {
      return Ids(e.engram->Search(qs.Parsed(sem, i), kTopK, nullptr, nullptr, options));
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

}  // namespace engram::bench
