// The checks of a store reopened after its writer died (crash_test.cc: the
// process was killed; power_loss_test.cc: the machine lost power), against
// what the writer of crash_records.h had acknowledged: SEARCH.md §1's
// promise (every acknowledged write is there, no batch is there in part, the
// text, vector and metadata indexes agree with the stored records) and the
// bound on recovery (it replays at most what was written since the last
// checkpoint).
#ifndef ENGRAM_TESTS_INTEGRATION_CRASH_CHECKS_H_
#define ENGRAM_TESTS_INTEGRATION_CRASH_CHECKS_H_

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "engram/engine.h"
#include "tests/integration/crash_records.h"

namespace engram::crash {

// What the writer had heard acknowledged (WriteStep's `ack`, and "created"
// once CreateCollection returned) when it stopped.
struct Acknowledged {
  bool collection = false;
  long batch = 0;  // the last batch acknowledged
  std::set<long> deleted;
  // The last batch acknowledged before the last checkpoint known to have
  // completed (0: none); a reopen replays only what was written after it.
  long checkpointed = 0;

  void Hear(std::string_view what, long b) {
    if (what == "created") collection = true;
    if (what == "acked") batch = std::max(batch, b);
    if (what == "deleted") deleted.insert(b);
    if (what == "checkpoint") checkpointed = std::max(checkpointed, b);
  }
};

// The ids among `ids` that the store has.
inline std::size_t CountPresent(const Engine& e, const std::vector<std::string>& ids) {
  std::size_t n = 0;
  for (const std::string& id : ids) n += e.Get(kCollection, id)->has_value();
  return n;
}

// Whether each index finds record (b, i): its word, its vector, its batch filter.
inline void ExpectIndexed(const Engine& e, long b, int i) {
  SearchRequest text;
  text.query = Word(b, i);
  StatusOr<SearchResponse> r = e.Search(kCollection, text);
  ASSERT_TRUE(r.ok() && !r->rejected);
  ASSERT_EQ(r->hits.size(), 1u) << "text index misses " << Id(b, i);
  EXPECT_EQ(r->hits[0].id, Id(b, i));
  // The vector index holds its vector: the exact plan (the batch's 40
  // records) finds it at distance ~0. (An unfiltered k = 1 graph walk is
  // approximate: on this grid-like data it may stop at a neighbour.)
  SearchRequest vec;
  vec.vector = Vector(b, i);
  vec.k = 1;
  vec.dialect = FilterDialect::kVectorFilter;
  vec.filter = R"({"batch":)" + std::to_string(b) + "}";
  r = e.Search(kCollection, vec);
  ASSERT_TRUE(r.ok() && !r->rejected);
  ASSERT_EQ(r->hits.size(), 1u);
  EXPECT_EQ(r->hits[0].id, Id(b, i)) << "vector index misses it";
  EXPECT_LT(r->hits[0].distance.value_or(1), 1e-3);  // its own vector, as stored (6 digits)
}

// Checks the reopened store `e` against `acked`; `*last` gets the counter's
// level (the last batch wholly there). `where` prefixes every message.
inline void ExpectConsistent(const Engine& e, const Acknowledged& acked, std::mt19937& rng,
                             const std::string& where, long* last_out) {
  *last_out = 0;
  if (!e.DescribeCollection(kCollection).ok()) {
    ASSERT_FALSE(acked.collection) << where << ": the acknowledged collection is lost";
    return;
  }
  const long last = CounterLevel(e);
  *last_out = last;
  ASSERT_GE(last, acked.batch) << where << ": an acknowledged batch is lost";
  // Nothing of the batch after the counter's.
  ASSERT_EQ(CountPresent(e, BatchIds(last + 1)), 0u) << where;
  std::size_t expected = last > 0 ? 2 : 0;  // the counter and the current fact
  if (last > 0) {
    // The last batch's fact is the one current fact; the one before it is
    // kept, superseded (history), not current.
    ASSERT_TRUE(e.Get(kCollection, FactId(last))->has_value())
        << where << ": the last batch's fact is not current";
    SearchRequest facts;
    facts.query = "fact";
    facts.k = 1000;
    StatusOr<SearchResponse> found = e.Search(kCollection, facts);
    ASSERT_TRUE(found.ok() && !found->rejected);
    ASSERT_EQ(found->hits.size(), 1u) << where << ": more than one current fact";
    EXPECT_EQ(found->hits[0].id, FactId(last)) << where;
    if (last > 1) {
      ASSERT_FALSE(e.Get(kCollection, FactId(last - 1))->has_value())
          << where << ": a superseded fact is current";
      GetRequest versions;
      versions.include_history = true;
      StatusOr<GetResponse> history = e.Get(kCollection, FactId(last), versions);
      ASSERT_TRUE(history.ok() && history->found);
      ASSERT_FALSE(history->history.empty()) << where << ": the superseded fact is lost";
      EXPECT_EQ(history->history[0].id, FactId(last - 1)) << where;
      EXPECT_FALSE(history->history[0].superseded_at.empty()) << where;
    }
  }
  for (long batch = 1; batch <= last; ++batch) {
    const std::size_t n = CountPresent(e, BatchIds(batch));
    ASSERT_TRUE(n == 0 || n == kRecords)
        << where << ": batch " << batch << " is there in part (" << n << ")";
    if (acked.deleted.count(batch)) {
      ASSERT_EQ(n, 0u) << where << ": an acknowledged delete of batch " << batch << " is undone";
    }
    if (n == 0 && !acked.deleted.count(batch)) {
      // Only a batch the writer deletes (B - 3 after batch B, B a multiple
      // of 5) may be gone without an acknowledgement: stopped in between.
      ASSERT_TRUE(batch % 5 == 2 && batch + 3 <= last)
          << where << ": batch " << batch << " vanished";
    }
    expected += n;
  }
  StatusOr<CollectionInfo> info = e.DescribeCollection(kCollection);
  ASSERT_EQ(info->records, expected) << where << ": the metadata index disagrees";
  // The newest batches and a random older one, through every index.
  for (long batch : {last, last - 1, 1 + static_cast<long>(rng() % std::max(1L, last))}) {
    if (batch < 1 || CountPresent(e, BatchIds(batch)) == 0) continue;
    for (int i : {0, kRecords / 2, kRecords - 1}) ExpectIndexed(e, batch, i);
    SearchRequest filtered;
    filtered.query = "common";
    filtered.k = 1000;
    filtered.dialect = FilterDialect::kVectorFilter;
    filtered.filter = R"({"batch":)" + std::to_string(batch) + "}";
    StatusOr<SearchResponse> r = e.Search(kCollection, filtered);
    ASSERT_TRUE(r.ok() && !r->rejected);
    EXPECT_EQ(r->hits.size(), static_cast<std::size_t>(kRecords)) << where;
  }
}

// The reopen replayed no more than the batches after the last known
// checkpoint, up to the counter's level `last`, can explain (each writes
// kRecords records, the fact and the counter), and rebuilt no index a
// checkpoint had stored.
inline void ExpectReplayExplained(const Engine::RecoveryReport& r, const Acknowledged& acked,
                                  long last, const std::string& where) {
  const long since = std::max(0L, last - acked.checkpointed);
  EXPECT_LE(r.replayed, static_cast<std::size_t>(since) * (kRecords + 2))
      << where << ": replayed " << r.replayed << " records, but only " << since
      << " batches were written after the last checkpoint (after batch " << acked.checkpointed
      << ")";
  if (acked.checkpointed > 0) {
    EXPECT_EQ(r.rebuilt, 0u) << where << ": an index was rebuilt";
  }
}

}  // namespace engram::crash

#endif  // ENGRAM_TESTS_INTEGRATION_CRASH_CHECKS_H_
