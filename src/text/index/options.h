// The configuration of a text index (notes/text_index_api.md): its fields and
// their weights, the stemmer, and the BM25 parameters.
#ifndef ENGRAM_TEXT_INDEX_OPTIONS_H_
#define ENGRAM_TEXT_INDEX_OPTIONS_H_

#include <string>
#include <vector>

namespace engram::text {

enum class Stemmer { kNone, kEnglish, kDutch };  // Snowball via libstemmer (libstemmer-dev)

struct TextField {
  std::string name;
  double weight = 1.0;  // BM25F weight (text/rank/bm25.h); finite and >= 0
};

struct TextIndexOptions {
  std::vector<TextField> fields;  // one or more; texts are given in this order
  Stemmer stemmer = Stemmer::kEnglish;
  double k1 = 1.2, b = 0.75;  // BM25
  bool relax = true;          // bare-word queries: fill with partial matches (QUERY_DSL.md §3)
};

}  // namespace engram::text

#endif  // ENGRAM_TEXT_INDEX_OPTIONS_H_
