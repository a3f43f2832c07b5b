#include "common/memories.h"

#include <algorithm>
#include <random>
#include <set>
#include <string>

#include <fmt/core.h>

namespace engram::bench {
namespace {

constexpr std::size_t kWords = 30000;
constexpr std::size_t kCentres = 256;
constexpr const char* kKinds[] = {"fact",    "event", "preference", "task",
                                  "summary", "note",  "decision",   "error"};

// splitmix64: one well-mixed 64-bit value per (seed, i, v).
std::uint64_t Mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

Memories::Memories(std::uint64_t seed, std::size_t dim) : seed_(seed), dim_(dim) {
  std::mt19937_64 rng(Mix(seed));
  const std::string consonants = "bcdfghjklmnprstvwz";
  const std::string vowels = "aeiou";
  std::set<std::string> seen;
  while (words_.size() < kWords) {
    std::string w;
    const int syllables = 1 + static_cast<int>(rng() % 4);
    for (int s = 0; s < syllables; ++s) {
      w += consonants[rng() % consonants.size()];
      w += vowels[rng() % vowels.size()];
      if (rng() % 3 == 0) w += consonants[rng() % consonants.size()];
    }
    if (seen.insert(w).second) words_.push_back(std::move(w));
  }
  double sum = 0;
  for (std::size_t r = 1; r <= kWords; ++r) {
    sum += 1.0 / static_cast<double>(r);
    word_cdf_.push_back(sum);
  }
  for (double& c : word_cdf_) c /= sum;
  std::uniform_real_distribution<float> uniform(-1, 1);
  centres_.resize(kCentres * dim_);
  for (float& c : centres_) c = uniform(rng);
}

std::string Memories::Id(std::uint64_t i) {
  return "m" + std::to_string(i);
}

std::string Memories::Record(std::uint64_t i, std::uint64_t version) const {
  std::mt19937_64 rng(Mix(seed_ ^ Mix(i * 1000003 + version)));
  std::uniform_real_distribution<double> unit(0, 1);
  std::string text;
  const int words = 12 + static_cast<int>(rng() % 29);
  for (int w = 0; w < words; ++w) {
    const auto at = std::lower_bound(word_cdf_.begin(), word_cdf_.end(), unit(rng));
    if (w > 0) text += ' ';
    text += words_[std::min<std::size_t>(at - word_cdf_.begin(), kWords - 1)];
  }
  std::string out = fmt::format(
      R"({{"id":"{}","text":"{}","agent_id":"agent-{}","kind":"{}","importance":{},"ts":{})",
      Id(i), text, rng() % 100, kKinds[rng() % 8], rng() % 101, 1700000000 + i * 7 + version);
  const int tags = static_cast<int>(rng() % 4);
  if (tags > 0) {
    out += R"(,"tags":[)";
    for (int t = 0; t < tags; ++t) out += fmt::format(R"({}"t{}")", t ? "," : "", rng() % 200);
    out += "]";
  }
  if (dim_ > 0) {
    const float* centre = &centres_[(rng() % kCentres) * dim_];
    std::normal_distribution<float> noise(0, 0.3f);
    out += R"(,"vector":[)";
    for (std::size_t d = 0; d < dim_; ++d) {
      out += fmt::format("{}{:.4f}", d ? "," : "", centre[d] + noise(rng));
    }
    out += "]";
  }
  return out + "}";
}

}  // namespace engram::bench
