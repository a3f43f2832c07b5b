// Deduplication on write through the engine (engine.h, DedupSpec): exact
// (normalised content) and near (given or embedded vectors), within one
// owner, with tenancy, within a batch, after deletes and expiry, and across
// reopening.
#include "engine/dedup.h"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/testing/dedup_fixture.h"
#include "engine/testing/test_clock.h"
#include "engram/embedder.h"
#include "engram/engine.h"

namespace engram {
namespace {

using testing::DedupTest;
using testing::kDedupSchema;
namespace fs = std::filesystem;

TEST(NormalizeContent, NfcCaseFoldedWhitespaceCollapsed) {
  using engine::NormalizeContent;
  // "é" precomposed (U+00E9) and decomposed (e + U+0301); a no-break space and a tab.
  EXPECT_EQ(NormalizeContent({"  Caf\xC3\xA9\xC2\xA0 au\tLAIT  "}),
            NormalizeContent({"cafe\xCC\x81 au lait"}));
  EXPECT_EQ(NormalizeContent({"Stra\xC3\x9F"
                              "e"}),
            NormalizeContent({"STRASSE"}))
      << "full folding";
  EXPECT_NE(NormalizeContent({"a", "b"}), NormalizeContent({"a b", ""})) << "fields stay apart";
  EXPECT_NE(engine::ContentHash("alice", "x"), engine::ContentHash("bob", "x"));
  EXPECT_NE(engine::ContentHash(std::nullopt, "x"), engine::ContentHash("alice", "x"));
}

TEST(ParseDedup, FormsAndErrors) {
  EXPECT_EQ(ParseDedup("off")->mode, DedupMode::kOff);
  EXPECT_EQ(ParseDedup("exact")->mode, DedupMode::kExact);
  EXPECT_DOUBLE_EQ(ParseDedup("near:0.92")->threshold, 0.92);
  EXPECT_EQ(DedupText(*ParseDedup("near:0.92")), "near:0.92");
  EXPECT_NE(ParseDedup("near:x").status().message().find("threshold 'x'"), std::string::npos);
  EXPECT_FALSE(ParseDedup("fuzzy").ok());
  // The action: skip by default, refresh when named.
  EXPECT_EQ(ParseDedup("exact")->action, DedupAction::kSkip);
  EXPECT_EQ(ParseDedup("exact:refresh")->action, DedupAction::kRefresh);
  EXPECT_EQ(DedupText(*ParseDedup("exact:refresh")), "exact:refresh");
  EXPECT_EQ(DedupText(*ParseDedup("exact:skip")), "exact");
  const DedupSpec near = *ParseDedup("near:0.9:refresh");
  EXPECT_DOUBLE_EQ(near.threshold, 0.9);
  EXPECT_EQ(near.action, DedupAction::kRefresh);
  EXPECT_EQ(DedupText(near), "near:0.9:refresh");
  EXPECT_FALSE(ParseDedup("off:refresh").ok());
  EXPECT_FALSE(ParseDedup("exact:sometimes").ok());
  EXPECT_FALSE(ParseDedup("near:0.9:refresh:refresh").ok());
  EXPECT_FALSE(ParseDedup(":refresh").ok());
}

TEST_F(DedupTest, ExactWithinOneOwnerOnly) {
  auto e = Open();
  ASSERT_TRUE(e->CreateCollection(Spec("exact")).ok());
  WriteResult first = Put(*e, {Note("a1", "alice", "The river  floods in SPRING"),
                               Note("b1", "bob", "the river floods in spring")});
  EXPECT_EQ(first.written, 2u) << "bob's equal text is not alice's duplicate";
  EXPECT_TRUE(first.deduplicated.empty());
  WriteResult again = Put(*e, {Note("a2", "alice", "the river floods in spring"),
                               Note("a3", "alice", "the river floods in autumn"),
                               Note("a4", "alice", " THE RIVER floods in spring ")});
  EXPECT_EQ(again.written, 1u);
  ASSERT_EQ(again.deduplicated.size(), 2u);
  EXPECT_EQ(again.deduplicated[0].index, 0u);
  EXPECT_EQ(again.deduplicated[0].id, "a2");
  EXPECT_EQ(again.deduplicated[0].duplicate_of, "a1");
  EXPECT_FALSE(again.deduplicated[0].similarity);
  EXPECT_EQ(again.deduplicated[1].index, 2u);
  EXPECT_EQ(again.deduplicated[1].duplicate_of, "a1");
  EXPECT_EQ(Count(*e), 3u);
  EXPECT_FALSE(e->Get("mem", "a2", std::nullopt, "alice")->has_value()) << "skipped, not written";
  // A scoped writer (tenancy): carol's copy of alice's text is hers to keep,
  // and her own duplicate is reported against her own record.
  const Scope carol{"carol", ReadProfile::kAllScopes};
  EXPECT_EQ(Put(*e, {Note("c1", "carol", "the river floods in spring")}, carol).written, 1u);
  WriteResult own = Put(*e, {Note("c2", "carol", "The river floods in spring.")}, carol);
  EXPECT_EQ(own.written, 1u) << "a trailing period is other content";
  own = Put(*e, {Note("c3", "carol", "the river floods in spring")}, carol);
  ASSERT_EQ(own.deduplicated.size(), 1u);
  EXPECT_EQ(own.deduplicated[0].duplicate_of, "c1");
}

TEST_F(DedupTest, WithinABatchAndAgainstReplacedOrDeletedRecords) {
  auto e = Open();
  ASSERT_TRUE(e->CreateCollection(Spec("exact")).ok());
  WriteResult batch = Put(*e, {Note("a1", "alice", "salt"), Note("a2", "alice", "SALT")});
  EXPECT_EQ(batch.written, 1u);
  ASSERT_EQ(batch.deduplicated.size(), 1u);
  EXPECT_EQ(batch.deduplicated[0].duplicate_of, "a1");
  EXPECT_EQ(Put(*e, {Note("a1", "alice", "salt")}).written, 1u)
      << "rewriting itself is no duplicate";
  // a1 changes to pepper in the batch that writes salt again as a3: a3 is new.
  WriteResult moved = Put(*e, {Note("a1", "alice", "pepper"), Note("a3", "alice", "salt")});
  EXPECT_EQ(moved.written, 2u);
  EXPECT_TRUE(moved.deduplicated.empty());
  const std::vector<std::string> ids = {"a3"};
  ASSERT_TRUE(e->Delete("mem", ids, std::nullopt, "alice").ok());
  EXPECT_EQ(Put(*e, {Note("a4", "alice", "salt")}).written, 1u) << "a deleted record is gone";
}

TEST_F(DedupTest, TheIndexIsRebuiltOnReopen) {
  {
    auto e = Open();
    ASSERT_TRUE(e->CreateCollection(Spec("exact")).ok());
    Put(*e, {Note("a1", "alice", "wolf at the mill"), Note("b1", "bob", "wolf at the mill")});
  }
  auto e = Open();
  EXPECT_EQ(e->DescribeCollection("mem")->spec.dedup.mode, DedupMode::kExact);
  WriteResult w = Put(*e, {Note("a2", "alice", "Wolf at the Mill"), Note("b2", "bob", "wolf")});
  EXPECT_EQ(w.written, 1u);
  ASSERT_EQ(w.deduplicated.size(), 1u);
  EXPECT_EQ(w.deduplicated[0].duplicate_of, "a1");
}

TEST_F(DedupTest, NearBySimilarityPerOwnerAndAcrossReopen) {
  {
    auto e = Open();
    ASSERT_TRUE(e->CreateCollection(Spec("near:0.95", 3)).ok());
    EXPECT_EQ(Put(*e, {Vec("a1", "alice", "[1,0,0]"), Vec("b1", "bob", "[0,1,0]")}).written, 2u);
    // cos([1,0.1,0], [1,0,0]) = 0.995: a duplicate; [1,1,0] at 0.707 is not.
    WriteResult w = Put(*e, {Vec("a2", "alice", "[1,0.1,0]"), Vec("a3", "alice", "[1,1,0]"),
                             Vec("b2", "bob", "[1,0,0]")});
    EXPECT_EQ(w.written, 2u) << "bob's [1,0,0] is not alice's duplicate";
    ASSERT_EQ(w.deduplicated.size(), 1u);
    EXPECT_EQ(w.deduplicated[0].id, "a2");
    EXPECT_EQ(w.deduplicated[0].duplicate_of, "a1");
    EXPECT_NEAR(*w.deduplicated[0].similarity, 1 / std::sqrt(1.01), 1e-6);
    // Within one batch: the second of two near records of one owner.
    w = Put(*e, {Vec("a4", "alice", "[0,0,1]"), Vec("a5", "alice", "[0,0.01,1]")});
    ASSERT_EQ(w.deduplicated.size(), 1u);
    EXPECT_EQ(w.deduplicated[0].duplicate_of, "a4");
  }
  auto e = Open();
  EXPECT_EQ(DedupText(e->DescribeCollection("mem")->spec.dedup), "near:0.95");
  WriteResult w = Put(*e, {Vec("b3", "bob", "[0.01,1,0]")});
  ASSERT_EQ(w.deduplicated.size(), 1u);
  EXPECT_EQ(w.deduplicated[0].duplicate_of, "b1");
}

TEST_F(DedupTest, SpecsAreChecked) {
  auto e = Open();
  EXPECT_EQ(e->CreateCollection(Spec("near:0.9")).code(), StatusCode::kInvalidArgument)
      << "near needs vectors";
  EXPECT_EQ(e->CreateCollection(Spec("near:1.5", 3)).code(), StatusCode::kInvalidArgument);
  CollectionSpec no_text = Spec("exact", 3);
  no_text.text.clear();
  EXPECT_EQ(e->CreateCollection(no_text).code(), StatusCode::kInvalidArgument);
}

// An expired record (CollectionSpec::ttl_field, at or before the engine's
// clock) is invisible to every read, and purged: a fresh copy of it is no
// duplicate, and an expired record in a batch is nobody's original. Exact
// and near alike.
TEST_F(DedupTest, ExpiredRecordsAreNoOriginals) {
  std::unique_ptr<Engine> e;
  for (const char* dedup : {"exact", "near:0.95"}) {
    SCOPED_TRACE(dedup);
    e.reset();
    fs::remove_all(dir_);
    e = Open();
    clock_.Set("2026-04-01T00:00:00Z");
    CollectionSpec spec = Spec(dedup, 3);
    spec.ttl_field = "expires_at";
    ASSERT_TRUE(e->CreateCollection(spec).ok());
    EXPECT_EQ(Put(*e, {Expiring("a1", "salt", "2026-04-02T00:00:00Z")}).written, 1u);
    WriteResult w = Put(*e, {Expiring("a2", "SALT", "2026-05-01T00:00:00Z")});
    ASSERT_EQ(w.deduplicated.size(), 1u) << "a1 is current";
    EXPECT_EQ(w.deduplicated[0].duplicate_of, "a1");
    clock_.Set("2026-04-02T00:00:00Z");  // a1 expires at this instant
    w = Put(*e, {Expiring("a3", "salt", "2026-05-01T00:00:00Z")});
    EXPECT_EQ(w.written, 1u);
    EXPECT_TRUE(w.deduplicated.empty()) << "a1 expired: a3 is the one current copy";
    EXPECT_TRUE(e->Get("mem", "a3", std::nullopt, "alice")->has_value());
    // In one batch: an expired record is written (and purged later), and is
    // no original of the next.
    w = Put(*e, {Expiring("a4", "pepper", "2026-03-01T00:00:00Z", "[0,1,0]"),
                 Expiring("a5", "pepper", "2026-05-01T00:00:00Z", "[0,1,0]")});
    EXPECT_EQ(w.written, 2u);
    EXPECT_TRUE(w.deduplicated.empty());
  }
}

// Near dedup in a collection with an embedder: a record written without a
// vector is compared by the vector the embedder gives its text.
TEST_F(DedupTest, NearWithTheEmbeddersVectors) {
  const std::string model =
      "model2vec:src/embed/testdata/model2vec/test-model-vocab-quantized";  // 64-d (MIT)
  auto embedder = OpenEmbedder(ParseEmbedderSpec(model).value(), 0);
  ASSERT_TRUE(embedder.ok()) << embedder.status().message();
  const std::string_view texts[] = {"the storm over the hills", "fresh bread from the oven"};
  const std::vector<std::vector<float>> v = (*embedder)->Embed(texts).value();
  double dot = 0, aa = 0, bb = 0;
  for (std::size_t i = 0; i < v[0].size(); ++i) {
    dot += v[0][i] * v[1][i];
    aa += v[0][i] * v[0][i];
    bb += v[1][i] * v[1][i];
  }
  ASSERT_LT(dot / std::sqrt(aa * bb), 0.99) << "the two texts are apart under this model";
  auto e = Open();
  CollectionSpec spec = Spec("near:0.99");
  spec.embedder = model;
  ASSERT_TRUE(e->CreateCollection(spec).ok());
  EXPECT_EQ(Put(*e, {Note("a1", "alice", "the storm over the hills"),
                     Note("b1", "bob", "the storm over the hills")})
                .written,
            2u)
      << "bob's copy is not alice's duplicate";
  WriteResult w = Put(*e, {Note("a2", "alice", "the storm over the hills"),
                           Note("a3", "alice", "fresh bread from the oven")});
  EXPECT_EQ(w.written, 1u);
  ASSERT_EQ(w.deduplicated.size(), 1u);
  EXPECT_EQ(w.deduplicated[0].id, "a2");
  EXPECT_EQ(w.deduplicated[0].duplicate_of, "a1");
  EXPECT_NEAR(*w.deduplicated[0].similarity, 1.0, 1e-6);
}

}  // namespace
}  // namespace engram
