#include "base/flat_hash.h"

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace engram {
namespace {

// Strings kept by number, as FlatHash's callers keep them.
struct Strings {
  std::vector<std::string> of;
  const std::string& operator()(std::uint32_t n) const { return of[n]; }
};

std::vector<std::uint32_t> All(const FlatHash& h, const std::string& s, const Strings& strings) {
  std::vector<std::uint32_t> out;
  h.ForEach(s, strings, [&out](std::uint32_t n) {
    out.push_back(n);
    return true;
  });
  std::sort(out.begin(), out.end());
  return out;
}

TEST(FlatHash, FindsInsertedStringsAndNotOthers) {
  Strings strings{{"alpha", "beta", "", "gamma"}};
  FlatHash h;
  EXPECT_EQ(h.Find("alpha", strings), FlatHash::kNone);
  for (std::uint32_t n = 0; n < strings.of.size(); ++n) h.Insert(strings.of[n], n);
  EXPECT_EQ(h.size(), 4u);
  EXPECT_EQ(h.Find("alpha", strings), 0u);
  EXPECT_EQ(h.Find("", strings), 2u);
  EXPECT_EQ(h.Find("gamma", strings), 3u);
  EXPECT_EQ(h.Find("delta", strings), FlatHash::kNone);
  EXPECT_EQ(h.Find("alph", strings), FlatHash::kNone);
}

TEST(FlatHash, KeepsSeveralNumbersUnderOneStringAndErasesOneByNumber) {
  Strings strings{{"x", "y", "x", "x"}};
  FlatHash h;
  for (std::uint32_t n = 0; n < strings.of.size(); ++n) h.Insert(strings.of[n], n);
  EXPECT_EQ(All(h, "x", strings), (std::vector<std::uint32_t>{0, 2, 3}));
  h.Erase("x", 2);
  EXPECT_EQ(All(h, "x", strings), (std::vector<std::uint32_t>{0, 3}));
  h.Erase("x", 1);  // 1 is under "y", not "x": nothing changes
  EXPECT_EQ(All(h, "y", strings), (std::vector<std::uint32_t>{1}));
  EXPECT_EQ(h.size(), 3u);
  // ForEach stops when told to.
  int calls = 0;
  h.ForEach("x", strings, [&calls](std::uint32_t) { return ++calls < 1; });
  EXPECT_EQ(calls, 1);
}

// Against std::multimap under a random mix of inserts and erases, through
// growth, Reserve and the backward shifts of Erase (few distinct strings,
// so that probe runs are long and mixed).
TEST(FlatHash, AgreesWithAMultimapUnderRandomChurn) {
  std::mt19937 rng(7);
  Strings strings;
  FlatHash h;
  std::multimap<std::string, std::uint32_t> want;
  std::vector<std::uint32_t> in;  // numbers in the table
  h.Reserve(10);
  for (int step = 0; step < 20000; ++step) {
    if (in.empty() || rng() % 3 != 0) {
      const auto n = static_cast<std::uint32_t>(strings.of.size());
      strings.of.push_back("s" + std::to_string(rng() % 500));
      h.Insert(strings.of[n], n);
      want.emplace(strings.of[n], n);
      in.push_back(n);
    } else {
      const std::size_t at = rng() % in.size();
      const std::uint32_t n = in[at];
      in[at] = in.back();
      in.pop_back();
      h.Erase(strings.of[n], n);
      for (auto [it, last] = want.equal_range(strings.of[n]); it != last; ++it) {
        if (it->second == n) {
          want.erase(it);
          break;
        }
      }
    }
    if (step % 997 == 0) {
      ASSERT_EQ(h.size(), want.size());
      for (int s = 0; s < 500; ++s) {
        const std::string key = "s" + std::to_string(s);
        std::vector<std::uint32_t> expected;
        for (auto [it, last] = want.equal_range(key); it != last; ++it) {
          expected.push_back(it->second);
        }
        std::sort(expected.begin(), expected.end());
        ASSERT_EQ(All(h, key, strings), expected) << key << " at step " << step;
        const std::uint32_t one = h.Find(key, strings);
        EXPECT_EQ(one == FlatHash::kNone, expected.empty());
        if (one != FlatHash::kNone) {
          EXPECT_TRUE(std::binary_search(expected.begin(), expected.end(), one));
        }
      }
    }
  }
}

TEST(FlatHash, ReserveKeepsTheEntries) {
  Strings strings;
  FlatHash h;
  for (std::uint32_t n = 0; n < 100; ++n) {
    strings.of.push_back(std::to_string(n));
    h.Insert(strings.of[n], n);
  }
  h.Reserve(100000);
  EXPECT_GE(h.MemoryBytes(), 200000u * 8);
  for (std::uint32_t n = 0; n < 100; ++n) EXPECT_EQ(h.Find(std::to_string(n), strings), n);
  EXPECT_EQ(h.size(), 100u);
}

}  // namespace
}  // namespace engram
