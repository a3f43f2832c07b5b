#include "scaled_corpus.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <string_view>
#include <utility>

namespace engram::bench {
namespace {

std::vector<std::string_view> Words(std::string_view text) {
  std::vector<std::string_view> words;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = std::min(text.find(' ', at), text.size());
    if (end > at) words.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return words;
}

// A variation of `text`: its words shuffled, each dropped with probability
// 1/10, at least one kept.
std::string Vary(std::string_view text, std::mt19937_64& rng) {
  std::vector<std::string_view> words = Words(text);
  for (std::size_t i = words.size(); i > 1; --i) std::swap(words[i - 1], words[rng() % i]);
  std::string out;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const bool last_chance = out.empty() && i + 1 == words.size();
    if (rng() % 10 == 0 && !last_chance) continue;
    if (!out.empty()) out += ' ';
    out += words[i];
  }
  return out;
}

}  // namespace

std::vector<ScaledDoc> ScaleDebian(const std::vector<Package>& pkgs, std::size_t n,
                                   std::uint64_t seed) {
  std::vector<ScaledDoc> docs;
  if (pkgs.empty()) return docs;
  std::mt19937_64 rng(seed);
  docs.reserve(n);
  if (n <= pkgs.size()) {
    std::vector<std::size_t> order(pkgs.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    for (std::size_t i = 0; i < n; ++i) std::swap(order[i], order[i + rng() % (order.size() - i)]);
    order.resize(n);
    std::sort(order.begin(), order.end());
    for (std::size_t i : order) docs.push_back({pkgs[i].title, pkgs[i].text});
    return docs;
  }
  for (std::size_t i = 0; i < n; ++i) {
    const Package& p = pkgs[i % pkgs.size()];
    docs.push_back({p.title, i < pkgs.size() ? p.text : Vary(p.text, rng)});
  }
  return docs;
}

}  // namespace engram::bench
