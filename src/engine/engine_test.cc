// The engine through its public API: collections, durable writes, recovery
// from snapshots that are current, stale, corrupt or missing, and search
// results that equal a freshly built engine's.
#include "engram/engine.h"

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

#include "storage/store.h"
#include "storage/store_lock.h"
#include "vector/vector_index.h"

namespace engram {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSchema = R"({"fields":[
  {"name":"region","type":"string","default":"anywhere"},
  {"name":"level","type":"int","default":0},
  {"name":"tags","type":"set<string>","optional":true},
  {"name":"written","type":"datetime","optional":true}]})";

const char* const kWords[] = {"wolf",  "mill",   "river", "amulet", "bridge", "mage",
                              "sword", "winter", "trade", "salt",   "tower",  "storm"};
const char* const kRegions[] = {"valley", "keep", "river", "coast"};

class EngineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        fs::temp_directory_path() /
        ("engram_engine_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
         "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::unique_ptr<Engine> Open() {
    StatusOr<std::unique_ptr<Engine>> e = Engine::Open(dir_.string());
    EXPECT_TRUE(e.ok()) << e.status().message();
    return e.ok() ? std::move(e).value() : nullptr;
  }

  static CollectionSpec Spec(std::size_t dim = 8) {
    Checked<SchemaRef> schema = SchemaRef::Parse(kSchema);
    CollectionSpec spec{"lore", schema.value(), {{"title", 2.0}, {"text", 1.0}}, dim, "cosine",
                        "en",   "written"};
    return spec;
  }

  // A record with generated text, metadata and an 8-dim vector.
  static std::string Record(int i, std::mt19937& rng, std::size_t dim = 8) {
    std::uniform_int_distribution<int> w(0, 11);
    std::string text;
    for (int j = 0; j < 6; ++j) text += std::string(j ? " " : "") + kWords[w(rng)];
    std::string vec = "[";
    std::normal_distribution<float> g;
    for (std::size_t d = 0; d < dim; ++d) vec += (d ? "," : "") + std::to_string(g(rng));
    vec += "]";
    return R"({"id":"r)" + std::to_string(i) + R"(","title":")" + kWords[i % 12] + R"(","text":")" +
           text + R"(","region":")" + kRegions[i % 4] + R"(","level":)" + std::to_string(i % 20) +
           R"(,"tags":["t)" + std::to_string(i % 3) + R"("],"written":"2025-0)" +
           std::to_string(1 + i % 9) + R"(-1)" + std::to_string(i % 10) + R"(","vector":)" + vec +
           "}";
  }

  static Status Ingest(Engine& e, const std::vector<std::string>& records) {
    std::vector<std::string_view> views(records.begin(), records.end());
    StatusOr<WriteResult> r = e.Upsert("lore", views);
    if (!r.ok()) return r.status();
    if (r->rejected) return Status::InvalidArgument(r->rejected->message);
    return Status::Ok();
  }

  // The ids a set of searches return, as one string per search.
  static std::vector<std::string> Probe(const Engine& e) {
    std::vector<std::string> out;
    const std::vector<float> q = {0.5f, -0.2f, 0.1f, 0.9f, -0.4f, 0.3f, 0.0f, 0.2f};
    std::vector<SearchRequest> requests(4);
    requests[0].query = "wolf river";
    requests[1].query = "amulet OR storm";
    requests[1].dialect = FilterDialect::kVectorFilter;
    requests[1].filter = R"({"region":{"$in":["valley","coast"]}})";
    requests[2].vector = q;
    requests[2].dialect = FilterDialect::kRetrieve;
    requests[2].filter = R"({"op":"ge","lhs":{"knowledge":"level"},"rhs":{"value":15}})";
    requests[3].query = "mage tower";
    requests[3].vector = q;
    for (SearchRequest& r : requests) {
      r.k = 10;
      StatusOr<SearchResponse> s = e.Search("lore", r);
      EXPECT_TRUE(s.ok()) << s.status().message();
      if (!s.ok()) continue;
      EXPECT_FALSE(s->rejected) << s->rejected->message;
      std::string ids;
      for (const SearchHit& h : s->hits) ids += h.id + " ";
      out.push_back(ids);
    }
    return out;
  }

  // The bodies of records `ids` ("(none)" for one not found).
  static std::vector<std::string> Bodies(const Engine& e, const std::vector<std::string>& ids) {
    std::vector<std::string> out;
    for (const std::string& id : ids) {
      StatusOr<std::optional<std::string>> got = e.Get("lore", id);
      out.push_back(got.ok() && got->has_value() ? **got : "(none)");
    }
    return out;
  }

  // The record numbers the store holds for "lore", by id (the engine closed).
  std::map<std::string, std::uint32_t> StoredDocs() {
    std::map<std::string, std::uint32_t> docs;
    StatusOr<std::unique_ptr<storage::Store>> store = storage::OpenSqliteStore(dir_.string());
    EXPECT_TRUE(store.ok());
    if (!store.ok()) return docs;
    EXPECT_TRUE((*store)
                    ->ScanRecords("lore", UINT64_MAX,
                                  [&](const storage::RecordRow& r) {
                                    docs[std::string(r.id)] = r.doc;
                                    return Status::Ok();
                                  })
                    .ok());
    return docs;
  }

  // Every record id, through a listing (no query, no vector).
  static std::set<std::string> ListedIds(const Engine& e) {
    SearchRequest r;
    r.k = 10000;
    StatusOr<SearchResponse> s = e.Search("lore", r);
    std::set<std::string> ids;
    if (!s.ok()) return ids;
    for (const SearchHit& h : s->hits) ids.insert(h.id);
    return ids;
  }

  fs::path dir_;
};

TEST_F(EngineTest, CreateValidatesAndPersists) {
  auto e = Open();
  ASSERT_TRUE(e);
  CollectionSpec bad = Spec();
  bad.name = "no spaces";
  EXPECT_EQ(e->CreateCollection(bad).code(), StatusCode::kInvalidArgument);
  bad = Spec();
  bad.text.clear();
  bad.vector_dim = 0;
  EXPECT_EQ(e->CreateCollection(bad).code(), StatusCode::kInvalidArgument);
  bad = Spec();
  bad.time_field = "region";
  Status s = e->CreateCollection(bad);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("time_field"), std::string::npos) << s.message();
  bad = Spec();
  bad.metric = "hamming";
  EXPECT_EQ(e->CreateCollection(bad).code(), StatusCode::kInvalidArgument);
  ASSERT_TRUE(e->CreateCollection(Spec()).ok());
  EXPECT_EQ(e->CreateCollection(Spec()).code(), StatusCode::kAlreadyExists);
  e.reset();
  e = Open();
  ASSERT_TRUE(e);
  StatusOr<CollectionInfo> info = e->DescribeCollection("lore");
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->spec.vector_dim, 8u);
  EXPECT_EQ(info->spec.text.size(), 2u);
  EXPECT_EQ(info->spec.time_field, "written");
  EXPECT_EQ(e->DescribeCollection("nope").status().code(), StatusCode::kNotFound);
}

TEST_F(EngineTest, RejectedBatchWritesNothing) {
  auto e = Open();
  ASSERT_TRUE(e->CreateCollection(Spec()).ok());
  std::mt19937 rng(1);
  std::vector<std::string> records = {
      Record(0, rng), Record(1, rng),
      R"({"id":"bad","title":"x","level":"high","vector":[1,2,3,4,5,6,7,8]})"};
  std::vector<std::string_view> views(records.begin(), records.end());
  StatusOr<WriteResult> r = e->Upsert("lore", views);
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->rejected);
  EXPECT_EQ(r->rejected_index, 2u);
  EXPECT_NE(r->rejected->message.find("level"), std::string::npos) << r->rejected->message;
  EXPECT_EQ(e->DescribeCollection("lore")->records, 0u);
  // A wrong-sized vector, and a vector component that is not a number.
  records = {R"({"id":"v","title":"x","vector":[1,2]})"};
  views.assign(records.begin(), records.end());
  r = e->Upsert("lore", views);
  ASSERT_TRUE(r.ok() && r->rejected);
  EXPECT_EQ(r->rejected->path, "vector");
  records = {R"({"id":"v","title":"x","vector":[1,2,3,"4",5,6,7,8]})"};
  views.assign(records.begin(), records.end());
  r = e->Upsert("lore", views);
  ASSERT_TRUE(r.ok() && r->rejected);
  EXPECT_EQ(r->rejected->path, "vector[3]");
  records = {R"({"id":"v","title":7,"vector":[1,2,3,4,5,6,7,8]})"};
  views.assign(records.begin(), records.end());
  r = e->Upsert("lore", views);
  ASSERT_TRUE(r.ok() && r->rejected);
  EXPECT_EQ(r->rejected->path, "title");
}

TEST_F(EngineTest, UpsertReplacesGetAndDelete) {
  auto e = Open();
  ASSERT_TRUE(e->CreateCollection(Spec()).ok());
  std::mt19937 rng(2);
  std::vector<std::string> records;
  for (int i = 0; i < 50; ++i) records.push_back(Record(i, rng));
  ASSERT_TRUE(Ingest(*e, records).ok());
  EXPECT_EQ(e->DescribeCollection("lore")->records, 50u);
  // Replace r3 (twice in one batch: the later wins).
  ASSERT_TRUE(Ingest(*e, {R"({"id":"r3","title":"first","vector":[1,0,0,0,0,0,0,0]})",
                          R"({"id":"r3","title":"zeppelin","vector":[1,0,0,0,0,0,0,0]})"})
                  .ok());
  EXPECT_EQ(e->DescribeCollection("lore")->records, 50u);
  StatusOr<std::optional<std::string>> got = e->Get("lore", "r3");
  ASSERT_TRUE(got.ok() && got->has_value());
  EXPECT_NE((*got)->find("zeppelin"), std::string::npos);
  EXPECT_EQ((*got)->find("vector"), std::string::npos) << "vectors are not part of the body";
  SearchRequest q;
  q.query = "zeppelin";
  StatusOr<SearchResponse> s = e->Search("lore", q);
  ASSERT_TRUE(s.ok());
  ASSERT_EQ(s->hits.size(), 1u);
  EXPECT_EQ(s->hits[0].id, "r3");

  const std::vector<std::string> ids = {"r3", "r4", "missing"};
  StatusOr<WriteResult> d = e->Delete("lore", ids);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->written, 2u);
  d = e->DeleteWhere("lore", FilterDialect::kVectorFilter, R"({"region":"keep"})");
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE(d->rejected);
  EXPECT_EQ(d->written, 13u);  // region keep: i % 4 == 1, r1 .. r49
  d = e->DeleteWhere("lore", FilterDialect::kVectorFilter, R"({"nosuchfield":1})");
  ASSERT_TRUE(d.ok());
  ASSERT_TRUE(d->rejected);
  EXPECT_EQ(e->DescribeCollection("lore")->records, 50u - 2 - 13);
  e.reset();
  e = Open();
  EXPECT_EQ(e->DescribeCollection("lore")->records, 50u - 2 - 13);
  EXPECT_FALSE(e->Get("lore", "r4")->has_value());
  EXPECT_FALSE(e->Get("lore", "r1")->has_value());
  EXPECT_TRUE(e->Get("lore", "r2")->has_value());
}

// Checkpoint links what is staged before it captures: its vector image holds
// the whole graph, so the close has nothing to store again and no open links
// these records again. (It used to capture the staged vectors as staged while
// the background linker linked them, and the close then wrote the images a
// second time, still with the rest unlinked.)
TEST_F(EngineTest, CheckpointLinksStagedVectorsFirst) {
  std::mt19937 rng(5);
  std::vector<std::string> records;
  for (int i = 0; i < 2000; ++i) records.push_back(Record(i, rng));
  {
    auto e = Open();
    ASSERT_TRUE(e->CreateCollection(Spec()).ok());
    ASSERT_TRUE(Ingest(*e, records).ok());
    ASSERT_TRUE(e->Checkpoint("lore").ok());
  }
  StatusOr<std::unique_ptr<storage::Store>> store = storage::OpenSqliteStore(dir_.string());
  ASSERT_TRUE(store.ok());
  StatusOr<std::optional<storage::Snapshot>> snap = (*store)->GetSnapshot("lore", "vector");
  ASSERT_TRUE(snap.ok() && snap->has_value());
  StatusOr<vector::VectorIndex> image = vector::VectorIndex::Load((*snap)->bytes, 2000);
  ASSERT_TRUE(image.ok()) << image.status().message();
  EXPECT_EQ(image->pending(), 0u) << "staged vectors in the checkpoint's image";
  EXPECT_EQ(image->size(), 2000u);
}

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

TEST_F(EngineTest, SearchRejectsBadInputWithLocation) {
  auto e = Open();
  ASSERT_TRUE(e->CreateCollection(Spec()).ok());
  SearchRequest r;
  r.query = "wolf";
  r.dialect = FilterDialect::kRetrieve;
  r.filter = R"({"op":"ge","lhs":{"knowledge":"level"},"rhs":{"value":"high"}})";
  StatusOr<SearchResponse> s = e->Search("lore", r);
  ASSERT_TRUE(s.ok());
  ASSERT_TRUE(s->rejected);
  EXPECT_EQ(s->rejected->code, 3007);
  EXPECT_NE(s->rejected->message.find("rhs"), std::string::npos) << s->rejected->message;
  r = SearchRequest{};
  r.vector = std::vector<float>{1, 2, 3};
  s = e->Search("lore", r);
  ASSERT_TRUE(s.ok());
  ASSERT_TRUE(s->rejected);
  EXPECT_NE(s->rejected->message.find("vector"), std::string::npos) << s->rejected->message;
  EXPECT_EQ(e->Search("nope", r).status().code(), StatusCode::kNotFound);
  r = SearchRequest{};
  r.query = "wolf last friday";
  r.anchor = "2025-02-30";
  s = e->Search("lore", r);
  ASSERT_TRUE(s.ok());
  ASSERT_TRUE(s->rejected);
  EXPECT_EQ(s->rejected->kind, "query.invalid_anchor");
  EXPECT_EQ(s->rejected->path, "anchor");
}

// FILTERS.md §1.6: a retrieve configuration's filter is replaced atomically
// while searches run; a bad filter keeps the old one (3007); blank clears.
TEST_F(EngineTest, RetrieveConfigurationsSurviveReopenAndGoWithTheirCollection) {
  const std::string filter = R"({"op":"ge","lhs":{"knowledge":"level"},"rhs":{"value":3}})";
  {
    std::unique_ptr<Engine> e = Open();
    ASSERT_TRUE(e->CreateCollection(Spec()).ok());
    RetrieveSpec spec{"npc", "lore", FilterDialect::kRetrieve, "", 7, 0.25, SearchMode::kText};
    ASSERT_FALSE(e->PutRetrieve(spec).value());
    spec.name = "other";
    ASSERT_FALSE(e->PutRetrieve(spec).value());
    ASSERT_FALSE(e->SetRetrieveFilter("npc", FilterDialect::kRetrieve, filter).value());
  }
  std::unique_ptr<Engine> e = Open();
  StatusOr<RetrieveSpec> npc = e->GetRetrieve("npc");
  ASSERT_TRUE(npc.ok()) << npc.status().message();
  EXPECT_EQ(npc->filter, filter);
  EXPECT_EQ(npc->top_k, 7u);
  EXPECT_EQ(npc->threshold, 0.25);
  EXPECT_EQ(npc->mode, SearchMode::kText);
  EXPECT_EQ(e->ListRetrieves().size(), 2u);
  ASSERT_TRUE(e->DropCollection("lore").ok());
  EXPECT_TRUE(e->ListRetrieves().empty());
  ASSERT_TRUE(e->CreateCollection(Spec()).ok());
  e.reset();
  e = Open();
  EXPECT_TRUE(e->ListRetrieves().empty()) << "dropping a collection drops its configurations";
}

TEST_F(EngineTest, RetrieveFilterSwapsAtomically) {
  auto e = Open();
  ASSERT_TRUE(e->CreateCollection(Spec()).ok());
  std::mt19937 rng(4);
  std::vector<std::string> records;
  for (int i = 0; i < 200; ++i) records.push_back(Record(i, rng));
  ASSERT_TRUE(Ingest(*e, records).ok());
  const std::string low = R"({"op":"lt","lhs":{"knowledge":"level"},"rhs":{"value":5}})";
  const std::string high = R"({"op":"ge","lhs":{"knowledge":"level"},"rhs":{"value":15}})";
  RetrieveSpec spec{"npc", "lore", FilterDialect::kRetrieve, low, 20, 0.5, SearchMode::kText};
  StatusOr<std::optional<Diagnostic>> put = e->PutRetrieve(spec);
  ASSERT_TRUE(put.ok() && !put->has_value());

  StatusOr<std::optional<Diagnostic>> bad =
      e->SetRetrieveFilter("npc", FilterDialect::kRetrieve,
                           R"({"op":"ge","lhs":{"knowledge":"nope"},"rhs":{"value":1}})");
  ASSERT_TRUE(bad.ok() && bad->has_value());
  EXPECT_EQ((*bad)->code, 3007);
  EXPECT_EQ(e->GetRetrieve("npc")->filter, low) << "a bad filter keeps the old one";

  // The level of each hit, read back from its record.
  auto levels = [](const SearchResponse& r) {
    std::vector<int> out;
    for (const SearchHit& h : r.hits) {
      const std::size_t at = h.record.find("\"level\":");
      out.push_back(at == std::string::npos ? 0 : std::stoi(h.record.substr(at + 8)));
    }
    return out;
  };
  std::atomic<bool> stop{false};
  std::atomic<int> mixed{0}, runs{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 3; ++t) {
    readers.emplace_back([&] {
      while (!stop.load()) {
        StatusOr<SearchResponse> r = e->Retrieve("npc", "wolf OR river OR mage OR salt");
        if (!r.ok() || r->rejected) {
          ++mixed;
          continue;
        }
        bool all_low = true, all_high = true;
        for (int level : levels(*r)) {
          all_low = all_low && level < 5;
          all_high = all_high && level >= 15;
        }
        if (!r->hits.empty() && !all_low && !all_high) ++mixed;
        ++runs;
      }
    });
  }
  for (int i = 0; i < 200; ++i) {
    ASSERT_TRUE(e->SetRetrieveFilter("npc", FilterDialect::kRetrieve, i % 2 ? low : high).ok());
    StatusOr<std::optional<Diagnostic>> b =
        e->SetRetrieveFilter("npc", FilterDialect::kRetrieve, "{\"op\":");
    ASSERT_TRUE(b.ok() && b->has_value());
  }
  while (runs.load() < 50) std::this_thread::yield();
  stop = true;
  for (std::thread& t : readers) t.join();
  EXPECT_EQ(mixed.load(), 0) << "a search saw a mix of two filters";

  ASSERT_TRUE(e->SetRetrieveFilter("npc", FilterDialect::kRetrieve, "  ").ok());
  EXPECT_EQ(e->GetRetrieve("npc")->filter, "");
  StatusOr<SearchResponse> all = e->Retrieve("npc", "wolf OR river OR mage OR salt");
  ASSERT_TRUE(all.ok());
  std::vector<int> seen = levels(*all);
  EXPECT_TRUE(std::any_of(seen.begin(), seen.end(), [](int l) { return l >= 5 && l < 15; }))
      << "a cleared filter keeps everything";
}

// Searches, gets and checkpoints while another thread writes and deletes:
// every search sees a whole batch or none of it (TSan runs this in CI).
TEST_F(EngineTest, ConcurrentSearchesDuringWrites) {
  auto e = Open();
  ASSERT_TRUE(e->CreateCollection(Spec()).ok());
  std::mt19937 rng(5);
  std::vector<std::vector<std::string>> batches(12);
  for (int b = 0; b < 12; ++b) {
    for (int i = 0; i < 20; ++i) batches[b].push_back(Record(b * 20 + i, rng));
  }
  std::atomic<bool> stop{false};
  std::atomic<int> errors{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 2; ++t) {
    readers.emplace_back([&, t] {
      std::mt19937 local(static_cast<unsigned>(t));
      while (!stop.load()) {
        SearchRequest r;
        r.query = kWords[local() % 12];
        r.vector = std::vector<float>(8, 0.25f);
        r.k = 50;
        r.dialect = FilterDialect::kVectorFilter;
        r.filter = R"({"level":{"$lt":10}})";
        StatusOr<SearchResponse> s = e->Search("lore", r);
        if (!s.ok() || s->rejected) ++errors;
        // Batches are written whole: the count of records is a multiple of 20.
        StatusOr<CollectionInfo> info = e->DescribeCollection("lore");
        if (!info.ok() || info->records % 20 != 0) ++errors;
        (void)e->Get("lore", "r7");
      }
    });
  }
  for (int b = 0; b < 12; ++b) {
    ASSERT_TRUE(Ingest(*e, batches[b]).ok());
    if (b % 4 == 3) {
      std::vector<std::string> ids;
      for (int i = 0; i < 20; ++i) ids.push_back("r" + std::to_string((b - 2) * 20 + i));
      ASSERT_TRUE(e->Delete("lore", ids).ok());
      ASSERT_TRUE(e->Checkpoint("lore").ok());
    }
  }
  stop = true;
  for (std::thread& t : readers) t.join();
  EXPECT_EQ(errors.load(), 0);
  EXPECT_EQ(e->DescribeCollection("lore")->records, 12u * 20 - 3 * 20);
}

TEST_F(EngineTest, ASecondOpenOfTheStoreIsRefused) {
  auto e = Open();
  StatusOr<std::unique_ptr<Engine>> second = Engine::Open(dir_.string());
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(second.status().message(),
            "store " + dir_.string() + " is already open in this process (engram)");
  e.reset();
  EXPECT_TRUE(Engine::Open(dir_.string()).ok());
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

// Checkpoints happen in the background, by records written and by time, so
// that a crash replays only what came after the last one.
TEST_F(EngineTest, CheckpointsRunInTheBackground) {
  auto snapshot_seq = [&](const char* name) -> std::uint64_t {
    StatusOr<std::unique_ptr<storage::Store>> store = storage::OpenSqliteStore(dir_.string());
    if (!store.ok()) return 0;
    StatusOr<std::optional<storage::Snapshot>> snap = (*store)->GetSnapshot("lore", name);
    return snap.ok() && snap->has_value() ? (*snap)->seq : 0;
  };
  auto wait_for = [&](const char* name, std::uint64_t above) {
    for (int i = 0; i < 400 && snapshot_seq(name) <= above; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return snapshot_seq(name);
  };
  std::mt19937 rng(17);
  Engine::Options by_records;
  by_records.checkpoint_records = 100;
  by_records.checkpoint_interval_ms = 0;
  {
    StatusOr<std::unique_ptr<Engine>> e = Engine::Open(dir_.string(), by_records);
    ASSERT_TRUE(e.ok());
    ASSERT_TRUE((*e)->CreateCollection(Spec()).ok());
    std::vector<std::string> few;
    for (int i = 0; i < 40; ++i) few.push_back(Record(i, rng));
    ASSERT_TRUE(Ingest(**e, few).ok());
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    EXPECT_EQ(snapshot_seq("text"), 0u) << "40 records are below the threshold";
    std::vector<std::string> more;
    for (int i = 40; i < 140; ++i) more.push_back(Record(i, rng));
    ASSERT_TRUE(Ingest(**e, more).ok());
    EXPECT_GT(wait_for("text", 0), 0u);
    EXPECT_GT(wait_for("vector", 0), 0u);
  }
  const std::uint64_t closed = snapshot_seq("text");
  Engine::Options by_time;
  by_time.checkpoint_records = 1000000;
  by_time.checkpoint_interval_ms = 200;
  {
    StatusOr<std::unique_ptr<Engine>> e = Engine::Open(dir_.string(), by_time);
    ASSERT_TRUE(e.ok());
    std::vector<std::string> one = {Record(500, rng)};
    ASSERT_TRUE(Ingest(**e, one).ok());
    EXPECT_GT(wait_for("text", closed), closed);
    EXPECT_GT(wait_for("vector", closed), closed);
    EXPECT_TRUE((*e)->Get("lore", "r500").value().has_value());
  }
}

// A load that never pauses still gets checkpointed (checkpoints are due
// while writes go on), or a crash would replay the whole load.
TEST_F(EngineTest, CheckpointsRunUnderWritesThatNeverPause) {
  Engine::Options options;
  options.checkpoint_records = 50;
  options.checkpoint_interval_ms = 0;
  StatusOr<std::unique_ptr<Engine>> e = Engine::Open(dir_.string(), options);
  ASSERT_TRUE(e.ok());
  ASSERT_TRUE((*e)->CreateCollection(Spec()).ok());
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    std::mt19937 rng(23);
    for (int n = 0; !stop.load(); ++n) {
      std::vector<std::string> batch;
      for (int i = 0; i < 10; ++i) batch.push_back(Record(n * 10 + i, rng));
      ASSERT_TRUE(Ingest(**e, batch).ok());
    }
  });
  std::uint64_t seq = 0;
  for (int i = 0; i < 400 && seq == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    StatusOr<std::unique_ptr<storage::Store>> store = storage::OpenSqliteStore(dir_.string());
    ASSERT_TRUE(store.ok());
    StatusOr<std::optional<storage::Snapshot>> snap = (*store)->GetSnapshot("lore", "text");
    seq = snap.ok() && snap->has_value() ? (*snap)->seq : 0;
  }
  stop = true;
  writer.join();
  EXPECT_GT(seq, 0u) << "no checkpoint while the writes went on";
}

// A write that resolved a collection before it was dropped fails (NotFound)
// and never lands in a later collection of the same name: what every
// incarnation holds in memory is what the store holds, and a reopen agrees.
TEST_F(EngineTest, ConcurrentDropsNeverTakeAnotherIncarnationsWrites) {
  auto e = Open();
  ASSERT_TRUE(e->CreateCollection(Spec()).ok());
  std::atomic<bool> stop{false};
  std::atomic<int> unexpected{0}, written{0};
  std::vector<std::thread> writers;
  for (int t = 0; t < 2; ++t) {
    writers.emplace_back([&, t] {
      std::mt19937 local(static_cast<unsigned>(100 + t));
      for (int n = 0; !stop.load(); ++n) {
        std::vector<std::string> batch;
        for (int i = 0; i < 5; ++i) batch.push_back(Record(t * 1000000 + n * 5 + i, local));
        std::vector<std::string_view> views(batch.begin(), batch.end());
        StatusOr<WriteResult> r = e->Upsert("lore", views);
        if (r.ok() && !r->rejected) {
          ++written;
        } else if (!r.ok() && r.status().code() != StatusCode::kNotFound) {
          ++unexpected;
        }
      }
    });
  }
  for (int round = 0; round < 20; ++round) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ASSERT_TRUE(e->DropCollection("lore").ok());
    ASSERT_TRUE(e->CreateCollection(Spec()).ok());
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  stop = true;
  for (std::thread& t : writers) t.join();
  EXPECT_EQ(unexpected.load(), 0);
  EXPECT_GT(written.load(), 0);
  const std::set<std::string> in_memory = ListedIds(*e);
  e.reset();
  std::set<std::string> stored;
  for (const auto& [id, doc] : StoredDocs()) stored.insert(id);
  EXPECT_EQ(in_memory, stored);
  auto reopened = Open();
  EXPECT_EQ(ListedIds(*reopened), stored);
}

}  // namespace
}  // namespace engram
