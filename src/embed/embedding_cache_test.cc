#include "embed/embedding_cache.h"

#include <atomic>
#include <thread>

#include <gtest/gtest.h>

namespace engram::embed {
namespace {

// Counts the texts it is asked for; fails on "fail".
class CountingEmbedder final : public Embedder {
 public:
  const EmbedderIdentity& identity() const override { return identity_; }
  StatusOr<std::vector<std::vector<float>>> Embed(
      std::span<const std::string_view> texts) const override {
    std::vector<std::vector<float>> out;
    for (std::string_view t : texts) {
      if (t == "fail") return Status::IoError("model down");
      asked += 1;
      out.push_back({static_cast<float>(t.size()), 1.0f});
    }
    ++calls;
    return out;
  }
  mutable std::atomic<int> asked{0}, calls{0};

 private:
  EmbedderIdentity identity_{"test", "counting", 2, ""};
};

TEST(EmbeddingCacheTest, TheSameTextIsEmbeddedOnce) {
  auto inner = std::make_unique<CountingEmbedder>();
  CountingEmbedder* counting = inner.get();
  CachingEmbedder cache(std::move(inner), 1 << 20);
  EXPECT_EQ(cache.identity().model, "counting");
  const std::string_view first[] = {"a", "bb", "a"};
  auto v = cache.Embed(first);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, (std::vector<std::vector<float>>{{1, 1}, {2, 1}, {1, 1}}));
  EXPECT_EQ(counting->asked, 2);  // "a" once, though given twice
  const std::string_view second[] = {"bb", "ccc", "a"};
  v = cache.Embed(second);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, (std::vector<std::vector<float>>{{2, 1}, {3, 1}, {1, 1}}));
  EXPECT_EQ(counting->asked, 3);  // only "ccc" was new
  EXPECT_EQ(counting->calls, 2);
  const auto counts = cache.counts();
  EXPECT_EQ(counts.hits, 3u);
  EXPECT_EQ(counts.misses, 3u);
  EXPECT_EQ(counts.entries, 3u);
}

TEST(EmbeddingCacheTest, FailuresAreNotCachedAndTheBudgetEvictsTheOldest) {
  auto inner = std::make_unique<CountingEmbedder>();
  CountingEmbedder* counting = inner.get();
  // Room for two entries: 32-byte key + 2 floats + 64 bytes of bookkeeping.
  CachingEmbedder cache(std::move(inner), 2 * (32 + 8 + 64));
  const std::string_view bad[] = {"x", "fail"};
  EXPECT_FALSE(cache.Embed(bad).ok());
  EXPECT_EQ(cache.counts().entries, 0u);
  for (std::string_view t : {"a", "b", "c", "a"}) {
    const std::string_view one[] = {t};
    ASSERT_TRUE(cache.Embed(one).ok());
  }
  // "a" was evicted by "c" (least recently used), so it was asked again.
  EXPECT_EQ(counting->asked, 5);
  EXPECT_EQ(cache.counts().entries, 2u);
}

TEST(EmbeddingCacheTest, ConcurrentCallersAgree) {
  CachingEmbedder cache(std::make_unique<CountingEmbedder>(), 1 << 20);
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 200; ++i) {
        const std::string text(static_cast<std::size_t>(i % 17 + 1), 'x');
        const std::string_view one[] = {text};
        auto v = cache.Embed(one);
        if (!v.ok() || (*v)[0][0] != static_cast<float>(text.size())) ++wrong;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(cache.counts().entries, 17u);
}

}  // namespace
}  // namespace engram::embed
