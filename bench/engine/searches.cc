// The hybrid searches of engine_benchmark (searches.h).
#include "searches.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <stdexcept>
#include <unordered_map>

#include <fmt/core.h>
#include <nlohmann/json.hpp>
#include <time.h>

#include "common/format.h"
#include "common/measure.h"
#include "common/must.h"

namespace engram::bench {
namespace {

using Clock = std::chrono::steady_clock;

// CPU seconds of the calling thread: a search's own cost, without the time
// it waited for a core.
double ThreadCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

Latency Summarise(std::vector<double> us) {
  Latency l;
  if (us.empty()) return l;
  std::sort(us.begin(), us.end());
  auto rank = [&](double q) {  // nearest rank
    const auto i = static_cast<std::size_t>(std::ceil(q * static_cast<double>(us.size())));
    return us[std::min(us.size(), std::max<std::size_t>(i, 1)) - 1];
  };
  l.p50 = rank(0.50);
  l.p99 = rank(0.99);
  for (const double x : us) l.mean += x;
  l.mean /= static_cast<double>(us.size());
  return l;
}

SearchRequest Request(const BenchQuery& q, const FilterCase& f) {
  SearchRequest r;
  r.query = q.text;
  r.vector = q.vector;
  r.mode = SearchMode::kHybrid;
  r.k = 10;
  if (!f.filter.empty()) {
    r.dialect = FilterDialect::kVectorFilter;
    r.filter = f.filter;
  }
  return r;
}

std::string Ms(double us) {
  return fmt::format("{:.2f}", us / 1000.0);
}

}  // namespace

SearchRow RunSearches(const Engine& engine, const Workload& w,
                      const std::vector<BenchQuery>& queries, const FilterCase& f,
                      std::size_t passes, std::size_t explain) {
  SearchRow row;
  row.name = f.name;
  row.filter = f.filter.empty() ? "—" : f.filter;
  std::unordered_map<std::string, std::size_t> index_of;
  for (std::size_t i = 0; i < w.packages.size(); ++i) {
    index_of[w.packages[i].id] = i;
    if (f.passes(w.packages[i])) ++row.allowed;
  }
  row.selectivity = static_cast<double>(row.allowed) / static_cast<double>(w.packages.size());
  const std::size_t want = std::min<std::size_t>(10, row.allowed);
  // Warm-up pass, checking every hit against the filter.
  for (const BenchQuery& q : queries) {
    SearchResponse r = Must(engine.Search(kDebianCollection, Request(q, f)), "search");
    if (r.rejected) throw std::runtime_error("search rejected: " + r.rejected->message);
    if (r.hits.size() < want) ++row.short_results;
    for (const SearchHit& h : r.hits) {
      ++row.checked_hits;
      auto it = index_of.find(h.id);
      if (it == index_of.end() || !f.passes(w.packages[it->second])) ++row.violations;
    }
  }
  std::vector<double> us, cpu_us;
  for (std::size_t pass = 0; pass < passes; ++pass) {
    for (const BenchQuery& q : queries) {
      const SearchRequest req = Request(q, f);
      const auto t0 = Clock::now();
      const double c0 = ThreadCpuSeconds();
      SearchResponse r = Must(engine.Search(kDebianCollection, req), "search");
      cpu_us.push_back((ThreadCpuSeconds() - c0) * 1e6);
      us.push_back(SecondsSince(t0) * 1e6);
      if (r.hits.empty() && want > 0) ++row.short_results;
    }
  }
  row.samples = us.size();
  row.lat = Summarise(us);
  row.cpu = Summarise(cpu_us);
  // Explain on a sample: the plan and where the time goes.
  const std::size_t n = std::min(explain, queries.size());
  for (std::size_t i = 0; i < n; ++i) {
    SearchRequest req = Request(queries[i], f);
    req.explain = true;
    SearchResponse r = Must(engine.Search(kDebianCollection, req), "explain");
    const nlohmann::json ex = nlohmann::json::parse(r.explain);
    if (ex.contains("vector") && ex["vector"].is_object()) {
      ++row.plans[ex["vector"].value("plan", "?")];
      row.stages["vector retriever"] += ex["vector"].value("micros", 0.0) / static_cast<double>(n);
    }
    if (ex.contains("text") && ex["text"].is_object()) {
      row.stages["text retriever"] += ex["text"].value("micros", 0.0) / static_cast<double>(n);
    }
    if (ex.contains("filter") && ex["filter"].is_object()) {
      row.filter_mode = ex["filter"].value("mode", "?");
      if (ex["filter"]["allowed"].is_number()) {
        row.explain_allowed = ex["filter"]["allowed"].get<std::size_t>();
      }
    }
    for (const auto& [stage, micros] : ex["timings_us"].items()) {
      if (stage == "explain") continue;
      row.stages[stage] += micros.get<double>() / static_cast<double>(n);
    }
  }
  return row;
}

void PrintSearch(const std::vector<SearchRow>& rows, std::size_t queries) {
  std::cout << fmt::format(
      "\n## Hybrid search, k = 10 ({} queries x passes; latency of Engine::Search in ms)\n\n",
      queries);
  std::cout << "| filter | vector_filter | selectivity | p50 | p99 | mean | CPU p50 | CPU p99 | "
               "samples | vector plan (explain sample) | hits checked / violating | short "
               "results |\n"
            << "|---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|\n";
  for (const SearchRow& r : rows) {
    std::string plans;
    for (const auto& [plan, count] : r.plans) {
      plans += fmt::format("{}{} x{}", plans.empty() ? "" : ", ", plan, count);
    }
    if (!r.filter_mode.empty()) plans += " (filter " + r.filter_mode + ")";
    std::cout << fmt::format(
        "| {} | `{}` | {:.2f} % ({}) | {} | {} | {} | {} | {} | {} | {} | {} / {} | {} |\n", r.name,
        r.filter, 100 * r.selectivity, Thousands(static_cast<double>(r.allowed)), Ms(r.lat.p50),
        Ms(r.lat.p99), Ms(r.lat.mean), Ms(r.cpu.p50), Ms(r.cpu.p99), r.samples, plans,
        r.checked_hits, r.violations, r.short_results);
  }
  std::cout << "\n### Mean time per stage (µs, explain sample)\n\n| filter |";
  // Pipeline order first (search.cc), then anything else explain reports.
  std::vector<std::string> stages = {"validate",       "filter",           "retrieve",
                                     "text retriever", "vector retriever", "fusion",
                                     "signals",        "thresholds",       "total"};
  for (const SearchRow& r : rows) {
    for (const auto& [s, v] : r.stages) {
      if (std::find(stages.begin(), stages.end(), s) == stages.end()) stages.push_back(s);
    }
  }
  for (const std::string& s : stages) std::cout << " " << s << " |";
  std::cout << "\n|---|";
  for (std::size_t i = 0; i < stages.size(); ++i) std::cout << "---:|";
  std::cout << "\n";
  for (const SearchRow& r : rows) {
    std::cout << "| " << r.name << " |";
    for (const std::string& s : stages) {
      auto it = r.stages.find(s);
      std::cout << " "
                << (it == r.stages.end() ? std::string("—") : fmt::format("{:.0f}", it->second))
                << " |";
    }
    std::cout << "\n";
  }
}

}  // namespace engram::bench
