// The MCP memories with an embedder (`engram serve|mcp --embedder`): a
// fastText model trained here on the shipped topics corpus
// (src/embed/testdata/topics.txt) embeds every memory and query, so
// SearchMemory `basic` finds a memory by meaning when it shares no word with
// the query, and `score` is the fused relevance of SEARCH.md §5.
#include <algorithm>
#include <string>

#include "server/mcp/memory_store.h"
#include "src/embed/test_fasttext.h"
#include "tests/integration/mcp_test_support.h"

namespace engram::server::mcp {
namespace {
namespace mcp_embedder_test {

class McpEmbedderTest : public McpTest {
 protected:
  static void SetUpTestSuite() {
    model_dir_ = new std::string(std::filesystem::temp_directory_path() /
                                 ("engram_mcp_ft_" + std::to_string(getpid())));
    model_ = new std::string(embed::testing::TrainTopicsModel(ENGRAM_SOURCE_DIR, *model_dir_));
  }
  static void TearDownTestSuite() {
    std::filesystem::remove_all(*model_dir_);
    delete model_dir_;
    delete model_;
  }
  void SetUp() override {
    McpTest::SetUp();
    ASSERT_FALSE(model_->empty()) << "fasttext could not train the test model";
    McpOptions options;
    auto now = now_;
    options.clock = [now] { return *now; };
    options.embedder = "fasttext:" + *model_;
    server_ = std::make_unique<McpServer>(engine_.get(), options);
  }

  std::string Store(const std::string& content) {
    *now_ += std::chrono::minutes(1);
    return ToolOk("StoreMemory", {{"content", content},
                                  {"session_id", "s1"},
                                  {"tool", "Chat"},
                                  {"title", ""},
                                  {"archetype_title", "Conversation"}})["memory_id"];
  }

  static std::string* model_dir_;
  static std::string* model_;
};
std::string* McpEmbedderTest::model_dir_ = nullptr;
std::string* McpEmbedderTest::model_ = nullptr;

TEST_F(McpEmbedderTest, BasicSearchFindsAMemoryByMeaningWithNoSharedWord) {
  const std::string pets = Store("Biscuit the labrador chewed the leash at the kennel");
  Store("baked sourdough bread with garlic butter in the oven");
  Store("booked a flight and packed the passport and luggage");
  Store("the compiler crashed on a pointer bug in the kernel");
  Store("heavy rain and thunder kept everyone inside");
  Store("practiced guitar chords for the concert");

  // No memory has "puppy" or "bark": BM25 alone finds nothing.
  const Json hits = ToolOk(
      "SearchMemory",
      {{"query", "puppy bark"}, {"search_type", "basic"}, {"score_threshold", 0.0}})["results"];
  ASSERT_FALSE(hits.empty());
  EXPECT_EQ(hits[0]["memory_id"], pets);
  // score is the fused relevance (SEARCH.md §5): with no text match, the
  // cosine similarity, in [0, 1]; score_threshold compares it, so a floor
  // above the best score keeps nothing.
  double best = 0;
  for (const Json& h : hits) {
    const double score = h["score"].get<double>();
    EXPECT_GE(score, 0.0);
    EXPECT_LE(score, 1.0);
    best = std::max(best, score);
  }
  EXPECT_GT(hits[0]["score"].get<double>(), 0.0);
  EXPECT_EQ(ToolOk("SearchMemory",
                   {{"query", "puppy bark"}, {"score_threshold", best + 1e-6}})["results"],
            Json::array());
  // The collection was created with the embedder.
  const CollectionInfo info = engine_->DescribeCollection("memories").value();
  EXPECT_EQ(info.spec.embedder_identity.kind, "fasttext");
  EXPECT_EQ(info.spec.vector_dim, 32u);
}

TEST_F(McpEmbedderTest, WithoutTheEmbedderTheSameQueryFindsNothing) {
  McpOptions plain;
  server_ = std::make_unique<McpServer>(engine_.get(), plain);  // memories without an embedder
  Store("Biscuit the labrador chewed the leash at the kennel");
  EXPECT_EQ(ToolOk("SearchMemory", {{"query", "puppy bark"}, {"score_threshold", 0.0}})["results"],
            Json::array());
  // A server started with an embedder refuses this collection until reembed.
  const Status s = CheckMemoryEmbedder(*engine_, "memories", "fasttext:" + *model_);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("has no embedder: switch it with `engram collection reembed"),
            std::string::npos)
      << s.message();
  // After the switch, the memory is found by meaning.
  ASSERT_TRUE(engine_->Reembed("memories", ParseEmbedderSpec("fasttext:" + *model_).value()).ok());
  EXPECT_TRUE(CheckMemoryEmbedder(*engine_, "memories", "fasttext:" + *model_).ok());
  EXPECT_EQ(
      ToolOk("SearchMemory", {{"query", "puppy bark"}, {"score_threshold", 0.0}})["results"].size(),
      1u);
  // Another model is refused.
  const Status other = CheckMemoryEmbedder(*engine_, "memories",
                                           "model2vec:" + std::string(ENGRAM_SOURCE_DIR) +
                                               "/src/embed/testdata/model2vec/test-model-float32");
  EXPECT_EQ(other.code(), StatusCode::kFailedPrecondition);
}

}  // namespace mcp_embedder_test
}  // namespace
}  // namespace engram::server::mcp
