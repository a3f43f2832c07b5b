#include "vector/vector_store.h"

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/bytes.h"
#include "base/test_seed_files.h"

namespace engram::vector {
namespace {
namespace vector_store_test {

std::vector<float> Random(std::size_t n, std::mt19937_64& rng) {
  std::normal_distribution<float> normal;
  std::vector<float> v(n);
  for (float& x : v) x = normal(rng);
  return v;
}

// Records 0..n-1 with gaps at every third number and the 5th removed.
VectorStore Sample(Metric metric, std::size_t dim, std::uint32_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  VectorStore store(dim, metric);
  for (std::uint32_t id = 0; id < n; ++id) {
    if (id % 3 == 2) continue;
    EXPECT_TRUE(store.Put(id, Random(dim, rng)).ok());
  }
  store.Remove(4);
  return store;
}

TEST(VectorStore, PutValidatesWithComponentIndex) {
  VectorStore store(4, Metric::kDot);
  Status s = store.Put(0, std::vector<float>{1, 2, 3, 4, 5});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "vector has 5 components, the collection's dimension is 4");
  s = store.Put(0, std::vector<float>{1, 2, 3, std::numeric_limits<float>::quiet_NaN()});
  EXPECT_EQ(s.message(), "vector[3] is not a finite number");
  s = store.Put(0, std::vector<float>{1, std::numeric_limits<float>::infinity(), 3, 4});
  EXPECT_EQ(s.message(), "vector[1] is not a finite number");
  s = store.Put(0, std::vector<float>{1, 2, -2e15f, 4});
  EXPECT_EQ(s.message(), "vector[2] is larger in magnitude than 1e15");
  s = store.Put(UINT32_MAX, std::vector<float>{1, 2, 3, 4});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  // Zero vectors are fine for dot and l2, not for cosine.
  EXPECT_TRUE(store.Put(0, std::vector<float>{0, 0, 0, 0}).ok());
  VectorStore cosine(4, Metric::kCosine);
  s = cosine.Put(0, std::vector<float>{0, 0, 0, 0});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "vector is all zeros; the cosine metric needs a non-zero vector");
  EXPECT_EQ(cosine.size(), 0u);
  EXPECT_EQ(cosine.limit(), 0u);
  // A rejected Put changes nothing.
  EXPECT_TRUE(store.Put(1, std::vector<float>{1, 2, 3, 4}).ok());
  EXPECT_FALSE(store.Put(1, std::vector<float>{9, 9, 9, NAN}).ok());
  EXPECT_EQ(store.Get(1)[0], 1.0f);
}

TEST(VectorStore, PrepareQueryValidatesAndNormalises) {
  VectorStore store(3, Metric::kCosine);
  EXPECT_EQ(store.PrepareQuery(std::vector<float>{1, 2}).status().message(),
            "query has 2 components, the collection's dimension is 3");
  EXPECT_EQ(store.PrepareQuery(std::vector<float>{1, 2, INFINITY}).status().message(),
            "query[2] is not a finite number");
  EXPECT_FALSE(store.PrepareQuery(std::vector<float>{0, 0, 0}).ok());
  auto q = store.PrepareQuery(std::vector<float>{3, 0, 4});
  ASSERT_TRUE(q.ok());
  EXPECT_FLOAT_EQ((*q)[0], 0.6f);
  EXPECT_FLOAT_EQ((*q)[2], 0.8f);
  VectorStore l2(3, Metric::kL2);
  auto raw = l2.PrepareQuery(std::vector<float>{3, 0, 4});
  ASSERT_TRUE(raw.ok());
  EXPECT_EQ(*raw, (std::vector<float>{3, 0, 4}));
}

TEST(VectorStore, CosineIsNormalisedInDoublePrecision) {
  VectorStore store(2, Metric::kCosine);
  // Squares of these underflow in float but not in double.
  ASSERT_TRUE(store.Put(0, std::vector<float>{3e-30f, 4e-30f}).ok());
  EXPECT_FLOAT_EQ(store.Get(0)[0], 0.6f);
  EXPECT_FLOAT_EQ(store.Get(0)[1], 0.8f);
  // And these overflow in float.
  ASSERT_TRUE(store.Put(1, std::vector<float>{3e14f, 4e14f}).ok());
  EXPECT_FLOAT_EQ(store.Get(1)[0], 0.6f);
  std::mt19937_64 rng(3);
  VectorStore big(300, Metric::kCosine);
  ASSERT_TRUE(big.Put(0, Random(300, rng)).ok());
  double n = 0;
  for (std::size_t i = 0; i < 300; ++i) n += double{big.Get(0)[i]} * big.Get(0)[i];
  EXPECT_NEAR(n, 1.0, 1e-6);
  EXPECT_NEAR(big.Distance(big.Get(0), 0), 0.0f, 1e-6);
}

TEST(VectorStore, ReplaceRemoveAndGaps) {
  VectorStore store(2, Metric::kL2);
  ASSERT_TRUE(store.Put(5, std::vector<float>{1, 1}).ok());
  EXPECT_EQ(store.limit(), 6u);
  EXPECT_EQ(store.size(), 1u);
  EXPECT_FALSE(store.Contains(0));
  EXPECT_EQ(store.Get(0)[0], 0.0f);  // gaps read as zeros
  ASSERT_TRUE(store.Put(5, std::vector<float>{2, 3}).ok());
  EXPECT_EQ(store.size(), 1u);
  EXPECT_EQ(store.Get(5)[1], 3.0f);
  const float q[] = {0, 0};
  EXPECT_FLOAT_EQ(store.Distance(q, 5), 13.0f);
  ASSERT_TRUE(store.Put(1, std::vector<float>{7, 7}).ok());
  EXPECT_EQ(store.limit(), 6u);
  store.Remove(5);
  store.Remove(5);
  store.Remove(100);
  EXPECT_FALSE(store.Contains(5));
  EXPECT_EQ(store.size(), 1u);
  EXPECT_EQ(store.limit(), 6u);
  EXPECT_EQ(store.Get(5)[1], 3.0f);  // stale bytes stay
  // Appends in record order grow geometrically: few reallocations.
  VectorStore grow(16, Metric::kDot);
  std::vector<float> v(16, 1.0f);
  const float* last = nullptr;
  int moves = 0;
  for (std::uint32_t id = 0; id < 10000; ++id) {
    ASSERT_TRUE(grow.Put(id, v).ok());
    if (grow.Get(0) != last) ++moves, last = grow.Get(0);
  }
  EXPECT_LT(moves, 30);
  EXPECT_GE(grow.MemoryBytes(), 10000u * 16 * sizeof(float));
  EXPECT_LT(grow.MemoryBytes(), 3u * 10000 * 16 * sizeof(float));
}

TEST(VectorStore, SerializeRoundTrip) {
  for (Metric metric : {Metric::kCosine, Metric::kDot, Metric::kL2}) {
    for (std::size_t dim : {1, 7, 33}) {
      VectorStore store = Sample(metric, dim, 50, dim);
      const std::string image = store.Serialize();
      auto loaded = VectorStore::Load(image, 50);
      ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
      EXPECT_EQ(loaded->dim(), dim);
      EXPECT_EQ(loaded->metric(), metric);
      EXPECT_EQ(loaded->limit(), store.live().maximum() + 1);
      EXPECT_EQ(loaded->size(), store.size());
      EXPECT_TRUE(loaded->live() == store.live());
      EXPECT_TRUE(loaded->retained().isEmpty());
      for (std::uint32_t id : store.live()) {
        for (std::size_t i = 0; i < dim; ++i) EXPECT_EQ(loaded->Get(id)[i], store.Get(id)[i]);
      }
      EXPECT_EQ(loaded->Get(4)[0], 0.0f);  // removed: not in the image
      EXPECT_EQ(loaded->Serialize(), image);
      EXPECT_EQ(loaded->distance_fn(), store.distance_fn());
    }
  }
  VectorStore empty(4, Metric::kL2);
  auto loaded = VectorStore::Load(empty.Serialize(), 0);
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded->size(), 0u);
  EXPECT_EQ(loaded->limit(), 0u);
}

// Removed records' vectors are left out of images unless retained (for a
// graph's tombstones); retained ones come back not live, and a put makes
// them live again.
TEST(VectorStore, ImagesCarryLiveAndRetainedVectorsOnly) {
  VectorStore store = Sample(Metric::kL2, 4, 40, 3);  // 4 removed
  store.Remove(10);
  const std::string live_only = store.Serialize();
  roaring::Roaring retained;
  retained.add(4);
  retained.add(10);
  retained.add(12);  // live: ignored
  retained.add(45);  // past the limit: ignored
  const std::string with_retained = store.Serialize(retained);
  EXPECT_EQ(with_retained.size(), live_only.size() + 2 * (1 + 4 * sizeof(float)));
  auto loaded = VectorStore::Load(with_retained, 40);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_TRUE(loaded->live() == store.live());
  EXPECT_EQ(loaded->retained().cardinality(), 2u);
  EXPECT_TRUE(loaded->retained().contains(4) && loaded->retained().contains(10));
  for (std::uint32_t id : {4u, 10u}) {
    EXPECT_FALSE(loaded->Contains(id));
    for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(loaded->Get(id)[i], store.Get(id)[i]);
  }
  EXPECT_EQ(loaded->Serialize(loaded->retained()), with_retained);
  ASSERT_TRUE(loaded->Put(4, std::vector<float>{1, 2, 3, 4}).ok());
  EXPECT_FALSE(loaded->retained().contains(4));
  EXPECT_TRUE(loaded->Contains(4));
}

TEST(VectorStore, LoadRejectsEveryTruncation) {
  const std::string image = Sample(Metric::kCosine, 3, 12, 1).Serialize();
  for (std::size_t n = 0; n < image.size(); ++n) {
    auto loaded = VectorStore::Load(image.substr(0, n), 12);
    EXPECT_FALSE(loaded.ok()) << n;
    EXPECT_EQ(loaded.status().code(), StatusCode::kCorruption);
  }
  EXPECT_FALSE(VectorStore::Load(image + '\0', 12).ok());
}

TEST(VectorStore, LoadRejectsEveryByteFlip) {
  const std::string image = Sample(Metric::kL2, 3, 12, 2).Serialize();
  for (std::size_t i = 0; i < image.size(); ++i) {
    for (int bit : {0, 3, 7}) {
      std::string bad = image;
      bad[i] = static_cast<char>(bad[i] ^ (1 << bit));
      EXPECT_FALSE(VectorStore::Load(bad, 12).ok()) << i << " bit " << bit;
    }
  }
}

// An image whose body is `body` (after magic and version) with a correct
// checksum, so that Load's structural checks are what reject it.
std::string Image(const std::string& body, std::uint32_t version = 2) {
  ByteWriter w;
  w.Raw("ENGRMVEC", 8);
  w.Fixed(version, 4);
  w.Raw(body.data(), body.size());
  w.Fixed(Fnv1a64(w.out), 8);
  return w.out;
}

std::string Header(std::uint64_t dim, std::uint8_t metric) {
  ByteWriter w;
  w.Var(dim);
  w.U8(metric);
  return w.out;
}

std::string Floats(std::vector<float> v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
}

std::string Error(const std::string& image, std::uint32_t id_limit = 100) {
  auto loaded = VectorStore::Load(image, id_limit);
  EXPECT_FALSE(loaded.ok());
  if (loaded.ok()) return "";
  EXPECT_EQ(loaded.status().code(), StatusCode::kCorruption);
  return loaded.status().message();
}

TEST(VectorStore, LoadChecksInvariants) {
  using namespace std::string_literals;
  // A valid l2 image, dim 2: record 1 live, none retained.
  const std::string ok = Image(Header(2, 2) + "\x01\x01\x00"s + Floats({1, 2}));
  ASSERT_TRUE(VectorStore::Load(ok, 2).ok());
  EXPECT_EQ(VectorStore::Load(ok, 2)->Get(1)[1], 2.0f);
  EXPECT_EQ(VectorStore::Load(ok, 2)->limit(), 2u);
  // Record numbers at or past the caller's limit.
  EXPECT_EQ(Error(ok, 1), "vector store image: bad record number");
  EXPECT_EQ(
      Error(Image(Header(2, 2) + "\x01\xff\xff\xff\xff\x0f\x00"s + Floats({1, 2})), UINT32_MAX),
      "vector store image: bad record number");

  EXPECT_EQ(Error("ENGRMVEX" + ok.substr(8)),
            "vector store image: not a vector store (bad magic or too short)");
  EXPECT_EQ(Error(Image(Header(0, 2) + "\x00\x00"s)), "vector store image: bad dimension");
  EXPECT_EQ(Error(Image(Header(4097, 2) + "\x00\x00"s)), "vector store image: bad dimension");
  EXPECT_EQ(Error(Image(Header(2, 3) + "\x00\x00"s)), "vector store image: bad metric");
  // Counts past what the bytes left can hold (each record takes 1 + 8 bytes).
  EXPECT_EQ(Error(Image(Header(2, 2) + "\x7f"s)), "vector store image: bad record count");
  EXPECT_EQ(Error(Image(Header(2, 2) + "\x02\x00\x01\x00"s + Floats({1, 2}))),
            "vector store image: bad record count");
  EXPECT_EQ(Error(Image(Header(4096, 2) + "\x01\x00\x00"s)),
            "vector store image: bad record count");
  EXPECT_EQ(Error(Image(Header(2, 2) + "\x02\x00\x00\x00"s + Floats({0, 0, 1, 2}))),
            "vector store image: bad record number");
  EXPECT_EQ(Error(Image(Header(2, 2) + "\x01\x01\x01\x01"s + Floats({0, 0, 1, 2}))),
            "vector store image: a retained record is live");
  EXPECT_EQ(Error(Image(Header(2, 2) + "\x01\x01\x00"s + Floats({1, 2, 3, 4, 5}))),
            "vector store image: vector data does not match the record count x dimension");
  EXPECT_EQ(Error(Image(Header(2, 2) + "\x01\x01\x00"s + Floats({1, 2, 3}))),
            "vector store image: vector data does not match the record count x dimension");
  EXPECT_EQ(Error(Image(Header(2, 2) + "\x01\x01\x00"s + Floats({NAN, 0}))),
            "vector store image: vector component not finite or too large");
  EXPECT_EQ(Error(Image(Header(2, 2) + "\x00\x01\x01"s + Floats({0, 1e16f}))),
            "vector store image: vector component not finite or too large");
  EXPECT_EQ(Error(Image(Header(2, 0) + "\x01\x01\x00"s + Floats({1, 2}))),
            "vector store image: cosine vector is not unit length");
  ASSERT_TRUE(
      VectorStore::Load(Image(Header(2, 0) + "\x01\x01\x00"s + Floats({0.6f, 0.8f})), 2).ok());
  // A varint with a redundant continuation byte reads back but is refused.
  EXPECT_EQ(Error(Image("\x82\x00\x02\x01\x01\x00"s + Floats({1, 2}))),
            "vector store image: non-canonical encoding");
  // Version 1 images (every slot written) are refused: the caller rebuilds.
  EXPECT_EQ(Error(Image(Header(2, 2) + "\x02\x01\x01"s + Floats({0, 0, 1, 2}), 1)),
            "vector store image: unsupported version");
  std::string flipped_version = ok;
  flipped_version[8] = 3;
  EXPECT_EQ(Error(flipped_version), "vector store image: checksum mismatch (truncated or corrupt)");
}

TEST(VectorStore, LoadRejectsGarbage) {
  std::mt19937_64 rng(4);
  for (int i = 0; i < 300; ++i) {
    std::string junk(std::uniform_int_distribution<int>(0, 80)(rng), '\0');
    for (char& c : junk) c = static_cast<char>(rng());
    if (i % 2) junk = Image(junk);
    EXPECT_FALSE(VectorStore::Load(junk, 1000).ok());
  }
}

// The fuzz target's seed images (tests/fuzz/seeds/vector/) are exactly what
// Serialize writes today, so the fuzzer starts from valid images. With
// ENGRAM_WRITE_SEEDS=1 the test rewrites them first (after a format change).
TEST(VectorStore, FuzzSeedsAreCurrentImages) {
  const std::string dir = "tests/fuzz/seeds/vector/";
  const std::vector<std::pair<std::string, std::string>> seeds = {
      {"cosine_3", Sample(Metric::kCosine, 3, 8, 5).Serialize()},
      {"dot_2", Sample(Metric::kDot, 2, 6, 6).Serialize()},
      {"l2_5", Sample(Metric::kL2, 5, 10, 7).Serialize()},
      {"empty", VectorStore(4, Metric::kL2).Serialize()}};
  engram::testing::ExpectSeedFilesCurrent(dir, seeds);
}

}  // namespace vector_store_test
}  // namespace
}  // namespace engram::vector
