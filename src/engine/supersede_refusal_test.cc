// Supersession's refusals and edges through the public API: bad supersedes
// and as_of refused with their place, page tokens bound to as_of, and
// superseded records that are no duplicates' originals.
#include <atomic>
#include <chrono>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "engine/testing/supersede_fixture.h"
#include "engram/engine.h"

namespace engram {
namespace {

using std::chrono::microseconds;
using testing::ChainNote;
using testing::Clock;
using testing::Ids;
using testing::kAlice;
using testing::kBob;
using testing::kT1;
using testing::kT2;
using testing::kT3;

using testing::SupersedeTest;
using testing::Text;

struct Refusal {
  std::string supersedes;
  std::string path;
  std::string message;
};

TEST_F(SupersedeTest, RefusesBadSupersedesWithTheirPlace) {
  std::string many = "[";
  for (int i = 0; i < 65; ++i)
    many += std::string(i > 0 ? "," : "") + "\"k" + std::to_string(i) + "\"";
  many += "]";
  const std::vector<Refusal> cases = {
      {R"("a")", "supersedes", "expected an array of record ids, got string"},
      {R"(["b",3])", "supersedes[1]", "expected a non-empty record id, got int"},
      {R"(["b",""])", "supersedes[1]", "expected a non-empty record id"},
      {R"(["b","b"])", "supersedes[1]", "'b' is named twice"},
      {R"(["m"])", "supersedes[0]", "a record cannot supersede itself"},
      {many, "supersedes", "names 65 records; at most 64"},
  };
  for (const Refusal& r : cases) {
    const WriteResult w =
        Write(kT3 + std::chrono::hours(1),
              {ChainNote("ok", "alice", ""), ChainNote("m", "alice", r.supersedes)});
    ASSERT_TRUE(w.rejected) << r.supersedes;
    EXPECT_EQ(w.rejected_index, 1u);
    EXPECT_EQ(w.rejected->kind, "record.invalid");
    EXPECT_EQ(w.rejected->path, r.path) << r.supersedes;
    EXPECT_NE(w.rejected->message.find(r.message), std::string::npos) << w.rejected->message;
  }
  const WriteResult reserved = Write(
      kT3,
      {R"({"id":"r","content":"x","type":"fact","agent_id":"alice","updated_at":"2026-01-01","@version":{}})"});
  ASSERT_TRUE(reserved.rejected);
  EXPECT_EQ(reserved.rejected->path, "@version");
  EXPECT_EQ(Visible(""), (Ids{"c", "n"}));  // nothing written
}

TEST_F(SupersedeTest, RefusesABadAsOfOnEveryRead) {
  const std::string bad = "yesterday";
  SearchRequest search;
  search.query = "river";
  search.as_of = bad;
  StatusOr<SearchResponse> s = engine_->Search("notes", search);
  ASSERT_TRUE(s.ok() && s->rejected);
  EXPECT_EQ(s->rejected->path, "as_of");
  RecordSelection selection{std::nullopt, std::nullopt, "", bad};
  StatusOr<CountResponse> count = engine_->Count("notes", selection);
  ASSERT_TRUE(count.ok() && count->rejected);
  EXPECT_EQ(count->rejected->path, "as_of");
  ListRequest list;
  list.selection = selection;
  EXPECT_EQ(engine_->List("notes", list)->rejected->path, "as_of");
  GetRequest get;
  get.as_of = bad;
  EXPECT_EQ(engine_->Get("notes", "c", get)->rejected->path, "as_of");
}

TEST_F(SupersedeTest, PageTokenIsBoundToAsOf) {
  ListRequest list;
  list.selection.as_of = Text(kT2);
  list.page_size = 1;
  StatusOr<ListResponse> first = engine_->List("notes", list);
  ASSERT_TRUE(first.ok() && !first->rejected && !first->next_page_token.empty());
  list.page_token = first->next_page_token;
  list.selection.as_of = Text(kT3);
  StatusOr<ListResponse> other = engine_->List("notes", list);
  ASSERT_TRUE(other.ok() && other->rejected);
  EXPECT_EQ(other->rejected->path, "page_token");
}

TEST_F(SupersedeTest, SupersededRecordsAreNoDuplicatesOriginals) {
  StatusOr<SchemaRef> schema = SchemaRef::Load("preset:notes");
  CollectionSpec spec{"dedup", schema.value(), {{"content", 1.0}}, 0, "cosine", "en", ""};
  spec.dedup = DedupSpec{DedupMode::kExact, 0};
  ASSERT_TRUE(engine_->CreateCollection(spec).ok());
  auto write = [&](const std::string& record) {
    const std::vector<std::string_view> views = {record};
    return *engine_->Upsert("dedup", views);
  };
  write(ChainNote("p", "alice", "", "the mill is red"));
  write(ChainNote("q", "alice", R"(["p"])", "the mill is blue"));
  // Saying again what p said makes it a current fact again: no duplicate.
  const WriteResult again = write(ChainNote("r", "alice", "", "the mill is red"));
  EXPECT_TRUE(again.deduplicated.empty());
  EXPECT_EQ(again.written, 1u);
  // A current record's duplicate is skipped and supersedes nothing.
  const WriteResult dup = write(ChainNote("s", "alice", R"(["q"])", "the mill is red"));
  ASSERT_EQ(dup.deduplicated.size(), 1u);
  EXPECT_TRUE(dup.superseded.empty());
  EXPECT_TRUE(engine_->Get("dedup", "q")->has_value());
}

}  // namespace
}  // namespace engram
