// Count and facets at scale (issue 20): Engine::Count and Engine::Facets
// over a store of synthetic agent memories (common/memories.h; 1,000,000 by
// default, built by bench/recovery/recovery_benchmark, see run.sh), each
// with filters of five leaves at several selectivities, unscoped (the
// store's owner) and scoped to one agent.
//
// Each filter is first checked: the kind facet's counts and the importance
// ranges' counts (every memory has one kind and an importance in [0, 100])
// must each add up to Count. Then --iterations timed calls of each
// operation; p50, p99 and the largest call in milliseconds. Markdown on
// stdout, progress on stderr.
//
//   count_facets_benchmark --store DIR [--iterations N] [--threads N]
#include <algorithm>
#include <chrono>
#include <functional>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "common/cli.h"
#include "common/format.h"
#include "common/measure.h"
#include "engram/engine.h"

namespace engram::bench {
namespace {

using Clock = std::chrono::steady_clock;
constexpr const char* kCollection = "memories";

struct Options {
  std::string store;
  int iterations = 200;
  std::size_t threads = 2;
};

template <typename T>
T Check(StatusOr<T> s, const std::string& what) {
  if (!s.ok()) throw std::runtime_error(what + ": " + s.status().message());
  return std::move(s).value();
}

// The memories' times are 1,700,000,000 + 7 i (+ the version): a window of
// `share` of a store of `records` from its start.
std::string TsBefore(std::uint64_t records, double share) {
  return std::to_string(1700000000 + static_cast<std::uint64_t>(7.0 * records * share));
}

struct Case {
  std::string name;
  std::optional<Scope> scope;
  std::string filter;  // five leaves, vector_filter dialect
};

std::vector<Case> Cases(std::uint64_t records) {
  Scope agent;
  agent.agent = "agent-7";
  const std::string half = TsBefore(records, 0.5), tenth = TsBefore(records, 0.1);
  return {
      {"broad: 2 kinds, importance >= 20, a time window, not one agent", std::nullopt,
       R"({"$and":[{"kind":{"$in":["fact","event"]}},{"importance":{"$gte":20}},)"
       R"({"ts":{"$gte":1700000000}},{"ts":{"$lt":)" +
           half +
           R"(}},)"
           R"({"agent_id":{"$ne":"agent-3"}}]})"},
      {"narrow: one agent, 3 kinds, importance >= 50, a tag of two, recent", std::nullopt,
       R"({"$and":[{"agent_id":"agent-7"},{"kind":{"$in":["fact","task","note"]}},)"
       R"({"importance":{"$gte":50}},{"tags":{"$in":["t1","t2"]}},{"ts":{"$gte":)" +
           tenth + R"(}}]})"},
      {"or: (tag t5 or t6 or importance < 5) and kind and time", std::nullopt,
       R"({"$and":[{"$or":[{"tags":"t5"},{"tags":"t6"},{"importance":{"$lt":5}}]},)"
       R"({"kind":{"$ne":"error"}},{"ts":{"$lt":)" +
           half + R"(}}]})"},
      {"scoped to agent-7: 2 kinds, importance in [10, 90), a time window", agent,
       R"({"$and":[{"kind":{"$in":["fact","event"]}},{"importance":{"$gte":10}},)"
       R"({"importance":{"$lt":90}},{"ts":{"$gte":1700000000}},{"ts":{"$lt":)" +
           half + R"(}}]})"},
  };
}

struct Timing {
  double p50, p99, max;
};

Timing Time(int iterations, const std::function<void()>& call) {
  call();  // warm
  std::vector<double> ms;
  for (int i = 0; i < iterations; ++i) {
    const auto start = Clock::now();
    call();
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
  std::sort(ms.begin(), ms.end());
  auto at = [&](double q) {
    return ms[std::min(ms.size() - 1, static_cast<std::size_t>(q * ms.size()))];
  };
  return {at(0.5), at(0.99), ms.back()};
}

std::uint64_t Sum(const FacetResponse& r) {
  std::uint64_t n = 0;
  for (const FacetValue& v : r.values) n += v.count;
  for (const FacetRangeCount& c : r.ranges) n += c.count;
  return n;
}

void Run(const Options& o) {
  Engine::Options e;
  e.threads = o.threads;
  e.checkpoint_interval_ms = 0;
  e.checkpoint_records = std::numeric_limits<std::uint64_t>::max();
  const auto open_start = Clock::now();
  std::unique_ptr<Engine> engine = Check(Engine::Open(o.store, e), "open " + o.store);
  const double open_s = std::chrono::duration<double>(Clock::now() - open_start).count();
  const std::uint64_t records = Check(engine->Count(kCollection, {}), "count").count;
  std::cout << fmt::format(
      "store: {} ({} records, opened in {:.1f} s); {} timed calls per row; load {}\n\n", o.store,
      Thousands(static_cast<double>(records)), open_s, o.iterations, LoadAvg());
  std::cout << "| filter (5 leaves) | matches | operation | p50 ms | p99 ms | max ms |\n"
               "|---|---:|---|---:|---:|---:|\n";
  for (const Case& c : Cases(records)) {
    RecordSelection s;
    s.scope = c.scope;
    s.filter = c.filter;
    CountResponse count = Check(engine->Count(kCollection, s), "count");
    if (count.rejected) throw std::runtime_error("filter refused: " + count.rejected->message);
    FacetRequest kinds;
    kinds.selection = s;
    kinds.field = "kind";
    FacetRequest importance;
    importance.selection = s;
    importance.field = "importance";
    for (const char* bound : {"25", "50", "75"}) {
      importance.ranges.push_back(
          {importance.ranges.empty() ? std::nullopt : importance.ranges.back().to, bound});
    }
    importance.ranges.push_back({importance.ranges.back().to, std::nullopt});
    const FacetResponse k = Check(engine->Facets(kCollection, kinds), "facets kind");
    const FacetResponse i = Check(engine->Facets(kCollection, importance), "facets importance");
    if (k.rejected || i.rejected || Sum(k) != count.count || Sum(i) != count.count) {
      throw std::runtime_error(
          fmt::format("'{}': count {} but the kind facet adds up to {} and "
                      "the importance ranges to {}",
                      c.name, count.count, Sum(k), Sum(i)));
    }
    std::cerr << c.name << ": " << count.count << " matches, checked\n";
    const std::vector<std::pair<std::string, std::function<void()>>> ops = {
        {"count", [&] { Check(engine->Count(kCollection, s), "count"); }},
        {"facets: kind, top 10", [&] { Check(engine->Facets(kCollection, kinds), "facets"); }},
        {"facets: importance, 4 ranges",
         [&] { Check(engine->Facets(kCollection, importance), "facets"); }},
    };
    for (const auto& [op, call] : ops) {
      const Timing t = Time(o.iterations, call);
      std::cout << fmt::format(
          "| {}{} | {} | {} | {:.2f} | {:.2f} | {:.2f} |\n", c.name, c.scope ? "" : " (unscoped)",
          Thousands(static_cast<double>(count.count)), op, t.p50, t.p99, t.max);
    }
  }
  std::cout << fmt::format("\nload after: {}\n", LoadAvg());
}

}  // namespace
}  // namespace engram::bench

int main(int argc, char** argv) {
  using namespace engram::bench;
  return RunGuarded("count_facets_benchmark", [&] {
    Options o;
    for (ArgReader args(argc, argv); args.Next();) {
      if (args.Is("--store"))
        o.store = args.Value();
      else if (args.Is("--iterations"))
        o.iterations = std::stoi(args.Value());
      else if (args.Is("--threads"))
        o.threads = std::stoul(args.Value());
      else
        args.Unknown("see the usage in bench/listing/count_facets_benchmark.cc");
    }
    if (o.store.empty() || o.iterations <= 0) {
      throw std::runtime_error("--store DIR is required, --iterations must be positive");
    }
    Run(o);
  });
}
