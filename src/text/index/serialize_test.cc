// Serialize/Load: round trip, and every truncation or corruption rejected.
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "base/bytes.h"
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
    StatusOr<TextIndex> loaded = TextIndex::Load(bytes, 10);
    ASSERT_TRUE(loaded.ok()) << loaded.status().message();
    EXPECT_EQ(loaded->Serialize(), bytes);
    EXPECT_EQ(loaded->size(), 3u);
    EXPECT_FALSE(loaded->Contains(3));
    EXPECT_EQ(loaded->options().fields[1].weight, 0.5);
  }
}

// A frozen copy serialises to the index's image at the Freeze, whatever the
// index does after it (a checkpoint encodes the copy without the lock).
TEST(Serialize, FrozenCopyHoldsTheImageAtTheFreeze) {
  for (Stemmer s : {Stemmer::kNone, Stemmer::kEnglish, Stemmer::kDutch}) {
    TextIndex index = Small(s);
    const std::string want = index.Serialize();
    const FrozenTextIndex frozen = index.Freeze();
    index.Remove(0);
    index.Put(9, {"Hedgehogs", "replaced: winter gardens"});
    index.Put(12, {"new words", "zebra crossing"});
    EXPECT_EQ(frozen.Serialize(), want);
    EXPECT_NE(index.Serialize(), want);
    EXPECT_EQ(index.Freeze().Serialize(), index.Serialize());
  }
}

TEST(Serialize, LoadedIndexAcceptsUpdates) {
  TextIndex index = Small(Stemmer::kEnglish);
  StatusOr<TextIndex> loaded = TextIndex::Load(index.Serialize(), 10);
  ASSERT_TRUE(loaded.ok());
  loaded->Remove(0);
  index.Remove(0);
  loaded->Put(4, {"winter", "hedgehogs"});
  index.Put(4, {"winter", "hedgehogs"});
  EXPECT_EQ(loaded->Serialize(), index.Serialize());
}

TEST(Serialize, EveryTruncationIsRejected) {
  std::string bytes = Small(Stemmer::kEnglish).Serialize();
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    StatusOr<TextIndex> loaded = TextIndex::Load(bytes.substr(0, n), 10);
    ASSERT_FALSE(loaded.ok()) << n;
    EXPECT_EQ(loaded.status().code(), StatusCode::kCorruption);
    EXPECT_FALSE(loaded.status().message().empty());
  }
  EXPECT_FALSE(TextIndex::Load(bytes + "x", 10).ok());
}

TEST(Serialize, EveryByteFlipIsRejected) {
  std::string bytes = Small(Stemmer::kNone).Serialize();
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    for (int bit : {0, 3, 7}) {
      std::string bad = bytes;
      bad[i] = static_cast<char>(bad[i] ^ (1 << bit));
      EXPECT_FALSE(TextIndex::Load(bad, 10).ok()) << i << " bit " << bit;
    }
  }
}

// Document numbers at or past the caller's limit are refused before the
// per-document arrays are allocated, and so are images of version 1.
TEST(Serialize, LimitsAndOldVersionsAreRefused) {
  const std::string bytes = Small(Stemmer::kEnglish).Serialize();  // documents 0, 7, 9
  EXPECT_TRUE(TextIndex::Load(bytes, 10).ok());
  StatusOr<TextIndex> past = TextIndex::Load(bytes, 9);
  ASSERT_FALSE(past.ok());
  EXPECT_EQ(past.status().code(), StatusCode::kCorruption);
  EXPECT_EQ(past.status().message(), "text index image: bad document number");
  std::string old = bytes;
  old[8] = 1;  // version 1, checksum fixed
  old.resize(old.size() - 8);
  ByteWriter w;
  w.Fixed(Fnv1a64(old), 8);
  EXPECT_EQ(TextIndex::Load(old + w.out, 10).status().message(),
            "text index image: unsupported version");
}

// One index, one image: a varint written with a redundant byte reads back
// to the same values but is refused; so are claimed lengths the image
// cannot hold.
TEST(Serialize, NonCanonicalAndOversizedImagesAreRefused) {
  const std::string bytes = Small(Stemmer::kNone).Serialize();
  auto resealed = [](std::string body) {
    ByteWriter w;
    w.Fixed(Fnv1a64(body), 8);
    return body + w.out;
  };
  const std::string body = bytes.substr(0, bytes.size() - 8);
  ASSERT_EQ(body[12], 2);  // the field count, after the magic and the version
  std::string padded = body;
  padded.replace(12, 1, std::string("\x82\x00", 2));
  EXPECT_EQ(TextIndex::Load(resealed(padded), 10).status().message(),
            "text index image: non-canonical encoding");
  // A nine-group varint whose last group carries bits past 64.
  std::string wide = body;
  wide.replace(12, 1, std::string(9, '\x80') + "\x02");
  EXPECT_FALSE(TextIndex::Load(resealed(wide), 10).ok());
}

// A stemmed index keeps one forward list per document, its words; the
// words must name exactly the terms the document has postings of. Two
// indexes with the same words in swapped documents: the first image's
// postings with the second's document words are refused.
TEST(Serialize, DocumentWordsMustNameTheDocumentsTerms) {
  TextIndexOptions o;
  o.fields = {{"body", 1.0}};
  o.stemmer = Stemmer::kEnglish;
  TextIndex a(o), b(o);
  a.Put(0, {"apples"});
  a.Put(1, {"bananas"});
  b.Put(0, {"bananas"});
  b.Put(1, {"apples"});
  const std::string ia = a.Serialize(), ib = b.Serialize();
  ASSERT_EQ(ia.size(), ib.size());
  // The document words close the image, before the checksum: per document
  // a count (1) and a word's rank.
  const std::size_t words_at = ia.size() - 8 - 4;
  ASSERT_EQ(ia.substr(words_at, 4), std::string("\x01\x00\x01\x01", 4));
  ASSERT_EQ(ib.substr(words_at, 4), std::string("\x01\x01\x01\x00", 4));
  std::string spliced = ia.substr(0, words_at) + ib.substr(words_at, 4);
  ByteWriter w;
  w.Fixed(Fnv1a64(spliced), 8);
  StatusOr<TextIndex> loaded = TextIndex::Load(spliced + w.out, 2);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().message(), "text index image: document words disagree with its terms");
  // Each image alone loads, and a document removed after the load takes
  // its postings with it (its terms come from its words).
  StatusOr<TextIndex> whole = TextIndex::Load(ia, 2);
  ASSERT_TRUE(whole.ok()) << whole.status().message();
  whole->Remove(0);
  EXPECT_EQ(whole->data().Find("appl"), -1);
  EXPECT_GE(whole->data().Find("banana"), 0);
}

// Images hold the live documents only: removing documents shrinks them to
// what an index of the survivors writes.
TEST(Serialize, ImagesCarryNothingOfRemovedDocuments) {
  TextIndexOptions o;
  o.fields = {{"body", 1.0}};
  TextIndex index(o), survivors(o);
  for (std::uint32_t d = 0; d < 1000; ++d) index.Put(d, {"word" + std::to_string(d % 37)});
  for (std::uint32_t d = 0; d < 1000; ++d) {
    if (d % 100 == 99) {
      survivors.Put(d, {"word" + std::to_string(d % 37)});
    } else {
      index.Remove(d);
    }
  }
  EXPECT_EQ(index.Serialize(), survivors.Serialize());
  EXPECT_LT(index.Serialize().size(), 300u);
}

TEST(Serialize, GarbageIsRejected) {
  std::mt19937_64 rng(1);
  for (int i = 0; i < 200; ++i) {
    std::string junk(std::uniform_int_distribution<int>(0, 64)(rng), '\0');
    for (char& c : junk) c = static_cast<char>(rng());
    if (i % 2) junk.replace(0, std::min<std::size_t>(8, junk.size()), "ENGRMTXI");
    EXPECT_FALSE(TextIndex::Load(junk, 10).ok());
  }
}

// The fuzz target's seed images (tests/fuzz/seeds/text_index/) are exactly
// what Serialize writes today, so the fuzzer starts from valid images. With
// ENGRAM_WRITE_SEEDS=1 the test rewrites them first (after a format change).
TEST(Serialize, FuzzSeedsAreCurrentImages) {
  const std::string dir = "tests/fuzz/seeds/text_index/";
  TextIndexOptions o;
  o.fields = {{"body", 1.0}};
  // A small real index after churn: documents removed, replaced, and new
  // ones under freed numbers (Dutch stemming, three fields).
  TextIndexOptions three;
  three.fields = {{"title", 2.0}, {"body", 1.0}, {"tags", 0.5}};
  three.stemmer = Stemmer::kDutch;
  TextIndex churned(three);
  const char* texts[] = {"de fietsen", "fietsers rijden door de stad", "stad",
                         "Een huis",   "huizen aan de gracht",         "gracht huis",
                         "Wandelen",   "wandelaars in het park",       "park natuur"};
  for (std::uint32_t d = 0; d < 12; ++d) {
    churned.Put(d, {texts[d % 9], texts[(d + 1) % 9], texts[(d + 2) % 9]});
  }
  for (std::uint32_t d : {3u, 7u, 0u}) churned.Remove(d);
  churned.Put(7, {"nieuw", "een nieuwe fiets in de stad"});
  churned.Put(5, {"vervangen", "huis"});
  const std::vector<std::pair<std::string, std::string>> seeds = {
      {"small_0", Small(Stemmer::kNone).Serialize()},
      {"small_1", Small(Stemmer::kEnglish).Serialize()},
      {"churned_nl", churned.Serialize()},
      {"empty", TextIndex(o).Serialize()}};
  engram::testing::ExpectSeedFilesCurrent(dir, seeds);
}

}  // namespace
}  // namespace engram::text
