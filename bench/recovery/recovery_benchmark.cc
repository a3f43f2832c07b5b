// Checkpoints and recovery at scale (issue 18, part 3), through the public
// engine API plus the store interface (to count what a checkpoint left
// behind):
//
//  1. build: a store of --records synthetic memories (memories.h; text and
//     metadata, 384-d vectors with --dim 384) ingested in batches, then
//     checkpointed and closed; kept under --work and reused by later runs;
//  2. a clean reopen (Engine::Open, the snapshots loaded);
//  3. checkpoints under a write load, on a copy of the built store: a
//     writer thread upserts batches (--new-share new records, default all,
//     the rest replacing existing ones) while the main thread calls
//     Engine::Checkpoint --checkpoints times; the checkpoint durations, and
//     the writer's batch latencies during them against the rest (writers
//     wait while the capture serialises under the shared lock and while the
//     store writes the snapshots);
//  4. kill -9, --kills times: a child process opens a fresh copy of the
//     built store with the engine's background checkpoints
//     (--checkpoint-records, --checkpoint-interval-ms) and writes the same
//     load until SIGKILL at a random moment (uniform in [--kill-min,
//     --kill-max] seconds of load); then Engine::Open: its seconds and the
//     records it replayed, against the records the store holds that are
//     newer than its snapshots (what was written since the last checkpoint).
//
// Markdown tables on stdout, progress on stderr.
//   recovery_benchmark [--work DIR] [--records N] [--dim D] [--seed S]
//       [--batch N] [--new-share F] [--checkpoints N] [--kills N]
//       [--kill-min S] [--kill-max S] [--checkpoint-records N]
//       [--checkpoint-interval-ms N] [--threads N] [--keep-killed]
//   recovery_benchmark --reopen STORE_DIR   (times Engine::Open alone and
//       exits without closing, so the store stays as it was: for profiling)
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <iostream>
#include <limits>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <fmt/core.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cli.h"
#include "common/format.h"
#include "common/measure.h"
#include "common/memories.h"
#include "common/must.h"
#include "engram/engine.h"
#include "storage/store.h"
#include "store_build.h"

namespace engram::bench {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// A copy of the built store in WORK/run, for a phase that writes: every
// phase starts from the same --records.
std::string Copy(const Options& o, const std::string& built) {
  const std::string run = o.work + "/run";
  fs::remove_all(run);
  fs::copy(built, run, fs::copy_options::recursive);
  return run;
}

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const auto rank = static_cast<std::size_t>(std::ceil(p * static_cast<double>(v.size())));
  return v[std::clamp<std::size_t>(rank, 1, v.size()) - 1];
}

// Times Engine::Open of the store in `dir`; the engine closes without a
// checkpoint when `keep` (the store stays as it was, for another look).
void Reopen(const Options& o, const std::string& dir, const std::string& what, bool keep) {
  const double cpu = CpuSeconds();
  auto e = OpenStore(dir, o, false);
  const Engine::RecoveryReport& r = e->recovery();
  std::cout << fmt::format(
      "`Engine::Open` {}: {:.2f} s ({:.2f} CPU s), {} records read ({} from the records image), "
      "{} replayed, {} indexes rebuilt; load {}\n\n",
      what, r.seconds, CpuSeconds() - cpu, Thousands(static_cast<double>(r.records)),
      Thousands(static_cast<double>(r.imaged)), r.replayed, r.rebuilt, LoadAvg());
  if (keep) {
    std::cout.flush();
    _exit(0);  // no destructor: nothing is checkpointed
  }
}

void CheckpointsUnderLoad(const Options& o, const Memories& m, const std::string& built) {
  auto e = OpenStore(Copy(o, built), o, false);
  const std::uint64_t records = Must(e->DescribeCollection(kCollection), "describe").records;
  struct Batch {
    double start, end;  // seconds since t0
  };
  std::vector<Batch> batches;
  std::atomic<bool> stop{false};
  const auto t0 = Clock::now();
  std::thread writer([&] {
    Load load(o, m, records, o.seed + 1);
    while (!stop.load()) {
      std::vector<std::string> batch = load.Next();
      const double start = SecondsSince(t0);
      Must(Upsert(*e, batch), "upsert");
      batches.push_back({start, SecondsSince(t0)});
    }
  });
  std::vector<std::pair<double, double>> checkpoints;  // start, end
  for (int c = 0; c < o.checkpoints; ++c) {
    std::this_thread::sleep_for(std::chrono::seconds(3));
    const double start = SecondsSince(t0);
    Must(e->Checkpoint(kCollection), "checkpoint");
    checkpoints.push_back({start, SecondsSince(t0)});
    std::cerr << "checkpoint " << c << ": " << checkpoints.back().second - start << " s\n";
  }
  std::this_thread::sleep_for(std::chrono::seconds(3));
  stop = true;
  writer.join();
  std::vector<double> quiet, during, seconds;
  for (const auto& [start, end] : checkpoints) seconds.push_back(end - start);
  for (const Batch& b : batches) {
    const bool overlaps = std::any_of(checkpoints.begin(), checkpoints.end(), [&](const auto& c) {
      return b.start < c.second && b.end > c.first;
    });
    (overlaps ? during : quiet).push_back((b.end - b.start) * 1000);
  }
  std::cout << fmt::format(
      "## Checkpoints under a write load\n\n{} checkpoints of the collection ({} records) while "
      "a writer upserts batches of {} ({:.0f} % new); load {}\n\n"
      "| | count | p50 ms | p99 ms | max ms |\n|---|---:|---:|---:|---:|\n"
      "| checkpoint (`Engine::Checkpoint`) | {} | {:.0f} | {:.0f} | {:.0f} |\n"
      "| writer batch, no checkpoint running | {} | {:.1f} | {:.1f} | {:.1f} |\n"
      "| writer batch overlapping a checkpoint | {} | {:.1f} | {:.1f} | {:.1f} |\n\n",
      checkpoints.size(), Thousands(static_cast<double>(records)), o.batch, o.new_share * 100,
      LoadAvg(), seconds.size(), Percentile(seconds, 0.5) * 1000, Percentile(seconds, 0.99) * 1000,
      Percentile(seconds, 1) * 1000, quiet.size(), Percentile(quiet, 0.5), Percentile(quiet, 0.99),
      Percentile(quiet, 1), during.size(), Percentile(during, 0.5), Percentile(during, 0.99),
      Percentile(during, 1));
}

// The child: opens the store with background checkpoints and writes until
// killed, telling the parent on `fd` when it has opened ("open SECONDS").
[[noreturn]] void WriteUntilKilled(const Options& o, const Memories& m, const std::string& dir,
                                   std::uint64_t seed, int fd) {
  try {
    auto e = OpenStore(dir, o, true);
    const std::string line = fmt::format("open {:.3f}\n", e->recovery().seconds);
    if (write(fd, line.data(), line.size()) < 0) _exit(4);
    const std::uint64_t records = Must(e->DescribeCollection(kCollection), "describe").records;
    Load load(o, m, records, seed);
    for (;;) Must(Upsert(*e, load.Next()), "upsert");
  } catch (const std::exception& error) {
    std::cerr << "writer: " << error.what() << "\n";
  }
  _exit(3);
}

// Records in the store newer than the older of its snapshots: what the last
// checkpoint did not cover.
std::uint64_t SinceCheckpoint(const std::string& dir) {
  auto store = Must(storage::OpenSqliteStore(dir), "open the store");
  std::uint64_t seq = std::numeric_limits<std::uint64_t>::max();
  for (const char* name : {"text", "vector"}) {
    auto s = Must(store->GetSnapshot(kCollection, name), "snapshot");
    if (s) seq = std::min(seq, s->seq);
  }
  if (seq == std::numeric_limits<std::uint64_t>::max()) seq = 0;
  std::uint64_t n = 0;
  Must(store->ScanRecords(kCollection, std::numeric_limits<std::uint64_t>::max(),
                          [&](const storage::RecordRow& r) {
                            n += r.seq > seq;
                            return Status::Ok();
                          }),
       "scan");
  return n;
}

void Kills(const Options& o, const Memories& m, const std::string& built) {
  std::mt19937_64 rng(o.seed * 7919);
  std::uniform_real_distribution<double> moment(o.kill_min, o.kill_max);
  std::cout << fmt::format(
      "## Reopen after kill -9\n\nA child process writes batches of {} ({:.0f} % new) with "
      "background checkpoints every {} records or {} ms until SIGKILL; then `Engine::Open`.\n\n"
      "| kill | load s | child open s | records written | since last checkpoint | replayed | "
      "rebuilt | reopen s | reopen CPU s | load avg |\n"
      "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n",
      o.batch, o.new_share * 100, Thousands(static_cast<double>(o.checkpoint_records)),
      o.checkpoint_interval_ms);
  std::vector<double> reopen;
  for (int k = 0; k < o.kills; ++k) {
    const double after = moment(rng);
    const std::string dir = Copy(o, built);
    int fds[2];
    if (pipe(fds) != 0) throw std::runtime_error("pipe");
    std::fflush(stdout);
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("fork");
    if (pid == 0) {
      close(fds[0]);
      WriteUntilKilled(o, m, dir, rng(), fds[1]);
    }
    close(fds[1]);
    char buffer[64] = {};
    const ssize_t got = read(fds[0], buffer, sizeof(buffer) - 1);
    close(fds[0]);
    double child_open = 0;
    if (got <= 0 || std::sscanf(buffer, "open %lf", &child_open) != 1) {
      throw std::runtime_error("the writer did not open the store");
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(after));
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFSIGNALED(status)) throw std::runtime_error("the writer stopped by itself");
    if (o.keep_killed) {
      const std::string copy = fmt::format("{}/killed-{}", o.work, k + 1);
      fs::remove_all(copy);
      fs::copy(dir, copy, fs::copy_options::recursive);
    }

    const double cpu = CpuSeconds();
    auto e = OpenStore(dir, o, false);
    const double cpu_used = CpuSeconds() - cpu;
    const Engine::RecoveryReport r = e->recovery();
    const std::uint64_t since = SinceCheckpoint(dir);
    reopen.push_back(r.seconds);
    std::cout << fmt::format(
        "| {} | {:.1f} | {:.2f} | {} | {} | {} | {} | {:.2f} | {:.2f} | {} |\n", k + 1, after,
        child_open, Thousands(static_cast<double>(r.records - o.records)),
        Thousands(static_cast<double>(since)), Thousands(static_cast<double>(r.replayed)),
        r.rebuilt, r.seconds, cpu_used, LoadAvg());
    std::cout.flush();
    e.reset();
    fs::remove_all(dir);
  }
  std::cout << fmt::format("\nReopen seconds: median {:.2f}, max {:.2f}.\n\n",
                           Percentile(reopen, 0.5), Percentile(reopen, 1));
}

void Run(const Options& o) {
  const Memories m(o.seed, o.dim);
  const std::string dir = fmt::format("{}/store-{}-{}-{}", o.work, o.records, o.dim, o.seed);
  fs::create_directories(o.work);
  Build(o, m, dir);
  std::cout << "## Clean reopen\n\n";
  Reopen(o, dir, "after a clean close", false);
  if (o.checkpoints > 0) CheckpointsUnderLoad(o, m, dir);
  if (o.kills > 0) Kills(o, m, dir);
}

}  // namespace
}  // namespace engram::bench

int main(int argc, char** argv) {
  using namespace engram::bench;
  return RunGuarded("recovery_benchmark", [&] {
    Options o;
    for (ArgReader args(argc, argv); args.Next();) {
      if (args.Is("--work"))
        o.work = args.Value();
      else if (args.Is("--records"))
        o.records = std::stoull(args.Value());
      else if (args.Is("--dim"))
        o.dim = std::stoul(args.Value());
      else if (args.Is("--seed"))
        o.seed = std::stoull(args.Value());
      else if (args.Is("--batch"))
        o.batch = std::stoul(args.Value());
      else if (args.Is("--new-share"))
        o.new_share = std::stod(args.Value());
      else if (args.Is("--checkpoints"))
        o.checkpoints = std::stoi(args.Value());
      else if (args.Is("--kills"))
        o.kills = std::stoi(args.Value());
      else if (args.Is("--kill-min"))
        o.kill_min = std::stod(args.Value());
      else if (args.Is("--kill-max"))
        o.kill_max = std::stod(args.Value());
      else if (args.Is("--checkpoint-records"))
        o.checkpoint_records = std::stoull(args.Value());
      else if (args.Is("--checkpoint-interval-ms"))
        o.checkpoint_interval_ms = std::stoull(args.Value());
      else if (args.Is("--threads"))
        o.threads = std::stoul(args.Value());
      else if (args.Is("--keep-killed"))
        o.keep_killed = true;
      else if (args.Is("--reopen"))
        o.reopen = args.Value();
      else
        args.Unknown("see the usage in bench/recovery/recovery_benchmark.cc");
    }
    if (o.records == 0 || o.batch == 0 || o.kill_max < o.kill_min) {
      throw std::runtime_error("--records and --batch must be positive, --kill-max >= --kill-min");
    }
    if (!o.reopen.empty()) {
      Reopen(o, o.reopen, "of " + o.reopen, true);
    }
    Run(o);
  });
}
