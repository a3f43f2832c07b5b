#include "index/substring_index.h"

#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/unicode.h"

namespace engram::index {
namespace {

// Values with their own one-record buckets (record n for the n-th value), as
// MetadataIndex keeps them.
class Fixture {
 public:
  void Add(const std::string& value) {
    auto [it, added] = buckets_.try_emplace(value);
    if (!added) return;
    it->second.add(next_++);
    index_.Add(it->first, &it->second);
  }
  void Remove(const std::string& value) {
    index_.Remove(value);
    buckets_.erase(value);
  }
  // The values whose bucket Find returns.
  std::set<std::string> Find(const std::string& needle, bool folded) const {
    DeadlinePoll poll(nullptr);
    std::set<std::string> out;
    for (const roaring::Roaring* r : index_.Find(needle, folded, poll)) {
      for (const auto& [value, bucket] : buckets_) {
        if (&bucket == r) out.insert(value);
      }
    }
    return out;
  }
  // What filter::Evaluate decides, value by value.
  std::set<std::string> Expected(const std::string& needle, bool folded) const {
    std::set<std::string> out;
    for (const auto& [value, bucket] : buckets_) {
      const std::string hay = folded ? FoldCase(value) : value;
      if (hay.find(needle) != std::string::npos) out.insert(value);
    }
    return out;
  }
  const SubstringIndex& index() const { return index_; }

 private:
  std::map<std::string, roaring::Roaring> buckets_;
  SubstringIndex index_;
  std::uint32_t next_ = 0;
};

const char* const kValues[] = {
    "Apple pie",
    "apple",
    "APPLESAUCE",
    "ab",
    "a",
    "",
    "stra\xc3\x9f"
    "e",  // straße
    "STRASSE",
    "\xe1\xba\x9e",  // ẞ (U+1E9E): simple-folds to ß (U+00DF), 3 bytes to 2
    "\xe2\x84\xaa"
    "elvin",  // KELVIN SIGN (U+212A) + elvin: folds to "kelvin"
    "kelvin",
    "\xc3\x89"
    "t\xc3\xa9",  // Été
    "x y z",
};

TEST(SubstringIndex, AgreesWithTheEvaluatorsTest) {
  Fixture f;
  for (const char* v : kValues) f.Add(v);
  const char* const needles[] = {"",
                                 "a",
                                 "p",
                                 "pp",
                                 "app",
                                 "APP",
                                 "pie",
                                 "le p",
                                 "ab",
                                 "abc",
                                 "stra",
                                 "\xc3\x9f",
                                 "SS",
                                 "kel",
                                 "elvin",
                                 "\xe2\x84\xaa",
                                 "\xe2\x84\xaa"
                                 "el",
                                 "t\xc3\xa9",
                                 "\xc3\xa9t",
                                 "y z",
                                 "zzz",
                                 "e"};
  for (const char* needle : needles) {
    for (bool folded : {false, true}) {
      // icontains literals arrive folded (the checker folds them).
      const std::string n = folded ? FoldCase(needle) : std::string(needle);
      EXPECT_EQ(f.Find(n, folded), f.Expected(n, folded))
          << "needle '" << n << "' folded " << folded;
    }
  }
  // The Kelvin sign folds to 'k': icontains "kel" finds both spellings.
  EXPECT_EQ(f.Find("kel", true), (std::set<std::string>{"\xe2\x84\xaa"
                                                        "elvin",
                                                        "kelvin"}));
  EXPECT_EQ(f.Find("kel", false), (std::set<std::string>{"kelvin"}));
}

TEST(SubstringIndex, RemovedValuesAreForgottenAndIdsReused) {
  Fixture f;
  for (const char* v : kValues) f.Add(v);
  EXPECT_EQ(f.index().values(), std::size(kValues));
  f.Remove("apple");
  f.Remove("APPLESAUCE");
  f.Remove("not there");
  EXPECT_EQ(f.Find("app", true), (std::set<std::string>{"Apple pie"}));
  f.Add("pineapple");
  EXPECT_EQ(f.Find("app", true), (std::set<std::string>{"Apple pie", "pineapple"}));
  EXPECT_EQ(f.index().values(), std::size(kValues) - 1);
  for (const char* v : kValues) f.Remove(v);
  f.Remove("pineapple");
  EXPECT_EQ(f.index().values(), 0u);
  EXPECT_TRUE(f.Find("app", true).empty());
  EXPECT_TRUE(f.Find("a", false).empty());
}

TEST(SubstringIndex, StopsWhenTheDeadlinePasses) {
  Fixture f;
  for (int i = 0; i < 100; ++i) f.Add("value " + std::to_string(i));
  const Deadline passed = Deadline::AfterChecks(0);
  for (const char* needle : {"v", "value"}) {  // the scan and the trigram paths
    DeadlinePoll poll(&passed, 1);
    EXPECT_TRUE(f.index().Find(needle, false, poll).empty()) << needle;
  }
}

}  // namespace
}  // namespace engram::index
