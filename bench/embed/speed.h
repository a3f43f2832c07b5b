// The speed part of the embedder benchmark (issue 19), one thread:
//   - embedding throughput (sentences/s) against text length, for each local
//     embedder, texts cut from SciFact abstracts;
//   - the latency of embedding one 20-word query (the aim: <= 50 us with a
//     256-d model2vec model of potion-base-8M's shape);
//   - ingest records/s of the Debian packages into a collection with each
//     local embedder (the engine embeds every record's text);
//   - hybrid search latency for a query alone, the query embedded by the
//     collection's embedder.
#ifndef ENGRAM_BENCH_EMBED_SPEED_H_
#define ENGRAM_BENCH_EMBED_SPEED_H_

#include <string>
#include <vector>

namespace engram::bench {

struct SpeedOptions {
  std::string data;                    // ../shared/data
  std::vector<std::string> embedders;  // embedder specs
  std::size_t passes = 5;              // timed passes (the median is reported)
  std::size_t records = 0;             // Debian packages to ingest (0: all)
};

void RunSpeed(const SpeedOptions& options);

// Writes a model2vec model of potion-base-8M's shape into `dir`: the shipped
// bge-base vocabulary (29,528 tokens, tokenizer.json from `source_dir`'s test
// models), a 29,528 x 256 F32 matrix of seeded Gaussian values, normalize on.
// Returns the embedder spec text for it.
std::string WriteRandomPotion8M(const std::string& source_dir, const std::string& dir);

}  // namespace engram::bench

#endif  // ENGRAM_BENCH_EMBED_SPEED_H_
