#include "embed/fasttext_embedder.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "embed/test_fasttext.h"

namespace engram::embed {
namespace {

class FastTextTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(std::filesystem::temp_directory_path() /
                           ("engram_ft_" + std::to_string(::getpid())));
    model_ = new std::string(testing::TrainTopicsModel(".", *dir_));
  }
  static void TearDownTestSuite() {
    std::filesystem::remove_all(*dir_);
    delete dir_;
    delete model_;
  }
  void SetUp() override { ASSERT_FALSE(model_->empty()) << "fasttext could not train a model"; }

  static std::string* dir_;
  static std::string* model_;
};
std::string* FastTextTest::dir_ = nullptr;
std::string* FastTextTest::model_ = nullptr;

// What `fasttext print-sentence-vectors` (the reference's own command, which
// calls getSentenceVector per line) prints for `lines`.
std::vector<std::vector<float>> Reference(const std::string& model,
                                          const std::vector<std::string>& lines,
                                          const std::string& dir) {
  const std::string input = dir + "/lines.txt";
  std::ofstream(input) << [&] {
    std::string all;
    for (const auto& l : lines) all += l + "\n";
    return all;
  }();
  const std::string command = "fasttext print-sentence-vectors '" + model + "' < '" + input + "'";
  std::FILE* p = ::popen(command.c_str(), "r");
  std::vector<std::vector<float>> out;
  char buf[1 << 14];
  while (p != nullptr && std::fgets(buf, sizeof buf, p) != nullptr) {
    std::istringstream row(buf);
    out.emplace_back();
    for (float x; row >> x;) out.back().push_back(x);
  }
  if (p != nullptr) ::pclose(p);
  return out;
}

TEST_F(FastTextTest, MatchesFastTextsSentenceVectors) {
  StatusOr<std::unique_ptr<FastTextEmbedder>> e = FastTextEmbedder::Open(*model_);
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ((*e)->identity().kind, "fasttext");
  EXPECT_EQ((*e)->identity().model, "topics.bin");
  EXPECT_EQ((*e)->identity().dimension, 32u);
  EXPECT_EQ((*e)->identity().fingerprint.size(), 7u + 64u);
  const std::vector<std::string> lines = {"the puppy chewed the leash",
                                          "Unknown words like zzqx and émigré",
                                          "guitar  chord\tmelody", "", "a"};
  const auto want = Reference(*model_, lines, *dir_);
  ASSERT_EQ(want.size(), lines.size());
  std::vector<std::string_view> texts(lines.begin(), lines.end());
  StatusOr<std::vector<std::vector<float>>> got = (*e)->Embed(texts);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  for (std::size_t i = 0; i < lines.size(); ++i) {
    SCOPED_TRACE(lines[i]);
    ASSERT_EQ((*got)[i].size(), 32u);
    // The reference prints 5 significant digits.
    for (std::size_t j = 0; j < 32; ++j) {
      EXPECT_NEAR((*got)[i][j], want[i][j], 1e-4 + 1e-4 * std::fabs(want[i][j]));
    }
  }
}

TEST_F(FastTextTest, LineBreaksAreSpaces) {
  StatusOr<std::unique_ptr<FastTextEmbedder>> e = FastTextEmbedder::Open(*model_);
  ASSERT_TRUE(e.ok());
  const std::string_view texts[] = {"rain storm\nthunder cloud", "rain storm thunder cloud"};
  auto v = (*e)->Embed(texts);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ((*v)[0], (*v)[1]);
}

TEST_F(FastTextTest, RefusesMissingAndForeignFiles) {
  StatusOr<std::unique_ptr<FastTextEmbedder>> missing = FastTextEmbedder::Open(*dir_ + "/no.bin");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  const std::string junk = *dir_ + "/junk.bin";
  std::ofstream(junk) << "not a fastText model";
  StatusOr<std::unique_ptr<FastTextEmbedder>> bad = FastTextEmbedder::Open(junk);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.status().message(), "fasttext: " + junk + ": " + junk + " has wrong file format!");
}

}  // namespace
}  // namespace engram::embed
