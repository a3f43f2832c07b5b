// The stopword lists compiled into the binary are the canonical files: what
// the build embedded equals the copies shipped in src/text/query/stopwords/,
// and those equal ../shared/data/jeffs_brain/stopwords/ byte for byte when
// that folder is beside the repository.
#include "text/query/stopwords.h"

#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "base/test_shared_data.h"

namespace engram::text {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot open " << path;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string Shipped(const std::string& name) {
  return ReadFile(std::string(ENGRAM_SOURCE_DIR "/src/text/query/stopwords/") + name);
}

TEST(Stopwords, ShippedListsEqualTheCanonicalFiles) {
  ENGRAM_READ_SHARED_OR_SKIP(en, ENGRAM_SOURCE_DIR, "jeffs_brain/stopwords/en.json");
  ENGRAM_READ_SHARED_OR_SKIP(nl, ENGRAM_SOURCE_DIR, "jeffs_brain/stopwords/nl.json");
  EXPECT_EQ(Shipped("en.json"), en);
  EXPECT_EQ(Shipped("nl.json"), nl);
}

TEST(Stopwords, ShippedLicenceEqualsTheCanonicalOne) {
  ENGRAM_READ_SHARED_OR_SKIP(licence, ENGRAM_SOURCE_DIR, "jeffs_brain/LICENSE");
  ENGRAM_READ_SHARED_OR_SKIP(notice, ENGRAM_SOURCE_DIR, "jeffs_brain/NOTICE");
  EXPECT_EQ(Shipped("LICENSE"), licence);
  EXPECT_EQ(Shipped("NOTICE"), notice);
}

TEST(Stopwords, EmbeddedBytesEqualTheShippedFiles) {
  EXPECT_EQ(EnglishStopwordsJson(),
            ReadFile(ENGRAM_SOURCE_DIR "/src/text/query/stopwords/en.json"));
  EXPECT_EQ(DutchStopwordsJson(), ReadFile(ENGRAM_SOURCE_DIR "/src/text/query/stopwords/nl.json"));
}

TEST(Stopwords, BothLanguages) {
  EXPECT_TRUE(IsStopword("the"));
  EXPECT_TRUE(IsStopword("suggestions"));
  EXPECT_TRUE(IsStopword("het"));
  EXPECT_TRUE(IsStopword("een"));
  EXPECT_FALSE(IsStopword("hedgehog"));
  EXPECT_FALSE(IsStopword("The"));  // callers pass lower-cased words
  EXPECT_FALSE(IsStopword(""));
}

}  // namespace
}  // namespace engram::text
