// Google Benchmark: the cost of TextIndex updates as the index grows. A
// synthetic corpus with Zipf-distributed words (so the commonest words are in
// almost every document, as in real text) of 100 tokens per document; each
// benchmark builds N documents, then times one kind of update over all of
// them in random order. Per-document time that grows with N means updates
// cost in proportion to the posting lists they touch rather than to the
// document.
//   Append:  N new documents, record numbers ascending
//   Reput:   every document put again (replaced) under its own number
//   Remove:  every document removed
//   Churn:   remove a random document, put a new one under the freed number
//   Search:  top-10 for bare-word, OR, phrase and prefix queries (reads the
//            postings the updates maintain)
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "text/index/text_index.h"
#include "text/query/query.h"

namespace engram::text {
namespace {

constexpr std::size_t kTokens = 100;
constexpr std::size_t kVocabulary = 20000;

// N documents of kTokens words drawn with Zipf(1) frequencies.
std::vector<std::string> Corpus(std::size_t n, std::uint64_t seed) {
  std::vector<double> cdf(kVocabulary);
  double sum = 0;
  for (std::size_t r = 0; r < kVocabulary; ++r) cdf[r] = sum += 1.0 / static_cast<double>(r + 1);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, sum);
  std::vector<std::string> docs(n);
  for (std::string& d : docs) {
    for (std::size_t t = 0; t < kTokens; ++t) {
      const std::size_t r = std::lower_bound(cdf.begin(), cdf.end(), u(rng)) - cdf.begin();
      d += "w" + std::to_string(r) + " ";
    }
  }
  return docs;
}

TextIndex Build(const std::vector<std::string>& docs) {
  TextIndexOptions o;
  o.fields = {{"text", 1.0}};
  o.stemmer = Stemmer::kNone;
  TextIndex index(o);
  for (std::size_t i = 0; i < docs.size(); ++i) {
    index.Put(static_cast<std::uint32_t>(i), {docs[i]});
  }
  return index;
}

std::vector<std::uint32_t> Shuffled(std::size_t n) {
  std::vector<std::uint32_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = static_cast<std::uint32_t>(i);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(7));
  return order;
}

void BM_Append(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const std::vector<std::string> docs = Corpus(n, 1);
  for (auto _ : state) benchmark::DoNotOptimize(Build(docs).size());
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
}

// Builds N documents, then times `update(index, doc)` over all of them in
// random order.
template <typename Update>
void TimeUpdates(benchmark::State& state, const Update& update) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const std::vector<std::string> docs = Corpus(n, 1);
  const std::vector<std::uint32_t> order = Shuffled(n);
  for (auto _ : state) {
    state.PauseTiming();
    TextIndex index = Build(docs);
    state.ResumeTiming();
    for (std::uint32_t d : order) update(index, d);
    benchmark::DoNotOptimize(index.size());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
}

void BM_Reput(benchmark::State& state) {
  const std::vector<std::string> other = Corpus(static_cast<std::size_t>(state.range(0)), 2);
  TimeUpdates(state, [&](TextIndex& index, std::uint32_t d) { index.Put(d, {other[d]}); });
}

void BM_Remove(benchmark::State& state) {
  TimeUpdates(state, [](TextIndex& index, std::uint32_t d) { index.Remove(d); });
}

void BM_Churn(benchmark::State& state) {
  const std::vector<std::string> other = Corpus(static_cast<std::size_t>(state.range(0)), 2);
  TimeUpdates(state, [&](TextIndex& index, std::uint32_t d) {
    index.Remove(d);
    index.Put(d, {other[d]});
  });
}

void BM_Search(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const TextIndex index = Build(Corpus(n, 1));
  std::vector<DefaultQuery> queries;
  std::mt19937_64 rng(5);
  for (int i = 0; i < 100; ++i) {
    const std::string a = "w" + std::to_string(rng() % 200), b = "w" + std::to_string(rng() % 2000);
    for (const std::string& text :
         {a + " " + b, a + " OR " + b, "\"" + a + " " + b + "\"", a + "*"}) {
      queries.push_back(ParseQuery(text, QueryOptions{}).value().def);
    }
  }
  for (auto _ : state) {
    for (const DefaultQuery& q : queries) benchmark::DoNotOptimize(index.Search(q, 10).size());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * queries.size()));
}

BENCHMARK(BM_Append)->Arg(2000)->Arg(8000)->Arg(32000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Reput)->Arg(2000)->Arg(8000)->Arg(32000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Remove)->Arg(2000)->Arg(8000)->Arg(32000)->Arg(128000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Churn)->Arg(2000)->Arg(8000)->Arg(32000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Search)->Arg(32000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace engram::text

BENCHMARK_MAIN();
