// Loaders for the benchmark corpora in ../shared/data (never copied into the
// repository; see /work/shared/data/README.md for sources and licences):
//   - BEIR SciFact: corpus.jsonl.gz (`_id`, `title`, `text`), queries_test.jsonl
//     (`_id`, `text`), qrels_test.tsv (`query-id`, `corpus-id`, `score`, header).
//   - Debian 12 packages: packages.jsonl.gz, one package a line.
#ifndef ENGRAM_BENCH_TEXT_DATA_H_
#define ENGRAM_BENCH_TEXT_DATA_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace engram::bench {

// The lines of a gzip-compressed (or plain) text file, read with zlib.
// Throws std::runtime_error when the file cannot be read.
std::vector<std::string> ReadGzipLines(const std::string& path);

struct TextDoc {
  std::string id;
  std::string title;
  std::string text;
};

struct TextQuery {
  std::string id;
  std::string text;
};

// query id -> (document id -> graded relevance).
using Qrels = std::map<std::string, std::map<std::string, int>>;

struct SciFact {
  std::vector<TextDoc> docs;       // corpus order; the record number is the index
  std::vector<TextQuery> queries;  // the test queries, file order
  Qrels qrels;                     // test judgements
};

// `dir` holds the three SciFact files.
SciFact LoadSciFact(const std::string& dir);

struct Package {
  std::string id;
  std::string title;
  std::string text;
  std::string section;
  std::string priority;
  std::int64_t installed_size_kib = -1;  // -1: absent
  std::vector<std::string> tags;         // debtags; empty for about half
};

std::vector<Package> LoadDebian(const std::string& path);

}  // namespace engram::bench

#endif  // ENGRAM_BENCH_TEXT_DATA_H_
