// Serialize/Load: round trip, and every truncation or corruption rejected.
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "base/test_seed_files.h"
#include "text/index/text_index.h"

namespace engram::text {
namespace {

TextIndex Small(Stemmer stemmer) {
  TextIndexOptions o;
  o.fields = {{"title", 2.0}, {"body", 0.5}};
  o.stemmer = stemmer;
  TextIndex index(o);
  index.Put(0, {"Hedgehogs in winter", "The hedgehog sleeps through the winter."});
  index.Put(3, {"Urban gardens", "Gardens and parks in the city"});
  index.Put(7, {"", "running runners run"});
  index.Remove(3);
  index.Put(9, {"Parks", "urban parks and gardens"});
  return index;
}

TEST(Serialize, RoundTripIsByteIdentical) {
  for (Stemmer s : {Stemmer::kNone, Stemmer::kEnglish, Stemmer::kDutch}) {
    TextIndex index = Small(s);
    std::string bytes = index.Serialize();
    std::string error;
    std::optional<TextIndex> loaded = TextIndex::Load(bytes, &error);
    ASSERT_TRUE(loaded.has_value()) << error;
    EXPECT_EQ(loaded->Serialize(), bytes);
    EXPECT_EQ(loaded->size(), 3u);
    EXPECT_FALSE(loaded->Contains(3));
    EXPECT_EQ(loaded->options().fields[1].weight, 0.5);
  }
}

TEST(Serialize, LoadedIndexAcceptsUpdates) {
  TextIndex index = Small(Stemmer::kEnglish);
  std::optional<TextIndex> loaded = TextIndex::Load(index.Serialize(), nullptr);
  ASSERT_TRUE(loaded.has_value());
  loaded->Remove(0);
  index.Remove(0);
  loaded->Put(4, {"winter", "hedgehogs"});
  index.Put(4, {"winter", "hedgehogs"});
  EXPECT_EQ(loaded->Serialize(), index.Serialize());
}

TEST(Serialize, EveryTruncationIsRejected) {
  std::string bytes = Small(Stemmer::kEnglish).Serialize();
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    std::string error;
    EXPECT_FALSE(TextIndex::Load(bytes.substr(0, n), &error).has_value()) << n;
    EXPECT_FALSE(error.empty());
  }
  EXPECT_FALSE(TextIndex::Load(bytes + "x", nullptr).has_value());
}

TEST(Serialize, EveryByteFlipIsRejected) {
  std::string bytes = Small(Stemmer::kNone).Serialize();
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    for (int bit : {0, 3, 7}) {
      std::string bad = bytes;
      bad[i] = static_cast<char>(bad[i] ^ (1 << bit));
      EXPECT_FALSE(TextIndex::Load(bad, nullptr).has_value()) << i << " bit " << bit;
    }
  }
}

TEST(Serialize, GarbageIsRejected) {
  std::mt19937_64 rng(1);
  for (int i = 0; i < 200; ++i) {
    std::string junk(std::uniform_int_distribution<int>(0, 64)(rng), '\0');
    for (char& c : junk) c = static_cast<char>(rng());
    if (i % 2) junk.replace(0, std::min<std::size_t>(8, junk.size()), "ENGRMTXI");
    EXPECT_FALSE(TextIndex::Load(junk, nullptr).has_value());
  }
}

// The fuzz target's seed images (tests/fuzz/seeds/text_index/) are exactly
// what Serialize writes today, so the fuzzer starts from valid images. With
// ENGRAM_WRITE_SEEDS=1 the test rewrites them first (after a format change).
TEST(Serialize, FuzzSeedsAreCurrentImages) {
  const std::string dir = "tests/fuzz/seeds/text_index/";
  TextIndexOptions o;
  o.fields = {{"body", 1.0}};
  const std::vector<std::pair<std::string, std::string>> seeds = {
      {"small_0", Small(Stemmer::kNone).Serialize()},
      {"small_1", Small(Stemmer::kEnglish).Serialize()},
      {"empty", TextIndex(o).Serialize()}};
  engram::testing::ExpectSeedFilesCurrent(dir, seeds);
}

}  // namespace
}  // namespace engram::text
