// The fusion study of the embedder benchmark (issue 19): BEIR SciFact nDCG@10
// through engram::Engine for BM25 alone, each embedder's dense retrieval
// alone, and hybrid search with each fusion, parameters chosen on the first
// 100 test claims (file order) and reported on the other 200.
#ifndef ENGRAM_BENCH_EMBED_QUALITY_H_
#define ENGRAM_BENCH_EMBED_QUALITY_H_

#include <string>
#include <vector>

namespace engram::bench {

struct QualityOptions {
  std::string data;                    // ../shared/data
  std::vector<std::string> embedders;  // embedder specs (fasttext:..., model2vec:...)
  std::size_t tune = 100;              // claims used to choose parameters
};

// Prints the Markdown tables on stdout.
void RunQuality(const QualityOptions& options);

}  // namespace engram::bench

#endif  // ENGRAM_BENCH_EMBED_QUALITY_H_
