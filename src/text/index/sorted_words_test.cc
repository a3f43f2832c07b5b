// SortedWords against std::map on random words: the same entries, order,
// lookups and lower bounds through inserts and erases that split and empty
// chunks.
#include "text/index/sorted_words.h"

#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace engram::text {
namespace {

// Words that share long prefixes, straddle the eight-byte key, and hold
// bytes >= 0x80 and NUL, so that the key comparison alone cannot decide.
std::string RandomWord(std::mt19937_64& rng) {
  static const std::vector<std::string> stems = {
      "", "a", "inter", "internation", "abcdefgh", "abcdefg", std::string("ab\0", 3), "\xc3\xa9t"};
  std::string w = stems[rng() % stems.size()];
  const std::size_t extra = rng() % 6;
  for (std::size_t i = 0; i < extra; ++i) {
    static const char kBytes[] = {'a', 'b', 'z', '\0', '\x7f', '\x80', '\xff'};
    w += kBytes[rng() % sizeof(kBytes)];
  }
  if (w.empty()) w = "x";
  return w;
}

void ExpectSame(const SortedWords& s, const std::map<std::string, std::uint32_t>& m) {
  ASSERT_EQ(s.size(), m.size());
  auto it = s.begin();
  for (const auto& [word, id] : m) {
    ASSERT_FALSE(it == s.end());
    EXPECT_EQ((*it).first, word);
    EXPECT_EQ(it->second, id);
    ++it;
  }
  EXPECT_TRUE(it == s.end());
}

TEST(SortedWords, MatchesStdMap) {
  std::mt19937_64 rng(7);
  SortedWords s;
  std::map<std::string, std::uint32_t> m;
  for (int step = 0; step < 20000; ++step) {
    const std::string w = RandomWord(rng);
    if (rng() % 3 == 0) {
      EXPECT_EQ(s.erase(w), m.erase(w) == 1) << step;
    } else {
      const auto id = static_cast<std::uint32_t>(step);
      EXPECT_EQ(s.emplace(w, id), m.emplace(w, id).second) << step;
    }
    // Lookups and lower bounds of a fresh random word.
    const std::string q = RandomWord(rng);
    auto mf = m.find(q);
    auto sf = s.find(q);
    EXPECT_EQ(sf == s.end(), mf == m.end());
    if (mf != m.end() && !(sf == s.end())) {
      EXPECT_EQ(sf->second, mf->second);
    }
    auto ml = m.lower_bound(q);
    auto sl = s.lower_bound(q);
    EXPECT_EQ(sl == s.end(), ml == m.end()) << step;
    if (ml != m.end() && !(sl == s.end())) {
      EXPECT_EQ((*sl).first, ml->first);
    }
    if (step % 1000 == 0) ExpectSame(s, m);
  }
  ExpectSame(s, m);
  EXPECT_GT(s.size(), 128u);  // enough words for several chunks
  auto back = m.rbegin();
  for (auto it = s.rbegin(); it != s.rend(); ++it, ++back) {
    ASSERT_FALSE(back == m.rend());
    EXPECT_EQ(it->first, back->first);
    EXPECT_EQ((*it).second, back->second);
  }
  EXPECT_TRUE(back == m.rend());
  std::string first = s.begin()->first;  // the word by reference, copyable
  EXPECT_EQ(first, m.begin()->first);
  for (const auto& [word, id] : m) EXPECT_EQ(s.at(word), id);
  EXPECT_THROW(s.at("not there"), std::out_of_range);
  // Emptied entirely, then reused.
  for (const auto& [word, id] : m) EXPECT_TRUE(s.erase(word));
  EXPECT_TRUE(s.empty());
  EXPECT_TRUE(s.begin() == s.end());
  EXPECT_TRUE(s.lower_bound("a") == s.end());
  EXPECT_TRUE(s.emplace("b", 1));
  EXPECT_EQ(s.at("b"), 1u);
}

TEST(SortedWords, SequentialInsertsSplitChunks) {
  SortedWords s;
  std::map<std::string, std::uint32_t> m;
  for (std::uint32_t i = 0; i < 5000; ++i) {
    // Ascending, then descending, keys: splits at both ends.
    const std::string w =
        i < 2500 ? "w" + std::to_string(100000 + i) : "v" + std::to_string(99999 - i);
    EXPECT_TRUE(s.emplace(w, i));
    m.emplace(w, i);
  }
  ExpectSame(s, m);
  EXPECT_FALSE(s.emplace("w100000", 9));
  EXPECT_EQ(s.at("w100000"), 0u);
}

}  // namespace
}  // namespace engram::text
