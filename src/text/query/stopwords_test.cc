// The stopword lists compiled into the binary are the canonical files: the
// copies shipped in src/text/query/stopwords/ equal
// ../shared/data/jeffs_brain/stopwords/ byte for byte, and so does what the
// build embedded.
#include "text/query/stopwords.h"

#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace engram::text {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot open " << path;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(Stopwords, ShippedCopiesEqualTheCanonicalFiles) {
  for (const char* name : {"en.json", "nl.json", "LICENSE", "NOTICE"}) {
    SCOPED_TRACE(name);
    const std::string shipped =
        ReadFile(std::string(ENGRAM_SOURCE_DIR "/src/text/query/stopwords/") + name);
    const std::string canonical_dir = std::string(name).find(".json") != std::string::npos
                                          ? "/../shared/data/jeffs_brain/stopwords/"
                                          : "/../shared/data/jeffs_brain/";
    const std::string canonical = ReadFile(ENGRAM_SOURCE_DIR + canonical_dir + name);
    EXPECT_FALSE(shipped.empty());
    EXPECT_EQ(shipped, canonical);
  }
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
