// The process crash_test.cc kills: it opens an engine on a store directory
// and writes batches forever, printing a line to stdout after each write is
// acknowledged ("acked B", "deleted B", "checkpoint"). Batch B upserts
// kRecords records "bB-i" and the record "counter" with level B in one
// durable write, so the counter names the last batch that is wholly there.
// Every fifth batch is followed by a delete of batch B-3 and a checkpoint.
//   crash_writer DIR SEED
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "engram/engine.h"
#include "tests/integration/crash_records.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: crash_writer DIR SEED\n");
    return 2;
  }
  using namespace engram;
  StatusOr<std::unique_ptr<Engine>> opened = Engine::Open(argv[1]);
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
  // Continue after the last batch that is there.
  long batch = crash::CounterLevel(engine) + 1;
  std::mt19937 rng(static_cast<unsigned>(std::stoul(argv[2])));
  for (;; ++batch) {
    std::vector<std::string> records = crash::Batch(batch);
    std::vector<std::string_view> views(records.begin(), records.end());
    StatusOr<WriteResult> r = engine.Upsert(crash::kCollection, views);
    if (!r.ok() || r->rejected) {
      std::fprintf(stderr, "upsert %ld failed\n", batch);
      return 3;
    }
    std::printf("acked %ld\n", batch);
    std::fflush(stdout);
    if (batch % 5 == 0 && batch > 3) {
      std::vector<std::string> ids = crash::BatchIds(batch - 3);
      if (!engine.Delete(crash::kCollection, ids).ok()) return 3;
      std::printf("deleted %ld\n", batch - 3);
      std::fflush(stdout);
      if (rng() % 2 == 0) {
        if (!engine.Checkpoint(crash::kCollection).ok()) return 3;
        std::printf("checkpoint\n");
        std::fflush(stdout);
      }
    }
  }
}
