// engram's end-to-end filtered vector search benchmark (issue 4; results in
// bench/RESULTS.md). For each dataset (data.h) it builds engram's VectorIndex,
// FAISS IndexHNSWFlat, FAISS IndexFlat (scanned over the allowed ids) and
// hnswlib on the same vectors (M 16, efConstruction 200, builds on 2
// threads), then for every filter (filters.h: 100 %, and 50, 10, 1, 0.1 %
// each uncorrelated, correlated, anti-correlated) sweeps ef for every system
// (sweep.h) and measures recall@10 against the exact filtered answer and
// single-thread QPS. Outputs (report.h): a CSV of every
// point, plot data for plot.gp, a Markdown summary on stdout and in a file,
// and with --json-out one JSON object per table row (report.h WriteJsonRows).
//
// Usage: vector_benchmark [--datasets sift5k,fasttext,synthetic-100k,synthetic-1m]
//   [--data DIR] [--work DIR] [--out DIR] [--queries N] [--queries-1m N]
//   [--efs 10,16,...] [--m 16] [--ef-construction 200] [--threads 2]
//   [--seed S] [--min-seconds X] [--max-ms-per-query X] [--clock cpu|wall]
//   [--systems engram,faiss,hnswlib] [--filters 100%-none,50%-anti,...,10%-mixed]
//   [--json-out FILE] [--value-graphs MIN] [--cover-slack X] [--sq8] [--interleave R]
//   [--modes planner,value_graphs,exact]
//   (--value-graphs: engram's records carry their labels as keys, labels of
//   at least MIN records get value graphs, label filters come with covers;
//   --cover-slack: PlannerConstants::cover_slack for engram's variants;
//   --sq8: engram's index quantised (VectorIndexOptions::quantize), with a
//   variant walking its floats on the same graph; --interleave R: after each
//   case, R interleaved rounds of every variant at recall >= 0.95, sweep.h;
//   --modes: engram's variants of these modes only, e.g. to leave out the
//   unfiltered walk that runs at a few QPS under far filters at 1M)
//   or, to fit the planner's constants on one dataset and seed (fit.h):
//   --fit --datasets NAME [--seed S] [--fit-walk-costs 6,9,...] [--fit-efs 32,48,...]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <fmt/ranges.h>

#include "common/cli.h"
#include "common/format.h"
#include "data.h"
#include "engram_runner.h"
#include "filters.h"
#include "fit.h"
#include "peers.h"
#include "report.h"
#include "sweep.h"

#ifndef ENGRAM_DATA_DIR
#define ENGRAM_DATA_DIR "../shared/data"
#endif
#ifndef ENGRAM_BENCH_WORK_DIR
#define ENGRAM_BENCH_WORK_DIR "build/vector-data"
#endif

namespace engram::bench {
namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::string data = ENGRAM_DATA_DIR;
  std::string work = ENGRAM_BENCH_WORK_DIR;  // prepared data and ground-truth cache
  std::string out;                           // results (default: <work>/../vector-results)
  std::vector<std::string> datasets = {"sift5k", "fasttext", "synthetic-100k"};
  std::size_t queries = 200;
  std::size_t queries_1m = 100;
  HnswParams hnsw{16, 200, 10, {10, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512}};
  std::size_t threads = 2;
  std::uint64_t seed = 20261121;
  std::vector<std::string> systems = {"engram", "faiss", "hnswlib"};
  SweepOptions sweep;
  double recall = 0.95;
  std::string json_out;
  std::vector<std::string> filters;  // --filters: these names only (FilterSpec::Name); empty: all
  bool fitting = false;              // --fit: fit the planner's constants on the one dataset given
  std::size_t value_graph_min = 0;   // --value-graphs (0: none)
  double cover_slack = 0;            // --cover-slack (0: the built-in one)
  std::size_t interleave = 0;        // --interleave R: rounds (sweep.h RunInterleaved)
  std::vector<std::string> modes;    // --modes: engram's variants of these modes; empty: all
  FitGrid fit;
};

bool Has(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

Dataset Load(const Options& o, const std::string& name) {
  if (name == "sift5k") return LoadSift(o.data, o.queries, 50, o.seed);
  if (name == "fasttext") return LoadFastText(o.work + "/fasttext-debian.tsv", o.queries, o.seed);
  if (name == "synthetic-100k") return MakeSynthetic(name, 100'000, 128, 1000, o.queries, o.seed);
  if (name == "synthetic-1m")
    return MakeSynthetic(name, 1'000'000, 128, 1000, o.queries_1m, o.seed);
  throw std::runtime_error("unknown dataset " + name);
}

// Every variant over every standard filter of `d` (filters.h), each case
// against its exact filtered top-k (cached under o.work).
std::vector<Point> RunFilters(const Options& o, const Dataset& d, std::vector<Variant>& variants) {
  fmt::print(stderr, "[{}] exact neighbourhoods (cached in {})\n", d.name, o.work);
  const LabelIndex labels = BuildLabelIndex(d, 100, o.threads, o.work);
  std::vector<Point> points;
  std::vector<FilterSpec> specs = StandardFilters();
  for (const FilterSpec& spec : MixedFilters()) {
    if (Has(o.filters, spec.Name())) specs.push_back(spec);
  }
  for (const FilterSpec& spec : specs) {
    if (!o.filters.empty() && !Has(o.filters, spec.Name())) continue;
    std::vector<roaring::Roaring> allowed;
    std::vector<const roaring::Roaring*> ptrs;
    if (spec.correlation != Correlation::kNone) {
      allowed.reserve(d.nq());
      for (std::size_t q = 0; q < d.nq(); ++q)
        allowed.push_back(MakeAllowed(d, labels, spec, q, o.seed));
      for (const auto& a : allowed) ptrs.push_back(&a);
    }
    fmt::print(stderr, "[{}] {}: exact filtered top-{} (cached)\n", d.name, spec.Name(), o.hnsw.k);
    const auto truth = ExactTopK(d, ptrs, o.hnsw.k, o.threads, o.work,
                                 fmt::format("{}-seed{}", spec.Name(), o.seed));
    CaseView view{&d, spec, &allowed};
    std::vector<Point> swept = RunCase(view, truth, variants, o.sweep);
    if (o.interleave > 0) {
      fmt::print(
          "\n#### {} {}: {} interleaved rounds at recall >= 0.95\n\n{}\n", d.name, spec.Name(),
          o.interleave,
          InterleavedTable(RunInterleaved(view, variants, swept, 0.95, o.interleave, o.sweep),
                           "hnswlib (unfiltered)"));
    }
    for (Point& p : swept) points.push_back(std::move(p));
  }
  return points;
}

// --fit: engram's planner over the grid of PlannerConstants on one dataset
// (fit.h); prints the grid and the constants chosen.
std::string RunFit(const Options& o, const std::string& name) {
  const Dataset d = Load(o, name);
  EngramSystem engram(d, o.hnsw, o.value_graph_min, o.cover_slack);
  const BuildInfo built = engram.Build(o.threads);
  fmt::print(stderr, "[{}] built engram in {:.2f} s\n", name, built.seconds);
  std::vector<Variant> variants;
  for (const vector::PlannerConstants& c : o.fit.Pairs()) {
    variants.push_back(engram.Planner(FitGrid::Label(c), c));
  }
  const std::vector<Point> points = RunFilters(o, d, variants);
  return FitReport(d, o.seed, o.fit, points, o.recall);
}

std::string RunDataset(const Options& o, const std::string& name, AimTally* tally, JsonOut& json) {
  auto t0 = Clock::now();
  fmt::print(stderr, "[{}] loading\n", name);
  const Dataset d = Load(o, name);
  fmt::print(stderr, "[{}] {} vectors x {}, {} queries, {} labels\n", name, d.n(), d.dim, d.nq(),
             d.num_labels);
  const bool with_engram = Has(o.systems, "engram");
  std::vector<BuildInfo> builds;
  std::vector<Variant> variants;
  EngramSystem engram(d, o.hnsw, o.value_graph_min, o.cover_slack);
  FaissPeers faiss(d, o.hnsw);
  HnswlibPeer hnswlib(d, o.hnsw);
  auto report = [&](const BuildInfo& b) {
    fmt::print(stderr, "[{}] built {} in {:.2f} s ({:.0f} bytes/vector)\n", name, b.system,
               b.seconds, b.bytes_per_vector);
    builds.push_back(b);
  };
  if (with_engram) {
    report(engram.Build(o.threads));
    for (Variant& v : engram.Variants()) {
      if (o.modes.empty() || Has(o.modes, v.mode)) variants.push_back(std::move(v));
    }
  }
  if (Has(o.systems, "faiss")) {
    report(faiss.BuildHnsw(o.threads));
    report(faiss.BuildFlat());
    for (Variant& v : faiss.Variants()) variants.push_back(std::move(v));
  }
  if (Has(o.systems, "hnswlib")) {
    report(hnswlib.Build(o.threads));
    for (Variant& v : hnswlib.Variants()) variants.push_back(std::move(v));
  }

  std::vector<Point> points = RunFilters(o, d, variants);
  WriteCsv(fmt::format("{}/{}.csv", o.out, d.name), points);
  WritePlotData(o.out + "/plot", d, points);
  std::string md = Summary(d, builds, points, o.recall, with_engram, tally);
  WriteJsonRows(d, builds, points, o.recall, json);
  fmt::print(stderr, "[{}] done in {:.0f} s\n", name,
             std::chrono::duration<double>(Clock::now() - t0).count());
  return md;
}

Options ParseArgs(int argc, char** argv) {
  Options o;
  for (ArgReader args(argc, argv); args.Next();) {
    if (args.Is("--datasets")) {
      o.datasets = args.List();
    } else if (args.Is("--data")) {
      o.data = args.Value();
    } else if (args.Is("--work")) {
      o.work = args.Value();
    } else if (args.Is("--out")) {
      o.out = args.Value();
    } else if (args.Is("--queries")) {
      o.queries = std::stoul(args.Value());
    } else if (args.Is("--queries-1m")) {
      o.queries_1m = std::stoul(args.Value());
    } else if (args.Is("--efs")) {
      o.hnsw.efs.clear();
      for (const std::string& e : args.List()) o.hnsw.efs.push_back(std::stoul(e));
    } else if (args.Is("--m")) {
      o.hnsw.m = std::stoul(args.Value());
    } else if (args.Is("--ef-construction")) {
      o.hnsw.ef_construction = std::stoul(args.Value());
    } else if (args.Is("--threads")) {
      o.threads = std::stoul(args.Value());
    } else if (args.Is("--seed")) {
      o.seed = std::stoull(args.Value());
    } else if (args.Is("--min-seconds")) {
      o.sweep.min_seconds = std::stod(args.Value());
    } else if (args.Is("--max-ms-per-query")) {
      o.sweep.max_ms_per_query = std::stod(args.Value());
    } else if (args.Is("--clock")) {
      const std::string c = args.Value();
      if (c != "cpu" && c != "wall") throw std::runtime_error("--clock cpu|wall");
      o.sweep.cpu_clock = c == "cpu";
    } else if (args.Is("--systems")) {
      o.systems = args.List();
    } else if (args.Is("--json-out")) {
      o.json_out = args.Value();
    } else if (args.Is("--filters")) {
      o.filters = args.List();
    } else if (args.Is("--value-graphs")) {
      o.value_graph_min = std::stoul(args.Value());
    } else if (args.Is("--cover-slack")) {
      o.cover_slack = std::stod(args.Value());
    } else if (args.Is("--sq8")) {
      o.hnsw.quantize = true;
    } else if (args.Is("--modes")) {
      o.modes = args.List();
    } else if (args.Is("--interleave")) {
      o.interleave = std::stoul(args.Value());
    } else if (args.Is("--fit")) {
      o.fitting = true;
    } else if (args.Is("--fit-walk-costs")) {
      o.fit.walk_costs.clear();
      for (const std::string& e : args.List()) o.fit.walk_costs.push_back(std::stod(e));
    } else if (args.Is("--fit-efs")) {
      o.fit.efs.clear();
      for (const std::string& e : args.List()) o.fit.efs.push_back(std::stoul(e));
    } else {
      args.Unknown("see the usage in vector_benchmark.cc");
    }
  }
  std::vector<FilterSpec> all = StandardFilters();
  for (const FilterSpec& f : MixedFilters()) all.push_back(f);
  for (const std::string& name : o.filters) {
    if (std::none_of(all.begin(), all.end(),
                     [&](const FilterSpec& f) { return f.Name() == name; })) {
      throw std::runtime_error("--filters: no filter " + name + " (names as 100%-none, 50%-anti)");
    }
  }
  if (o.fitting && o.datasets.size() != 1) {
    throw std::runtime_error("--fit fits on one dataset: give --datasets NAME");
  }
  if (o.out.empty())
    o.out = (std::filesystem::path(o.work).parent_path() / "vector-results").string();
  return o;
}

}  // namespace
}  // namespace engram::bench

int main(int argc, char** argv) {
  using namespace engram::bench;
  return RunGuarded("vector_benchmark", [&] {
    const Options o = ParseArgs(argc, argv);
    if (o.fitting) {
      fmt::print("{}", RunFit(o, o.datasets.front()));
      return;
    }
    JsonOut json(o.json_out);
    std::string md = fmt::format(
        "# engram vector benchmark\n\nrecall@{} against the exact filtered top-{}; queries on one "
        "thread; builds on {} threads; HNSW M {} and efConstruction {} for every graph; ef sweep "
        "{}; seed {}; engram distance kernels: {}; QPS from {}\n",
        o.hnsw.k, o.hnsw.k, o.threads, o.hnsw.m, o.hnsw.ef_construction,
        fmt::format("{}", fmt::join(o.hnsw.efs, ",")), o.seed, EngramSystem::Kernel(),
        o.sweep.cpu_clock ? "the query thread's CPU time (--clock cpu)"
                          : "wall time (--clock wall)");
    fmt::print("{}", md);
    std::fflush(stdout);
    AimTally tally;
    for (const std::string& name : o.datasets) {
      std::string section = RunDataset(o, name, &tally, json);
      fmt::print("{}", section);
      std::fflush(stdout);
      md += section;
      std::filesystem::create_directories(o.out);
      std::ofstream(fmt::format("{}/{}.md", o.out, name), std::ios::trunc) << section;
    }
    if (tally.cases > 0) {
      std::string aims = fmt::format(
          "\nAims over these datasets: recall >= {} reached in {} of {} cases; speed aim met in "
          "{} of {}; build no slower than FAISS on {} of {} datasets.\n",
          o.recall, tally.recall_met, tally.cases, tally.speed_met, tally.speed_cases,
          tally.build_met, tally.build_cases);
      fmt::print("{}", aims);
    }
  });
}
