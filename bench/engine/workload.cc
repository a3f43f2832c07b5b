#include "workload.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

namespace engram::bench {
namespace {

bool Usable(const std::vector<float>& v) {
  bool nonzero = false;
  for (const float x : v) {
    if (!std::isfinite(x)) return false;
    nonzero = nonzero || x != 0.0f;
  }
  return nonzero;
}

std::string JoinJson(const std::vector<std::string>& tokens) {
  std::string out = "[";
  for (std::size_t i = 0; i < tokens.size(); ++i) out += (i ? "," : "") + tokens[i];
  return out + "]";
}

// Lower-cased runs of a-z, at least 3 letters, without a few stop words.
std::vector<std::string> ContentWords(const std::string& text) {
  static const std::set<std::string> kStop = {"the", "and",  "for", "with", "that", "this",
                                              "are", "from", "not", "can",  "you",  "its"};
  std::vector<std::string> words;
  std::string cur;
  auto flush = [&]() {
    if (cur.size() >= 3 && kStop.count(cur) == 0) words.push_back(cur);
    cur.clear();
  };
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalpha(c) && c < 128) {
      cur.push_back(static_cast<char>(std::tolower(c)));
    } else {
      flush();
    }
  }
  flush();
  return words;
}

}  // namespace

Workload LoadWorkload(const std::string& packages_path, const std::string& vectors_path) {
  Workload w;
  w.packages = LoadDebian(packages_path);
  std::ifstream in(vectors_path);
  if (!in) {
    throw std::runtime_error("cannot read " + vectors_path +
                             " (make it with bench/vector/prepare_fasttext.sh OUT_DIR)");
  }
  std::vector<std::vector<std::string>> tokens;
  std::string line;
  while (std::getline(in, line)) {
    const std::size_t tab = line.find('\t');
    if (tab == std::string::npos) throw std::runtime_error("no tab in a line of " + vectors_path);
    std::istringstream fields(line.substr(tab + 1));
    std::vector<std::string> row;
    std::vector<float> v;
    for (std::string t; fields >> t;) {
      char* end = nullptr;
      const float x = std::strtof(t.c_str(), &end);
      if (end == t.c_str() || *end != '\0') throw std::runtime_error("bad number '" + t + "'");
      v.push_back(x);
      row.push_back(t);
    }
    if (w.dim == 0) w.dim = v.size();
    if (v.size() != w.dim || w.dim == 0) throw std::runtime_error("ragged vectors file");
    w.vectors.push_back(std::move(v));
    tokens.push_back(std::move(row));
  }
  if (w.vectors.size() != w.packages.size()) {
    throw std::runtime_error(
        fmt::format("{} packages but {} vectors", w.packages.size(), w.vectors.size()));
  }
  std::vector<double> sum(w.dim, 0);
  std::size_t usable = 0;
  for (const auto& v : w.vectors) {
    if (!Usable(v)) continue;
    ++usable;
    for (std::size_t j = 0; j < w.dim; ++j) sum[j] += v[j];
  }
  std::vector<float> mean(w.dim);
  std::vector<std::string> mean_tokens(w.dim);
  for (std::size_t j = 0; j < w.dim; ++j) {
    mean[j] = static_cast<float>(sum[j] / static_cast<double>(std::max<std::size_t>(usable, 1)));
    mean_tokens[j] = fmt::format("{}", mean[j]);
  }
  w.vector_json.reserve(w.vectors.size());
  for (std::size_t i = 0; i < w.vectors.size(); ++i) {
    if (Usable(w.vectors[i])) {
      w.vector_json.push_back(JoinJson(tokens[i]));
    } else {
      w.vectors[i] = mean;
      w.vector_json.push_back(JoinJson(mean_tokens));
      ++w.replaced_vectors;
    }
  }
  return w;
}

std::string RecordJson(const Workload& w, std::size_t i, bool with_vector) {
  const Package& p = w.packages[i];
  nlohmann::json j = {{"id", p.id}, {"title", p.title}, {"text", p.text}};
  if (!p.section.empty()) j["section"] = p.section;
  if (!p.tags.empty()) j["tags"] = p.tags;
  if (p.installed_size_kib >= 0) j["installed_size_kib"] = p.installed_size_kib;
  std::string out = j.dump();
  if (with_vector) {
    out.pop_back();  // the closing brace
    out += ",\"vector\":" + w.vector_json[i] + "}";
  }
  return out;
}

std::vector<BenchQuery> MakeQueries(const Workload& w, std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<BenchQuery> out;
  std::set<std::size_t> used;
  const std::size_t total = w.packages.size();
  while (out.size() < n && used.size() < total) {
    const std::size_t i = static_cast<std::size_t>(rng() % total);
    if (!used.insert(i).second) continue;
    const std::vector<std::string> words = ContentWords(w.packages[i].text);
    if (words.size() < 3) continue;
    const std::size_t len = 3 + static_cast<std::size_t>(rng() % 3);
    const std::size_t take = std::min(len, words.size());
    const std::size_t start = static_cast<std::size_t>(rng() % (words.size() - take + 1));
    BenchQuery q;
    q.package = i;
    for (std::size_t k = 0; k < take; ++k) q.text += (k ? " " : "") + words[start + k];
    q.vector = w.vectors[i];
    out.push_back(std::move(q));
  }
  return out;
}

std::vector<FilterCase> Filters() {
  auto has_tag = [](const Package& p, const std::string& tag) {
    return std::find(p.tags.begin(), p.tags.end(), tag) != p.tags.end();
  };
  return {
      {"none", "", [](const Package&) { return true; }},
      {"~50 %", R"({"installed_size_kib":{"$lt":230}})",
       [](const Package& p) { return p.installed_size_kib >= 0 && p.installed_size_kib < 230; }},
      {"~5 %", R"({"section":"devel"})", [](const Package& p) { return p.section == "devel"; }},
      {"~0.5 %", R"({"tags":"use::configuring"})",
       [has_tag](const Package& p) { return has_tag(p, "use::configuring"); }},
  };
}

}  // namespace engram::bench
