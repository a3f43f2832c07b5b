// The process crash_test.cc kills: it opens an engine on a store directory
// and writes batches forever, printing a line to stdout after each write is
// acknowledged ("acked B", "deleted B", "checkpoint B"). Batch B upserts
// kRecords records "bB-i" and the record "counter" with level B in one
// durable write, so the counter names the last batch that is wholly there.
// Every fifth batch is followed by a delete of batch B-3 and, one time in
// four, a checkpoint. The engine also checkpoints in the background, with
// thresholds small enough to do so many times in a run.
//   crash_writer DIR SEED
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "engram/engine.h"
#include "tests/integration/crash_records.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: crash_writer DIR SEED\n");
    return 2;
  }
  using namespace engram;
  Engine::Options options;
  options.checkpoint_records = crash::kCheckpointRecords;
  options.checkpoint_interval_ms = crash::kCheckpointIntervalMs;
  StatusOr<std::unique_ptr<Engine>> opened = Engine::Open(argv[1], options);
  if (!opened.ok()) {
    std::fprintf(stderr, "open: %s\n", opened.status().message().c_str());
    return 3;
  }
  Engine& engine = **opened;
  if (!engine.DescribeCollection(crash::kCollection).ok()) {
    Status s = engine.CreateCollection(crash::Spec());
    if (!s.ok()) {
      std::fprintf(stderr, "create: %s\n", s.message().c_str());
      return 3;
    }
  }
  std::printf("created 0\n");
  std::fflush(stdout);
  // Continue after the last batch that is there.
  long batch = crash::CounterLevel(engine) + 1;
  std::mt19937 rng(static_cast<unsigned>(std::stoul(argv[2])));
  for (;; ++batch) {
    Status s = crash::WriteStep(engine, batch, rng() % 4 == 0, [](std::string_view what, long b) {
      std::printf("%.*s %ld\n", static_cast<int>(what.size()), what.data(), b);
      std::fflush(stdout);
    });
    if (!s.ok()) {
      std::fprintf(stderr, "batch %ld: %s\n", batch, s.message().c_str());
      return 3;
    }
    // Now and then a pause, as between an agent's turns: the background
    // links and checkpoints in the pauses of a collection's writes.
    if (rng() % 3 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 80));
  }
}
