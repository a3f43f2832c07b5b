#include "bounds/workload.h"

#include <algorithm>
#include <ctime>
#include <map>
#include <set>

#include <fmt/core.h>

#include "filter/largest_filters.h"

namespace engram::bench {
namespace {

constexpr std::string_view kConsonants = "bcdfghjklmnprstvwz";
constexpr std::string_view kVowels = "aeiou";
constexpr std::size_t kQueryChars = 1000;  // QUERY_DSL.md §6

std::string Timestamp(std::size_t i) {
  const std::time_t t = 1735689600 + static_cast<std::time_t>(i) * 30;  // 2025-01-01T00:00:00Z
  std::tm tm{};
  gmtime_r(&t, &tm);
  char out[32];
  std::strftime(out, sizeof(out), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return out;
}

// `words` joined by `separator` while the text stays within kQueryChars.
std::string Longest(const std::vector<std::string>& words, const std::string& separator,
                    const std::string& open = "", const std::string& close = "") {
  std::string out;
  for (const std::string& w : words) {
    const std::string next = (out.empty() ? "" : out + separator) + open + w + close;
    if (next.size() > kQueryChars) break;
    out = next;
  }
  return out;
}

}  // namespace

Workload::Workload(std::uint64_t seed, std::size_t vocabulary) : seed_(seed) {
  std::mt19937_64 rng(seed);
  std::set<std::string> seen;
  while (words_.size() < vocabulary) {
    std::string w;
    for (std::size_t s = 2 + rng() % 3; s > 0; --s) {
      w += kConsonants[rng() % kConsonants.size()];
      w += kVowels[rng() % kVowels.size()];
    }
    if (seen.insert(w).second) words_.push_back(w);
  }
  double sum = 0;
  for (std::size_t r = 0; r < words_.size(); ++r) {
    sum += 1.0 / static_cast<double>(r + 1);
    cdf_.push_back(sum);
  }
  for (double& c : cdf_) c /= sum;
}

const std::string& Workload::Draw(std::mt19937_64& rng) const {
  const double u = std::uniform_real_distribution<double>(0, 1)(rng);
  const auto it = std::lower_bound(cdf_.begin(), cdf_.end(), u);
  return words_[std::min<std::size_t>(it - cdf_.begin(), words_.size() - 1)];
}

std::string Workload::Record(std::size_t i) {
  std::mt19937_64 rng(seed_ * 1000003 + i);
  const auto& fixed = filter::kLargestFilterWords;
  auto words = [&](std::size_t n) {
    std::string out;
    for (std::size_t k = 0; k < n; ++k) out += (k ? " " : "") + Draw(rng);
    return out;
  };
  const std::uint64_t a = rng(), b = rng();
  const std::string uuid =
      fmt::format("{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}", a >> 32, (a >> 16) & 0xffff, a & 0xfff,
                  0x8000 | (b >> 48 & 0x3fff), b & 0xffffffffffffULL);
  const std::string title =
      fixed[rng() % fixed.size()] + " " + fixed[rng() % fixed.size()] + " " + Draw(rng);
  return fmt::format(
      R"({{"memory_id":"{}","session_id":"s{}","tool":"t{}","agent_id":"agent{}","title":"{}",)"
      R"("context":"{}","content":"{}","sequence_order":{},"timestamp":"{}",)"
      R"("archetype_title":"task","schema_version":"1"}})",
      uuid, rng() % 1000, rng() % 8, rng() % 100, title, words(3), words(20 + rng() % 41),
      1 + i / 1000, Timestamp(i));
}

std::vector<std::string> Workload::TopWords(std::size_t n) const {
  return {words_.begin(), words_.begin() + static_cast<std::ptrdiff_t>(std::min(n, words_.size()))};
}

std::vector<std::string> Workload::HeaviestPrefixes(std::size_t cap, std::string* next) const {
  struct Prefix {
    double mass = 0;
    std::size_t words = 0;
  };
  std::map<std::string, Prefix> prefixes;
  for (std::size_t r = 0; r < words_.size(); ++r) {
    Prefix& p = prefixes[words_[r].substr(0, 3)];
    p.mass += 1.0 / static_cast<double>(r + 1);
    ++p.words;
  }
  std::vector<std::pair<std::string, Prefix>> order(prefixes.begin(), prefixes.end());
  std::sort(order.begin(), order.end(),
            [](const auto& x, const auto& y) { return x.second.mass > y.second.mass; });
  std::vector<std::string> out;
  std::size_t total = 0;
  for (const auto& [prefix, p] : order) {
    if (total + p.words > cap) {
      *next = prefix;
      break;
    }
    total += p.words;
    out.push_back(prefix);
  }
  return out;
}

std::vector<Case> WorstCases(const Workload& workload) {
  std::vector<Case> cases;
  auto text = [&](std::string name, std::string limit, std::string query) {
    Case c{std::move(name), std::move(limit), {}};
    c.request.query = std::move(query);
    c.request.k = 1000;
    cases.push_back(std::move(c));
  };
  const std::vector<std::string> top = workload.TopWords(400);
  text("OR of the most frequent words", "query 1000 chars", Longest(top, " OR "));
  text("bare words (implicit AND, relaxed)", "query 1000 chars", Longest(top, " "));
  std::vector<std::string> pairs;
  for (std::size_t i = 0; i + 1 < top.size(); i += 2) pairs.push_back(top[i] + " " + top[i + 1]);
  text("OR of two-word phrases of frequent words", "query 1000 chars",
       Longest(pairs, " OR ", "\"", "\""));
  std::string next;
  std::vector<std::string> prefixes =
      workload.HeaviestPrefixes(RequestBounds{}.max_expansions, &next);
  text("the heaviest prefixes within the cap (" + std::to_string(prefixes.size()) + ")",
       "1024 expansions", Longest(prefixes, " OR ", "", "*"));
  prefixes.push_back(next);
  text("the same and one more prefix", "1024 expansions + 1", Longest(prefixes, " OR ", "", "*"));
  std::vector<std::string> letters;
  for (char c = 'a'; c <= 'z'; ++c) letters.push_back(std::string(1, c));
  text("a* OR b* ... OR z*", "expansions", Longest(letters, " OR ", "", "*"));
  for (const filter::LargestFilter& f : filter::LargestFilters()) {
    Case c{f.name, "filter", {}};
    c.request.dialect = FilterDialectFromName(filter::DialectName(f.dialect));
    c.request.filter = f.text;
    c.request.k = 1000;
    cases.push_back(c);
    if (f.name.find("contains") != std::string::npos) {
      c.name += ", scoped to one agent";
      c.request.scope = Scope{"agent7", ReadProfile::kPrivateOnly};
      cases.push_back(std::move(c));
    }
  }
  return cases;
}

}  // namespace engram::bench
