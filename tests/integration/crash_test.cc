// Kills a real writing process (crash_writer) with SIGKILL at random moments,
// many times over one store, and after each kill checks SEARCH.md §1's
// promise: every acknowledged write is there, no batch is there in part, and
// the text, vector and metadata indexes agree with the stored records
// (crash_checks.h). Each reopen prints what recovery replayed and how long it
// took, and must replay no more than the writer wrote since the last
// checkpoint it saw complete (its own, or the test's reopen, which
// checkpoints when it closes); the writer's background checkpoints only make
// that smaller.
// ENGRAM_CRASH_KILLS sets the number of kills (default 8; the issue asks for
// a run of at least 200 once).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engram/engine.h"
#include "tests/integration/crash_checks.h"
#include "tests/integration/crash_records.h"

namespace engram {
namespace {
namespace crash_test {

namespace fs = std::filesystem;

int Kills() {
  const char* env = std::getenv("ENGRAM_CRASH_KILLS");
  return env ? std::atoi(env) : 8;
}

// Runs the writer for `ms` milliseconds, then SIGKILLs it. Its stdout goes to `log`.
void RunAndKill(const fs::path& dir, const fs::path& log, unsigned seed, int ms) {
  std::fflush(stdout);  // else the child's freopen prints what is buffered again
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

TEST(Crash, KilledWriterLosesNoAcknowledgedWrite) {
  const fs::path dir = fs::temp_directory_path() / ("engram_crash_" + std::to_string(getpid()));
  const fs::path log = dir.string() + ".log";
  fs::remove_all(dir);
  std::mt19937 rng(20261121);
  crash::Acknowledged acked;
  const int kills = Kills();
  std::size_t replayed = 0, most_replayed = 0;
  double seconds = 0, most_seconds = 0;
  for (int round = 0; round < kills; ++round) {
    const std::string where = "round " + std::to_string(round);
    RunAndKill(dir, log, rng(), 50 + static_cast<int>(rng() % 1500));
    std::ifstream in(log);
    std::string word;
    long b = 0;
    while (in >> word >> b) acked.Hear(word, b);
    StatusOr<std::unique_ptr<Engine>> opened = Engine::Open(dir.string());
    ASSERT_TRUE(opened.ok()) << where << ": " << opened.status().message();
    const Engine& e = **opened;
    long last = 0;
    crash::ExpectConsistent(e, acked, rng, where, &last);
    if (HasFatalFailure()) return;
    const Engine::RecoveryReport& r = e.recovery();
    crash::ExpectReplayExplained(r, acked, last, where);
    std::printf(
        "%s: batch %ld, reopened in %.3f s replaying %zu of %zu records "
        "(%ld batches since the last checkpoint the writer saw)\n",
        where.c_str(), last, r.seconds, r.replayed, r.records,
        std::max(0L, last - acked.checkpointed));
    replayed += r.replayed;
    seconds += r.seconds;
    most_replayed = std::max(most_replayed, r.replayed);
    most_seconds = std::max(most_seconds, r.seconds);
    opened->reset();  // closing checkpoints everything
    acked.checkpointed = last;
  }
  std::printf(
      "crash test: %d kills, last acknowledged batch %ld; reopening replayed %.1f records "
      "in %.3f s on average, at most %zu records and %.3f s\n",
      kills, acked.batch, static_cast<double>(replayed) / std::max(1, kills),
      seconds / std::max(1, kills), most_replayed, most_seconds);
  fs::remove_all(dir);
  fs::remove(log);
}

}  // namespace crash_test
}  // namespace
}  // namespace engram
