// Kills a real writing process (crash_writer) with SIGKILL at random moments,
// many times over one store, and after each kill checks SEARCH.md §1's
// promise: every acknowledged write is there, no batch is there in part, and
// the text, vector and metadata indexes agree with the stored records.
// ENGRAM_CRASH_KILLS sets the number of kills (default 8; the issue asks for
// a run of at least 200 once).
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <string>

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engram/engine.h"
#include "tests/integration/crash_records.h"

namespace engram {
namespace {

namespace fs = std::filesystem;

int Kills() {
  const char* env = std::getenv("ENGRAM_CRASH_KILLS");
  return env ? std::atoi(env) : 8;
}

// Runs the writer for `ms` milliseconds, then SIGKILLs it. Its stdout goes to `log`.
void RunAndKill(const fs::path& dir, const fs::path& log, unsigned seed, int ms) {
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    FILE* out = std::freopen(log.c_str(), "w", stdout);
    if (out == nullptr) _exit(9);
    const std::string seed_text = std::to_string(seed);
    execl(ENGRAM_CRASH_WRITER, ENGRAM_CRASH_WRITER, dir.c_str(), seed_text.c_str(),
          static_cast<char*>(nullptr));
    _exit(9);
  }
  usleep(static_cast<useconds_t>(ms) * 1000);
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status))
      << "the writer stopped by itself: exit " << (WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

// The ids among `ids` that the store has.
std::size_t CountPresent(const Engine& e, const std::vector<std::string>& ids) {
  std::size_t n = 0;
  for (const std::string& id : ids) n += e.Get(crash::kCollection, id)->has_value();
  return n;
}

// Whether each index finds record (b, i): its word, its vector, its batch filter.
void ExpectIndexed(const Engine& e, long b, int i) {
  SearchRequest text;
  text.query = crash::Word(b, i);
  StatusOr<SearchResponse> r = e.Search(crash::kCollection, text);
  ASSERT_TRUE(r.ok() && !r->rejected);
  ASSERT_EQ(r->hits.size(), 1u) << "text index misses " << crash::Id(b, i);
  EXPECT_EQ(r->hits[0].id, crash::Id(b, i));
  // The vector index holds its vector: the exact plan (the batch's 40
  // records) finds it at distance ~0. (An unfiltered k = 1 graph walk is
  // approximate: on this grid-like data it may stop at a neighbour.)
  SearchRequest vec;
  vec.vector = crash::Vector(b, i);
  vec.k = 1;
  vec.dialect = FilterDialect::kVectorFilter;
  vec.filter = R"({"batch":)" + std::to_string(b) + "}";
  r = e.Search(crash::kCollection, vec);
  ASSERT_TRUE(r.ok() && !r->rejected);
  ASSERT_EQ(r->hits.size(), 1u);
  EXPECT_EQ(r->hits[0].id, crash::Id(b, i)) << "vector index misses it";
  EXPECT_LT(r->hits[0].distance.value_or(1), 1e-3);  // its own vector, as stored (6 digits)
}

TEST(Crash, KilledWriterLosesNoAcknowledgedWrite) {
  const fs::path dir = fs::temp_directory_path() / ("engram_crash_" + std::to_string(getpid()));
  const fs::path log = dir.string() + ".log";
  fs::remove_all(dir);
  std::mt19937 rng(20261121);
  long max_acked = 0;
  std::set<long> deleted;
  const int kills = Kills();
  for (int round = 0; round < kills; ++round) {
    RunAndKill(dir, log, rng(), 30 + static_cast<int>(rng() % 400));
    std::ifstream in(log);
    std::string word;
    long b = 0;
    while (in >> word) {
      if (word == "checkpoint") continue;
      in >> b;
      if (word == "acked") max_acked = std::max(max_acked, b);
      if (word == "deleted") deleted.insert(b);
    }
    StatusOr<std::unique_ptr<Engine>> opened = Engine::Open(dir.string());
    ASSERT_TRUE(opened.ok()) << "round " << round << ": " << opened.status().message();
    const Engine& e = **opened;
    if (!e.DescribeCollection(crash::kCollection).ok()) continue;  // killed before creating it
    const long last = crash::CounterLevel(e);
    ASSERT_GE(last, max_acked) << "round " << round << ": an acknowledged batch is lost";
    // Nothing of the batch after the counter's.
    ASSERT_EQ(CountPresent(e, crash::BatchIds(last + 1)), 0u) << "round " << round;
    // The counter, unless the writer was killed between creating the
    // collection and acknowledging its first batch.
    std::size_t expected = e.Get(crash::kCollection, "counter")->has_value() ? 1 : 0;
    for (long batch = 1; batch <= last; ++batch) {
      const std::size_t n = CountPresent(e, crash::BatchIds(batch));
      ASSERT_TRUE(n == 0 || n == crash::kRecords)
          << "round " << round << ": batch " << batch << " is there in part (" << n << ")";
      if (deleted.count(batch)) {
        ASSERT_EQ(n, 0u) << "an acknowledged delete is undone";
      }
      if (n == 0 && !deleted.count(batch)) {
        // Only a batch the writer deletes (B - 3 after batch B, B a multiple
        // of 5) may be gone without an acknowledgement: killed in between.
        ASSERT_TRUE(batch % 5 == 2 && batch + 3 <= last) << "batch " << batch << " vanished";
      }
      expected += n;
    }
    StatusOr<CollectionInfo> info = e.DescribeCollection(crash::kCollection);
    ASSERT_EQ(info->records, expected) << "round " << round << ": the metadata index disagrees";
    // The newest batches and a random older one, through every index.
    for (long batch : {last, last - 1, 1 + static_cast<long>(rng() % std::max(1L, last))}) {
      if (batch < 1 || CountPresent(e, crash::BatchIds(batch)) == 0) continue;
      for (int i : {0, crash::kRecords / 2, crash::kRecords - 1}) ExpectIndexed(e, batch, i);
      SearchRequest filtered;
      filtered.query = "common";
      filtered.k = 1000;
      filtered.dialect = FilterDialect::kVectorFilter;
      filtered.filter = R"({"batch":)" + std::to_string(batch) + "}";
      StatusOr<SearchResponse> r = e.Search(crash::kCollection, filtered);
      ASSERT_TRUE(r.ok() && !r->rejected);
      EXPECT_EQ(r->hits.size(), static_cast<std::size_t>(crash::kRecords));
    }
  }
  std::printf("crash test: %d kills, last acknowledged batch %ld\n", kills, max_acked);
  fs::remove_all(dir);
  fs::remove(log);
}

}  // namespace
}  // namespace engram
