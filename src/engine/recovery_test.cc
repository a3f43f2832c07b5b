// Reopening through the public API: recovery from snapshots that are
// current, stale, corrupt or missing, with search results that equal a
// freshly built engine's; the records image; record numbers reused,
// renumbered when crafted; checkpoints in the background.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "engine/testing/engine_fixture.h"
#include "engram/engine.h"
#include "storage/store.h"

namespace engram {
namespace {

using testing::EngineTest;
namespace fs = std::filesystem;

// Whatever state the snapshots are in, reopening gives the same answers as
// an engine that indexed every record from scratch.
TEST_F(EngineTest, ReopenAgreesWithAFreshBuild) {
  std::mt19937 rng(3);
  std::vector<std::string> first, second;
  for (int i = 0; i < 300; ++i) first.push_back(Record(i, rng));
  // The second batch only replaces records (new text and vectors), so that a
  // snapshot missing it holds the same record set: only replay can fix it.
  for (int i = 150; i < 300; ++i) second.push_back(Record(i, rng));
  std::vector<std::string> expected;
  {
    auto e = Open();
    ASSERT_TRUE(e->CreateCollection(Spec()).ok());
    ASSERT_TRUE(Ingest(*e, first).ok());
    ASSERT_TRUE(e->Checkpoint("lore").ok());
    ASSERT_TRUE(Ingest(*e, second).ok());
    const std::vector<std::string> gone = {"r1", "r2", "r260"};
    ASSERT_TRUE(e->Delete("lore", gone).ok());
    expected = Probe(*e);
  }
  // The destructor checkpointed; now make the snapshots stale: writes after
  // them, through a second engine whose snapshot we then overwrite below.
  auto store_dir = dir_.string();
  {
    auto e = Open();
    EXPECT_EQ(Probe(*e), expected) << "reopen from current snapshots";
  }
  // A stale snapshot: replace it with one taken before the second batch.
  {
    fs::path fresh = dir_.string() + "_fresh";
    fs::remove_all(fresh);
    StatusOr<std::unique_ptr<Engine>> f = Engine::Open(fresh.string());
    ASSERT_TRUE(f.ok());
    ASSERT_TRUE((*f)->CreateCollection(Spec()).ok());
    ASSERT_TRUE(Ingest(**f, first).ok());
    ASSERT_TRUE((*f)->Checkpoint("lore").ok());
    f->reset();
    StatusOr<std::unique_ptr<storage::Store>> src = storage::OpenSqliteStore(fresh.string());
    StatusOr<std::unique_ptr<storage::Store>> dst = storage::OpenSqliteStore(store_dir);
    ASSERT_TRUE(src.ok() && dst.ok());
    for (const char* name : {"text", "vector", "records"}) {
      StatusOr<std::optional<storage::Snapshot>> snap = (*src)->GetSnapshot("lore", name);
      ASSERT_TRUE(snap.ok() && snap->has_value());
      (*snap)->seq = 1;  // older than every write of the second batch
      ASSERT_TRUE((*dst)->PutSnapshot("lore", name, **snap).ok());
    }
    fs::remove_all(fresh);
  }
  {
    auto e = Open();
    EXPECT_EQ(Probe(*e), expected) << "reopen from stale snapshots";
  }
  // Corrupt snapshots are rebuilt from the records.
  {
    StatusOr<std::unique_ptr<storage::Store>> dst = storage::OpenSqliteStore(store_dir);
    ASSERT_TRUE(dst.ok());
    for (const char* name : {"text", "vector", "records"}) {
      StatusOr<std::optional<storage::Snapshot>> snap = (*dst)->GetSnapshot("lore", name);
      ASSERT_TRUE(snap.ok() && snap->has_value());
      (*snap)->bytes[(*snap)->bytes.size() / 2] ^= 0x5a;
      ASSERT_TRUE((*dst)->PutSnapshot("lore", name, **snap).ok());
    }
  }
  {
    auto e = Open();
    EXPECT_EQ(Probe(*e), expected) << "reopen from corrupt snapshots";
  }
}

// The records image stands for the records no newer than it (and than the
// text snapshot: it has no texts); the rest are parsed. A damaged image, or
// a text snapshot that fails beside a sound image, costs time, not answers.
TEST_F(EngineTest, ReopenTakesUnchangedRecordsFromTheRecordsImage) {
  std::mt19937 rng(4);
  std::vector<std::string> first, second;
  for (int i = 0; i < 300; ++i) first.push_back(Record(i, rng));
  for (int i = 150; i < 300; ++i) second.push_back(Record(i, rng));
  const std::vector<std::string> ids = {"r0", "r5", "r149", "r150", "r299"};
  auto bodies = [&](const Engine& e) { return Bodies(e, ids); };
  {
    auto e = Open();
    ASSERT_TRUE(e->CreateCollection(Spec()).ok());
    ASSERT_TRUE(Ingest(*e, first).ok());
  }
  {
    auto e = Open();
    EXPECT_EQ(e->recovery().imaged, 300u) << "a clean reopen parses no record";
  }
  const std::vector<std::string> names = {"text", "vector", "records"};
  std::vector<storage::Snapshot> old;
  {
    StatusOr<std::unique_ptr<storage::Store>> store = storage::OpenSqliteStore(dir_.string());
    ASSERT_TRUE(store.ok());
    for (const std::string& name : names) {
      StatusOr<std::optional<storage::Snapshot>> snap = (*store)->GetSnapshot("lore", name);
      ASSERT_TRUE(snap.ok() && snap->has_value()) << name;
      old.push_back(std::move(**snap));
    }
  }
  std::vector<std::string> expected, expected_bodies;
  {
    auto e = Open();
    ASSERT_TRUE(Ingest(*e, second).ok());
    const std::vector<std::string> gone = {"r1", "r2", "r260"};
    ASSERT_TRUE(e->Delete("lore", gone).ok());
    expected = Probe(*e);
    expected_bodies = bodies(*e);
  }
  auto rewrite = [&](const std::string& name, const std::function<void(storage::Snapshot&)>& f) {
    StatusOr<std::unique_ptr<storage::Store>> store = storage::OpenSqliteStore(dir_.string());
    ASSERT_TRUE(store.ok());
    StatusOr<std::optional<storage::Snapshot>> snap = (*store)->GetSnapshot("lore", name);
    ASSERT_TRUE(snap.ok() && snap->has_value());
    f(**snap);
    ASSERT_TRUE((*store)->PutSnapshot("lore", name, **snap).ok());
  };
  // The snapshots taken before the second batch: the replaced and removed
  // records are parsed (or dropped), the other 148 taken from the image.
  for (std::size_t i = 0; i < names.size(); ++i) {
    rewrite(names[i], [&](storage::Snapshot& s) { s = old[i]; });
  }
  // Reopens: the records taken from the image and the indexes rebuilt,
  // then the same answers and bodies.
  auto reopen = [&](std::size_t imaged, std::size_t rebuilt, const std::string& what) {
    auto e = Open();
    EXPECT_EQ(e->recovery().imaged, imaged) << what;
    EXPECT_EQ(e->recovery().rebuilt, rebuilt) << what;
    EXPECT_EQ(Probe(*e), expected) << what;
    EXPECT_EQ(bodies(*e), expected_bodies) << what;
  };
  reopen(148, 0, "a stale records image: 150 replaced and 2 removed since");
  // Closing wrote current images. A text snapshot that fails to load: the
  // records taken from the image had no texts, so every record is read again.
  rewrite("text", [](storage::Snapshot& s) { s.bytes[s.bytes.size() / 2] ^= 0x5a; });
  reopen(0, 1, "a damaged text snapshot");
  // A damaged records image: every record is parsed, no index is rebuilt.
  rewrite("records", [](storage::Snapshot& s) { s.bytes[s.bytes.size() / 2] ^= 0x5a; });
  reopen(0, 0, "a damaged records image");
  reopen(297, 0, "the close after a damaged image wrote a new one");
}

// A checkpoint encodes the records image in chunks while a writer replaces
// and removes records: the image may hold a record as it was after the
// image's sequence, and reopening from it must still give every record as
// last written.
TEST_F(EngineTest, RecordsImageTakenDuringWritesReopensExactly) {
  constexpr int kRecords = 17000;  // two chunks of the image
  std::mt19937 rng(5);
  auto e = Open();
  ASSERT_TRUE(e->CreateCollection(Spec()).ok());
  std::vector<std::string> records;
  for (int i = 0; i < kRecords; ++i) records.push_back(Record(i, rng));
  ASSERT_TRUE(Ingest(*e, records).ok());
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    std::mt19937 wrng(6);
    std::uniform_int_distribution<int> pick(0, kRecords - 1);
    for (int round = 0; !stop.load(); ++round) {
      std::vector<std::string> batch;
      for (int j = 0; j < 20; ++j) batch.push_back(Record(pick(wrng), wrng));
      ASSERT_TRUE(Ingest(*e, batch).ok());
      const std::vector<std::string> gone = {"r" + std::to_string(pick(wrng))};
      ASSERT_TRUE(e->Delete("lore", gone).ok());
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_TRUE(e->Checkpoint("lore").ok());
  // The images of that checkpoint, read beside the open engine.
  const std::vector<std::string> names = {"text", "vector", "records"};
  std::vector<storage::Snapshot> taken;
  {
    StatusOr<std::unique_ptr<storage::Store>> store = storage::OpenSqliteStore(dir_.string());
    ASSERT_TRUE(store.ok());
    for (const std::string& name : names) {
      StatusOr<std::optional<storage::Snapshot>> snap = (*store)->GetSnapshot("lore", name);
      ASSERT_TRUE(snap.ok() && snap->has_value()) << name;
      taken.push_back(std::move(**snap));
    }
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  stop = true;
  writer.join();
  const std::vector<std::string> expected = Probe(*e);
  const std::uint64_t live = e->DescribeCollection("lore")->records;
  std::vector<std::string> sample;
  for (int i = 0; i < kRecords; i += 97) sample.push_back("r" + std::to_string(i));
  const std::vector<std::string> bodies = Bodies(*e, sample);
  e.reset();
  {
    StatusOr<std::unique_ptr<storage::Store>> store = storage::OpenSqliteStore(dir_.string());
    ASSERT_TRUE(store.ok());
    for (std::size_t i = 0; i < names.size(); ++i) {
      ASSERT_TRUE((*store)->PutSnapshot("lore", names[i], taken[i]).ok());
    }
  }
  e = Open();
  EXPECT_GT(e->recovery().imaged, 0u);
  EXPECT_LT(e->recovery().imaged, live) << "the writes after the image are parsed";
  EXPECT_EQ(e->recovery().rebuilt, 0u);
  EXPECT_EQ(Probe(*e), expected);
  EXPECT_EQ(e->DescribeCollection("lore")->records, live);
  EXPECT_EQ(Bodies(*e, sample), bodies);
}

// Removed records' numbers are reused, lowest first, so a store/forget
// workload keeps every index as small as its live set.
TEST_F(EngineTest, RemovedRecordsNumbersAreReused) {
  std::mt19937 rng(11);
  {
    auto e = Open();
    ASSERT_TRUE(e->CreateCollection(Spec()).ok());
    for (int round = 0; round < 10; ++round) {
      std::vector<std::string> records;
      for (int i = 0; i < 50; ++i) records.push_back(Record(round * 50 + i, rng));
      ASSERT_TRUE(Ingest(*e, records).ok());
      if (round == 0) continue;
      std::vector<std::string> gone;
      for (int i = 0; i < 50; ++i) gone.push_back("r" + std::to_string((round - 1) * 50 + i));
      ASSERT_TRUE(e->Delete("lore", gone).ok());
    }
    EXPECT_EQ(e->DescribeCollection("lore")->records, 50u);
    EXPECT_EQ(ListedIds(*e).size(), 50u);
  }
  const std::map<std::string, std::uint32_t> docs = StoredDocs();
  ASSERT_EQ(docs.size(), 50u);
  for (const auto& [id, doc] : docs) EXPECT_LT(doc, 100u) << id;
  // After a reopen the free numbers are known again.
  {
    auto e = Open();
    std::vector<std::string> records;
    for (int i = 0; i < 50; ++i) records.push_back(Record(1000 + i, rng));
    ASSERT_TRUE(Ingest(*e, records).ok());
    EXPECT_EQ(Probe(*e).size(), 4u);  // searches over reused numbers work
    EXPECT_EQ(ListedIds(*e).size(), 100u);
  }
  for (const auto& [id, doc] : StoredDocs()) EXPECT_LT(doc, 100u) << id;
}

// A store whose record numbers are crafted (0xFFFFFFFF wraps a size; a large
// number asks for gigabytes) opens with the same answers: the numbers are
// checked, and renumbered in the store, before anything is sized by them.
TEST_F(EngineTest, CraftedRecordNumbersAreRenumberedNotTrusted) {
  std::mt19937 rng(13);
  std::vector<std::string> records;
  for (int i = 0; i < 120; ++i) records.push_back(Record(i, rng));
  std::vector<std::string> expected;
  {
    auto e = Open();
    ASSERT_TRUE(e->CreateCollection(Spec()).ok());
    ASSERT_TRUE(Ingest(*e, records).ok());
    expected = Probe(*e);
  }
  // 70,000 is sparse for 120 records but few enough numbers for the text
  // snapshot to start decoding before the scan shows them sparse: that
  // decoding is set aside.
  for (const std::uint32_t crafted : {70000u, 0xFFFFFFFFu, 0x7FFFFFF0u, 0x00100000u}) {
    SCOPED_TRACE(crafted);
    {
      StatusOr<std::unique_ptr<storage::Store>> store = storage::OpenSqliteStore(dir_.string());
      ASSERT_TRUE(store.ok());
      if (crafted == 70000u) {
        StatusOr<std::optional<storage::Snapshot>> text = (*store)->GetSnapshot("lore", "text");
        ASSERT_TRUE(text.ok() && text->has_value());
        EXPECT_GE(2 * (*text)->bytes.size() + 65536, std::size_t{crafted} + 1);
      }
      StatusOr<std::optional<storage::Store::Found>> found = (*store)->GetRecord("lore", "r7");
      ASSERT_TRUE(found.ok() && found->has_value());
      storage::WriteBatch batch;
      batch.removes.push_back("r7");
      batch.puts.push_back({"r7", crafted, (*found)->body, (*found)->vector});
      ASSERT_TRUE((*store)->Apply("lore", batch).ok());
    }
    {
      auto e = Open();
      ASSERT_NE(e, nullptr);
      EXPECT_EQ(Probe(*e), expected);
      EXPECT_EQ(ListedIds(*e).size(), 120u);
      EXPECT_TRUE(e->Get("lore", "r7").value().has_value());
    }
    for (const auto& [id, doc] : StoredDocs()) EXPECT_LT(doc, 120u) << id;
  }
}

// Reopening checks the stored records on several threads: the collection
// answers as before, and a damaged record in any part fails the open.
TEST_F(EngineTest, ReopenChecksRecordsOnSeveralThreads) {
  std::mt19937 rng(19);
  std::vector<std::string> records;
  for (int i = 0; i < 2000; ++i) records.push_back(Record(i, rng));
  std::vector<std::string> expected;
  {
    auto e = Open();
    ASSERT_TRUE(e->CreateCollection(Spec()).ok());
    ASSERT_TRUE(Ingest(*e, records).ok());
    expected = Probe(*e);
  }
  Engine::Options options;
  options.threads = 4;
  {
    StatusOr<std::unique_ptr<Engine>> e = Engine::Open(dir_.string(), options);
    ASSERT_TRUE(e.ok()) << e.status().message();
    EXPECT_EQ(Probe(**e), expected);
    EXPECT_EQ(ListedIds(**e).size(), 2000u);
    EXPECT_EQ((*e)->recovery().records, 2000u);
  }
  {
    StatusOr<std::unique_ptr<storage::Store>> store = storage::OpenSqliteStore(dir_.string());
    ASSERT_TRUE(store.ok());
    StatusOr<std::optional<storage::Store::Found>> found = (*store)->GetRecord("lore", "r1990");
    ASSERT_TRUE(found.ok() && found->has_value());
    storage::WriteBatch batch;
    batch.puts.push_back({"r1990", (*found)->doc, "[1,2]", (*found)->vector});
    ASSERT_TRUE((*store)->Apply("lore", batch).ok());
  }
  StatusOr<std::unique_ptr<Engine>> damaged = Engine::Open(dir_.string(), options);
  ASSERT_FALSE(damaged.ok());
  EXPECT_EQ(damaged.status().code(), StatusCode::kCorruption);
  EXPECT_EQ(damaged.status().message(), "collection 'lore': stored record is not a JSON object");
}

// A damaged retrieve configuration (its top_k a float, negative, zero or
// past the largest k) fails the open with Corruption, never a conversion out
// of range; the intact one opens.
TEST_F(EngineTest, ReopenRefusesADamagedRetrieveConfiguration) {
  {
    auto e = Open();
    ASSERT_TRUE(e->CreateCollection(Spec()).ok());
    RetrieveSpec retrieve{"all", "lore", FilterDialect::kRetrieve, "", 10, 0, SearchMode::kText};
    ASSERT_TRUE(e->PutRetrieve(retrieve).ok());
  }
  for (const char* top_k : {"10", "1e30", "-1", "0", "1000000"}) {
    {
      StatusOr<std::unique_ptr<storage::Store>> store = storage::OpenSqliteStore(dir_.string());
      ASSERT_TRUE(store.ok());
      const std::string doc = std::string(R"([{"name":"all","dialect":"retrieve","filter":"",)") +
                              R"("top_k":)" + top_k + R"(,"threshold":0,"mode":"text"}])";
      ASSERT_TRUE((*store)->PutSnapshot("lore", "retrieves", {0, doc}).ok());
    }
    StatusOr<std::unique_ptr<Engine>> e = Engine::Open(dir_.string());
    if (std::string(top_k) == "10") {
      EXPECT_TRUE(e.ok()) << e.status().message();
      continue;
    }
    ASSERT_FALSE(e.ok()) << top_k;
    EXPECT_EQ(e.status().code(), StatusCode::kCorruption) << top_k;
    EXPECT_NE(e.status().message().find("retrieve configurations"), std::string::npos)
        << e.status().message();
  }
}
}  // namespace
}  // namespace engram
