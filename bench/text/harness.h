// What text_benchmark's runs share (text_benchmark.cc, compare.cc,
// filtered.cc): the options, latency sampling, engram's index and query
// parse as every row uses them, the peers' versions and the machine's load,
// a corpus's queries and its four indexes, the rows of a table.
#ifndef ENGRAM_BENCH_TEXT_HARNESS_H_
#define ENGRAM_BENCH_TEXT_HARNESS_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/json_out.h"
#include "data.h"
#include "equal_work.h"
#include "ndcg.h"
#include "peers.h"
#include "text/index/stemmer.h"
#include "text/index/text_index.h"
#include "text/query/query.h"

#ifndef ENGRAM_DATA_DIR
#define ENGRAM_DATA_DIR "../shared/data"
#endif

namespace engram::bench {

using Clock = std::chrono::steady_clock;

inline double Seconds(Clock::time_point a, Clock::time_point b) {
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
  // engram's searches: an OR of three or more terms with at most this many
  // postings is summed whole (TextSearchOptions; 0: always pruned, as before
  // d71fa02).
  std::size_t full_sum_postings = text::kDefaultFullSumPostings;
};

struct Latency {
  double p50_us = 0, p99_us = 0, mean_us = 0;
};

// Nearest-rank percentile of `v` (sorted in place), p in (0, 100].
double Percentile(std::vector<double>& v, double p);
// One warm-up pass, then `passes` timed passes over the queries; every
// query's time in every pass is one sample.
Latency Measure(std::size_t n, int passes, const std::function<void(std::size_t)>& run);
// Times `build` `reps` times (each builds from scratch); the median. `reset`
// drops the previous build first, outside the timed region, so that no
// engine's time includes tearing down its last index.
double MedianBuildSeconds(int reps, const std::function<void()>& reset,
                          const std::function<void()>& build);
// "12.3 µs", "1.23 ms".
std::string Us(double us);

// ---- engram, as every row uses it -------------------------------------------

// Fields title and text (weight 1.0 each), English stemming, BM25 k1 1.2,
// b 0.75, relax on: the defaults.
text::TextIndexOptions EngramOptions();
// The stemmer engram's index uses, which QueryTerms groups the terms by.
inline const text::Stemmer kStemmer = EngramOptions().stemmer;
// The default profile, with a fixed anchor for reproducible temporal hints.
text::QueryOptions EngramQueryOptions();
// engram's parse of `q` (throws on a query it refuses).
text::DefaultQuery Parse(std::string_view q);
std::unique_ptr<text::TextIndex> BuildEngram(const std::vector<PeerDoc>& docs);
// A diagnostic engram index with title and text in one field, so that it
// ranks by plain BM25 over the whole document as the peers do (engram's
// default is BM25F: each field's length normalised on its own); with
// `split`, the text is first cut into words as the peers' tokenizers cut it
// (SplitWords: `covid-19` is `covid 19`, where engram's tokenizer makes one
// word `covid19`).
std::unique_ptr<text::TextIndex> BuildEngramOneField(const std::vector<PeerDoc>& docs, bool split);
std::vector<std::uint32_t> Ids(const std::vector<text::TextHit>& hits);
// Search and the oracle agree: same documents in the same order, scores equal
// up to floating-point summation order.
bool SameHits(const std::vector<text::TextHit>& a, const std::vector<text::TextHit>& b);

// ---- what every table states ------------------------------------------------

// `uptime`'s load averages and the CPU count, printed with every table,
// and a warning when the machine is loaded: the 1-minute load average above
// 1 + CPUs / 4 (1.5 on 2 CPUs: this benchmark's one thread and more than
// half a core of other work), when the latency columns are not results.
std::string LoadLine();
// The peers' library versions and Debian packages (DebianPackage).
std::string PeerVersions();

// ---- one corpus: its queries, its indexes, its rows -------------------------

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
QuerySet PrepareQueries(const std::vector<std::string>& raw);

// The four indexes of one corpus and their median build times.
struct Engines {
  std::unique_ptr<text::TextIndex> engram;
  std::unique_ptr<Fts5Peer> fts;
  std::unique_ptr<XapianPeer> xapian[2];  // indexed by XapianBackend
  double build_s[4] = {};                 // engram, FTS5, Xapian InMemory, Xapian glass
};

// Builds the four indexes of `docs`, each `builds` times (the median time
// kept); `name` tells Xapian glass's directory apart.
void BuildEngines(const std::vector<PeerDoc>& docs, int builds, const char* name, Engines* e);

struct Row {
  std::string engine;
  Semantics semantics;
  double build_s = 0;
  std::optional<double> ndcg;
  Latency lat;
  Agreement agree;  // with engram under the same semantics; empty for engram
  std::vector<std::vector<std::uint32_t>> top;  // each query's top-k record numbers
};

// For SciFact: record numbers -> document ids for nDCG@10.
struct Judged {
  const std::vector<TextDoc>* docs;
  const std::vector<TextQuery>* queries;
  const Qrels* qrels;
};

// The rows as --json-out objects.
void WriteRows(const std::vector<Row>& rows, std::string_view corpus, std::size_t docs,
               JsonOut& out);

// ---- the runs ---------------------------------------------------------------

// Runs every engine under both semantics over `raw` queries and prints the
// table; `judged` (optional) adds nDCG@10.
void Compare(std::string_view corpus, const std::vector<PeerDoc>& docs,
             const std::vector<std::string>& raw, const Options& opt, Engines& e,
             const Judged* judged, JsonOut& json);
// Filtered top-10 on the Debian packages (filtered.cc): engram with the
// allowed set its filter compiler gives, checked against the oracle, and
// Xapian with the same filter under OP_FILTER.
void RunFiltered(const Options& opt, const std::vector<Package>& pkgs,
                 const std::vector<std::string>& queries, Engines& e);

}  // namespace engram::bench

#endif  // ENGRAM_BENCH_TEXT_HARNESS_H_
