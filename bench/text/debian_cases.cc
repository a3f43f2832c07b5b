#include "debian_cases.h"

#include <algorithm>
#include <random>
#include <set>
#include <stdexcept>

#include <fmt/core.h>

#include "peers.h"
#include "text/query/stopwords.h"

namespace engram::bench {

std::vector<std::string> MakeDebianQueries(const std::vector<Package>& pkgs, std::size_t n,
                                           std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::string> out;
  while (out.size() < n) {
    const Package& p = pkgs[rng() % pkgs.size()];
    std::vector<std::string> words;
    std::set<std::string> seen;
    for (std::string w : SplitWords(p.text)) {
      bool letters = w.size() >= 3 && std::all_of(w.begin(), w.end(), [](char c) {
                       return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
                     });
      if (!letters) continue;
      for (char& c : w) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
      if (text::IsStopword(w) || !seen.insert(w).second) continue;
      words.push_back(w);
    }
    if (words.size() < 3) continue;
    std::size_t count = 1 + rng() % 3;
    std::string q;
    for (std::size_t j = 0; j < count; ++j) {
      std::size_t pick = j + rng() % (words.size() - j);
      std::swap(words[j], words[pick]);
      if (!q.empty()) q += ' ';
      q += words[j];
    }
    out.push_back(q);
  }
  return out;
}

std::vector<FilterCase> DebianFilters() {
  std::vector<FilterCase> f;
  // `field` $in `values`; in Xapian, the OR of the boolean terms `prefix`+value.
  auto in = [&](const char* field, const char* prefix, std::string target,
                const std::vector<std::string>& values) {
    std::string list;
    FilterCase c{field, std::move(target), "", {}, -1};
    for (const auto& s : values) {
      list += (list.empty() ? "\"" : ",\"") + s + "\"";
      c.xapian_terms.push_back(prefix + s);
    }
    c.filter = fmt::format("{{\"{}\":{{\"$in\":[{}]}}}}", field, list);
    f.push_back(std::move(c));
  };
  auto sections = [&](std::string target, const std::vector<std::string>& v) {
    in("section", "XS", std::move(target), v);
  };
  auto tags = [&](std::string target, const std::vector<std::string>& v) {
    in("tags", "XT", std::move(target), v);
  };
  auto size = [&](std::string target, std::int64_t min) {
    f.push_back({"installed_size_kib",
                 std::move(target),
                 fmt::format("{{\"installed_size_kib\":{{\"$gte\":{}}}}}", min),
                 {},
                 min});
  };
  sections("50 %", {"libs", "libdevel", "python", "doc", "perl", "devel", "utils"});
  sections("5 %", {"science", "admin"});
  sections("0.5 %", {"tex", "hamradio", "shells"});
  // Only 46.8 % of the packages have any debtag, so the broad tag filter is
  // every `role::` facet value (the widest natural tag filter).
  tags("50 %",
       {"role::program", "role::app-data", "role::data", "role::metapackage", "role::devel-lib",
        "role::shared-lib", "role::plugin", "role::documentation", "role::source",
        "role::debug-symbols", "role::TODO", "role::dummy", "role::examples", "role::kernel"});
  tags("5 %", {"devel::lang:perl"});
  tags("0.5 %", {"made-of::font"});
  size("50 %", 230);
  size("5 %", 17000);
  size("0.5 %", 160000);
  return f;
}

std::shared_ptr<const Schema> DebianSchema() {
  auto s = Schema::Parse(R"({"fields":[
    {"name":"section","type":"string","optional":true},
    {"name":"priority","type":"string","optional":true},
    {"name":"installed_size_kib","type":"int","optional":true},
    {"name":"tags","type":"set<string>","optional":true}]})");
  if (!s.ok()) throw std::runtime_error("schema: " + s.diagnostic().message);
  return s.value();
}

}  // namespace engram::bench
