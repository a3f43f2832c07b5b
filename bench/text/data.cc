#include "data.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>
#include <zlib.h>

namespace engram::bench {

std::vector<std::string> ReadGzipLines(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");  // reads plain files too
  if (f == nullptr) throw std::runtime_error("cannot open " + path);
  gzbuffer(f, 1 << 20);
  std::string all;
  std::vector<char> buf(1 << 20);
  for (;;) {
    int n = gzread(f, buf.data(), static_cast<unsigned>(buf.size()));
    if (n < 0) {
      int err = 0;
      std::string msg = gzerror(f, &err);
      gzclose(f);
      throw std::runtime_error("cannot read " + path + ": " + msg);
    }
    if (n == 0) break;
    all.append(buf.data(), static_cast<std::size_t>(n));
  }
  gzclose(f);
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < all.size()) {
    std::size_t end = all.find('\n', start);
    if (end == std::string::npos) end = all.size();
    std::string line = all.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) lines.push_back(std::move(line));
    start = end + 1;
  }
  return lines;
}

namespace {

std::string StringOr(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return {};
  return it->get<std::string>();
}

}  // namespace

SciFact LoadSciFact(const std::string& dir) {
  SciFact s;
  for (const std::string& line : ReadGzipLines(dir + "/corpus.jsonl.gz")) {
    auto j = nlohmann::json::parse(line);
    s.docs.push_back({StringOr(j, "_id"), StringOr(j, "title"), StringOr(j, "text")});
  }
  for (const std::string& line : ReadGzipLines(dir + "/queries_test.jsonl")) {
    auto j = nlohmann::json::parse(line);
    s.queries.push_back({StringOr(j, "_id"), StringOr(j, "text")});
  }
  bool header = true;
  for (const std::string& line : ReadGzipLines(dir + "/qrels_test.tsv")) {
    if (header) {  // query-id corpus-id score
      header = false;
      continue;
    }
    std::istringstream in(line);
    std::string qid, did;
    int score = 0;
    if (!(in >> qid >> did >> score)) throw std::runtime_error("bad qrels line: " + line);
    s.qrels[qid][did] = score;
  }
  return s;
}

std::vector<Package> LoadDebian(const std::string& path) {
  std::vector<Package> out;
  for (const std::string& line : ReadGzipLines(path)) {
    auto j = nlohmann::json::parse(line);
    Package p;
    p.id = StringOr(j, "id");
    p.title = StringOr(j, "title");
    p.text = StringOr(j, "text");
    p.section = StringOr(j, "section");
    p.priority = StringOr(j, "priority");
    if (auto it = j.find("installed_size_kib"); it != j.end() && it->is_number_integer()) {
      p.installed_size_kib = it->get<std::int64_t>();
    }
    if (auto it = j.find("tags"); it != j.end() && it->is_array()) {
      for (const auto& t : *it) {
        if (t.is_string()) p.tags.push_back(t.get<std::string>());
      }
    }
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace engram::bench
