#include "scaled_corpus.h"

#include <algorithm>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace engram::bench {
namespace {

std::vector<Package> Packages(std::size_t n) {
  std::vector<Package> pkgs(n);
  for (std::size_t i = 0; i < n; ++i) {
    pkgs[i].title = "title " + std::to_string(i);
    pkgs[i].text = "alpha beta gamma delta epsilon zeta eta theta iota kappa " + std::to_string(i);
  }
  return pkgs;
}

std::multiset<std::string> WordSet(const std::string& text) {
  std::multiset<std::string> words;
  std::istringstream in(text);
  for (std::string w; in >> w;) words.insert(w);
  return words;
}

TEST(ScaledCorpus, ASmallerCorpusIsASampleInPackageOrder) {
  const std::vector<Package> pkgs = Packages(50);
  const std::vector<ScaledDoc> docs = ScaleDebian(pkgs, 20, 7);
  ASSERT_EQ(docs.size(), 20u);
  std::vector<std::string> titles;
  for (const ScaledDoc& d : docs) titles.push_back(d.title);
  EXPECT_EQ(std::set<std::string>(titles.begin(), titles.end()).size(), 20u);  // no repeats
  std::vector<std::size_t> numbers;
  for (const std::string& t : titles) numbers.push_back(std::stoul(t.substr(6)));
  EXPECT_TRUE(std::is_sorted(numbers.begin(), numbers.end()));
  EXPECT_NE(numbers.back(), 19u);  // not simply the first 20
  EXPECT_EQ(ScaleDebian(pkgs, 50, 7).size(), 50u);
}

TEST(ScaledCorpus, ALargerCorpusRepeatsThePackagesWithVariedWords) {
  const std::vector<Package> pkgs = Packages(30);
  const std::vector<ScaledDoc> docs = ScaleDebian(pkgs, 100, 7);
  ASSERT_EQ(docs.size(), 100u);
  std::size_t varied = 0;
  for (std::size_t i = 0; i < docs.size(); ++i) {
    const Package& p = pkgs[i % pkgs.size()];
    EXPECT_EQ(docs[i].title, p.title);
    if (i < pkgs.size()) {
      EXPECT_EQ(docs[i].text, p.text);
      continue;
    }
    const std::multiset<std::string> words = WordSet(docs[i].text);
    const std::multiset<std::string> original = WordSet(p.text);
    EXPECT_FALSE(words.empty());
    EXPECT_TRUE(std::includes(original.begin(), original.end(), words.begin(), words.end()));
    varied += docs[i].text != p.text ? 1 : 0;
  }
  EXPECT_GT(varied, 60u);  // shuffled (and thinned): almost never the same text
  const std::vector<ScaledDoc> again = ScaleDebian(pkgs, 100, 7);
  for (std::size_t i = 0; i < docs.size(); ++i) EXPECT_EQ(again[i].text, docs[i].text);
  EXPECT_NE(ScaleDebian(pkgs, 100, 8)[40].text, docs[40].text);
}

}  // namespace
}  // namespace engram::bench
