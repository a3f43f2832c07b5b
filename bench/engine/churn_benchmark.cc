// Store/forget churn (issue 18, "slots reclaimed"): an agent's memory under
// months of storing and forgetting. A collection of memories with text,
// metadata and D-dimensional vectors is filled to a live set of L records;
// then store/forget operations (a batch of new memories, then a batch of
// the oldest forgotten) keep it at L until N operations ran. Every
// `--every` operations it samples the process's RSS, the store directory's
// size, the live count, recall@10 of vector search against an exact scan of
// the live set, and search latency (p50 over a few queries, thread CPU).
// At the end the same live set is written into a fresh store by a second
// process (`--fresh LIST`), checkpointed and closed, and measured the same
// way: the churned store must stay within 1.2x of it.
//
// Records are generated from their number (seeded): memory i has a sentence
// from a 2,000-word vocabulary, a session and an importance, and a vector
// from a Gaussian mixture of 64 clusters. Synthetic: stated in RESULTS.md.
//
//   churn_benchmark --work DIR [--live L] [--ops N] [--dim D] [--batch B]
//                   [--every E] [--seed S] [--csv FILE]
//   churn_benchmark --work DIR --fresh LIST [--dim D] [--seed S]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <fmt/core.h>
#include <time.h>

#include "common/cli.h"
#include "common/must.h"
#include "engram/engine.h"

namespace engram::bench {
namespace {

namespace fs = std::filesystem;

constexpr const char* kCollection = "memories";
constexpr const char* kSchema = R"({"fields":[
  {"name":"session","type":"string","default":""},
  {"name":"importance","type":"float","default":0.5},
  {"name":"step","type":"int","default":0}]})";

struct Options {
  std::string work;
  std::size_t live = 50000;
  std::size_t ops = 1000000;
  std::size_t dim = 384;
  std::size_t batch = 100;
  std::size_t every = 100000;
  std::uint64_t seed = 7;
  std::string csv;
  std::string fresh;  // a list of record numbers: build the fresh store only
};

// The generator of memory i: its text, metadata and vector, reproducible.
class Memories {
 public:
  Memories(std::size_t dim, std::uint64_t seed) : dim_(dim) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> g;
    centers_.resize(kClusters * dim);
    for (float& x : centers_) x = g(rng);
    for (int w = 0; w < kWords; ++w) {
      std::string word;
      const int n = 3 + static_cast<int>(rng() % 6);
      for (int k = 0; k < n; ++k) word += static_cast<char>('a' + rng() % 26);
      words_.push_back(word);
    }
  }

  std::vector<float> Vector(std::uint64_t i) const {
    std::mt19937_64 rng(i * 0x9E3779B97F4A7C15ull + 1);
    std::normal_distribution<float> g(0, 0.35f);
    const std::size_t c = rng() % kClusters;
    std::vector<float> v(dim_);
    for (std::size_t d = 0; d < dim_; ++d) v[d] = centers_[c * dim_ + d] + g(rng);
    return v;
  }

  std::string Record(std::uint64_t i) const {
    std::mt19937_64 rng(i * 0xBF58476D1CE4E5B9ull + 7);
    std::string text;
    for (int k = 0; k < 12; ++k) {
      // Zipf-like: a few frequent words and a long tail.
      const double u = std::uniform_real_distribution<double>(0, 1)(rng);
      const auto w = static_cast<std::size_t>(std::pow(u, 3.0) * kWords);
      text += (k ? " " : "") + words_[std::min<std::size_t>(w, kWords - 1)];
    }
    std::string vec;
    for (const float x : Vector(i)) vec += (vec.empty() ? "" : ",") + fmt::format("{:.5f}", x);
    return fmt::format(
        R"({{"id":"m{}","text":"{}","session":"s{}","importance":{:.3f},"step":{},"vector":[{}]}})",
        i, text, i / 50, static_cast<double>(rng() % 1000) / 1000.0, i, vec);
  }

 private:
  static constexpr int kClusters = 64;
  static constexpr int kWords = 2000;
  std::size_t dim_;
  std::vector<float> centers_;
  std::vector<std::string> words_;
};

std::uint64_t RssBytes() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stoull(line.substr(6)) * 1024;
  }
  return 0;
}

std::uint64_t DirBytes(const std::string& dir) {
  std::uint64_t n = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) n += e.file_size();
  }
  return n;
}

double ThreadCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

std::unique_ptr<Engine> OpenFresh(const std::string& dir, std::size_t dim) {
  fs::remove_all(dir);
  std::unique_ptr<Engine> e = Must(Engine::Open(dir), "open " + dir);
  const SchemaRef schema = SchemaRef::Parse(kSchema).value();
  const CollectionSpec spec{kCollection, schema, {{"text", 1.0}}, dim, "cosine", "en", ""};
  if (Status s = e->CreateCollection(spec); !s.ok()) throw std::runtime_error(s.message());
  return e;
}

void Write(Engine& e, const Memories& m, const std::vector<std::uint64_t>& numbers) {
  std::vector<std::string> records;
  for (const std::uint64_t i : numbers) records.push_back(m.Record(i));
  std::vector<std::string_view> views(records.begin(), records.end());
  StatusOr<WriteResult> r = e.Upsert(kCollection, views);
  if (!r.ok()) throw std::runtime_error("upsert: " + r.status().message());
  if (r->rejected) throw std::runtime_error("upsert rejected: " + r->rejected->message);
}

struct Sample {
  std::size_t ops = 0, live = 0;
  std::uint64_t rss = 0, store = 0;
  double recall = 0, p50_ms = 0;
};

// Recall@10 of vector search against an exact scan of `live`, and p50 of
// the search's thread CPU time, over `queries` queries.
Sample Measure(const Engine& e, const Memories& m, const std::deque<std::uint64_t>& live,
               std::size_t queries, std::uint64_t seed, const std::string& dir) {
  Sample s;
  s.live = live.size();
  s.rss = RssBytes();
  s.store = DirBytes(dir);
  std::mt19937_64 rng(seed);
  std::vector<double> times;
  double found = 0, wanted = 0;
  for (std::size_t q = 0; q < queries; ++q) {
    const std::vector<float> query = m.Vector(rng() % 10000000 + 100000000);
    std::vector<std::pair<float, std::uint64_t>> exact;
    for (const std::uint64_t i : live) {
      const std::vector<float> v = m.Vector(i);
      float dot = 0, nq = 0, nv = 0;
      for (std::size_t d = 0; d < v.size(); ++d) {
        dot += v[d] * query[d];
        nq += query[d] * query[d];
        nv += v[d] * v[d];
      }
      exact.emplace_back(-dot / std::sqrt(nq * nv), i);
    }
    std::partial_sort(exact.begin(), exact.begin() + 10, exact.end());
    SearchRequest r;
    r.vector = query;
    r.k = 10;
    const double t0 = ThreadCpuSeconds();
    const SearchResponse hits = Must(e.Search(kCollection, r), "search");
    times.push_back(ThreadCpuSeconds() - t0);
    for (int k = 0; k < 10; ++k) {
      const std::string want = "m" + std::to_string(exact[k].second);
      wanted += 1;
      found += std::any_of(hits.hits.begin(), hits.hits.end(),
                           [&](const SearchHit& h) { return h.id == want; });
    }
  }
  std::sort(times.begin(), times.end());
  s.recall = found / wanted;
  s.p50_ms = times[times.size() / 2] * 1e3;
  return s;
}

void Churn(const Options& o) {
  const Memories m(o.dim, o.seed);
  const std::string dir = o.work + "/churn";
  std::unique_ptr<Engine> e = OpenFresh(dir, o.dim);
  std::deque<std::uint64_t> live;
  std::uint64_t next = 0;
  while (live.size() < o.live) {
    std::vector<std::uint64_t> batch;
    for (std::size_t k = 0; k < o.batch && live.size() < o.live; ++k) {
      batch.push_back(next);
      live.push_back(next++);
    }
    Write(*e, m, batch);
  }
  std::ofstream csv(o.csv.empty() ? o.work + "/churn.csv" : o.csv);
  csv << "ops,live,rss_mib,store_mib,recall10,p50_ms\n";
  auto report = [&](std::size_t ops) {
    Sample s = Measure(*e, m, live, 20, o.seed + ops, dir);
    s.ops = ops;
    csv << fmt::format("{},{},{:.1f},{:.1f},{:.4f},{:.3f}\n", s.ops, s.live, s.rss / 1048576.0,
                       s.store / 1048576.0, s.recall, s.p50_ms);
    csv.flush();
    std::cerr << fmt::format(
        "ops {:>8}: live {}, RSS {:.1f} MiB, store {:.1f} MiB, recall@10 {:.3f}, p50 {:.2f} ms\n",
        s.ops, s.live, s.rss / 1048576.0, s.store / 1048576.0, s.recall, s.p50_ms);
    return s;
  };
  const Sample first = report(0);
  const auto start = std::chrono::steady_clock::now();
  std::size_t ops = 0;
  Sample last = first;
  while (ops < o.ops) {
    std::vector<std::uint64_t> stored;
    for (std::size_t k = 0; k < o.batch; ++k) {
      stored.push_back(next);
      live.push_back(next++);
    }
    Write(*e, m, stored);
    std::vector<std::string> forgotten;
    for (std::size_t k = 0; k < o.batch; ++k) {
      forgotten.push_back("m" + std::to_string(live.front()));
      live.pop_front();
    }
    const StatusOr<WriteResult> d = e->Delete(kCollection, forgotten);
    if (!d.ok()) throw std::runtime_error("delete: " + d.status().message());
    const std::size_t before = ops;
    ops += 2 * o.batch;
    if (before / o.every != ops / o.every) last = report(ops);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // Let the background link what is staged, checkpoint, then measure.
  std::this_thread::sleep_for(std::chrono::seconds(2));
  if (Status s = e->Checkpoint(kCollection); !s.ok()) throw std::runtime_error(s.message());
  const Sample settled = report(ops);
  std::ofstream list(o.work + "/live.txt");
  for (const std::uint64_t i : live) list << i << '\n';
  std::cout << fmt::format(
      "churn: {} store/forget operations (batches of {}) at {} live memories, {}-d vectors, in "
      "{:.0f} s ({:.0f} ops/s)\n",
      ops, o.batch, o.live, o.dim, seconds, ops / seconds);
  std::cout << fmt::format(
      "CHURNED rss_mib={:.1f} store_mib={:.1f} recall10={:.4f} p50_ms={:.3f} "
      "first_recall10={:.4f} first_p50_ms={:.3f}\n",
      settled.rss / 1048576.0, settled.store / 1048576.0, settled.recall, settled.p50_ms,
      first.recall, first.p50_ms);
}

void Fresh(const Options& o) {
  const Memories m(o.dim, o.seed);
  std::ifstream in(o.fresh);
  std::deque<std::uint64_t> live;
  for (std::uint64_t i; in >> i;) live.push_back(i);
  const std::string dir = o.work + "/fresh";
  std::unique_ptr<Engine> e = OpenFresh(dir, o.dim);
  std::vector<std::uint64_t> batch;
  for (const std::uint64_t i : live) {
    batch.push_back(i);
    if (batch.size() < 1000) continue;
    Write(*e, m, batch);
    batch.clear();
  }
  if (!batch.empty()) Write(*e, m, batch);
  std::this_thread::sleep_for(std::chrono::seconds(2));
  if (Status s = e->Checkpoint(kCollection); !s.ok()) throw std::runtime_error(s.message());
  const Sample s = Measure(*e, m, live, 20, o.seed, dir);
  std::cout << fmt::format("FRESH rss_mib={:.1f} store_mib={:.1f} recall10={:.4f} p50_ms={:.3f}\n",
                           s.rss / 1048576.0, s.store / 1048576.0, s.recall, s.p50_ms);
}

}  // namespace
}  // namespace engram::bench

int main(int argc, char** argv) {
  using namespace engram::bench;
  return RunGuarded("churn_benchmark", [&] {
    Options o;
    for (ArgReader args(argc, argv); args.Next();) {
      if (args.Is("--work"))
        o.work = args.Value();
      else if (args.Is("--live"))
        o.live = std::stoul(args.Value());
      else if (args.Is("--ops"))
        o.ops = std::stoul(args.Value());
      else if (args.Is("--dim"))
        o.dim = std::stoul(args.Value());
      else if (args.Is("--batch"))
        o.batch = std::stoul(args.Value());
      else if (args.Is("--every"))
        o.every = std::stoul(args.Value());
      else if (args.Is("--seed"))
        o.seed = std::stoull(args.Value());
      else if (args.Is("--csv"))
        o.csv = args.Value();
      else if (args.Is("--fresh"))
        o.fresh = args.Value();
      else
        args.Unknown("see the usage in bench/engine/churn_benchmark.cc");
    }
    if (o.work.empty()) throw std::runtime_error("--work DIR is required");
    fs::create_directories(o.work);
    if (!o.fresh.empty()) {
      Fresh(o);
    } else {
      Churn(o);
    }
  });
}
