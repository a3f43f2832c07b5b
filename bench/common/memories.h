// Synthetic agent memories (the recovery and the count/facets benchmarks):
// seeded records with a text of 12-40 words drawn from a Zipf vocabulary of
// pronounceable pseudo-words, metadata (agent, kind, importance, time, tags)
// and, for the vector variant, a 384-d vector from a Gaussian mixture. Record `i` at
// version `v` is a pure function of (seed, i, v), so a writer and a checker
// agree without sharing state.
#ifndef ENGRAM_BENCH_COMMON_MEMORIES_H_
#define ENGRAM_BENCH_COMMON_MEMORIES_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace engram::bench {

constexpr const char* kMemorySchema = R"({"fields":[
  {"name":"agent_id","type":"string","required":true},
  {"name":"kind","type":"string","required":true},
  {"name":"importance","type":"int","required":true},
  {"name":"ts","type":"int","required":true},
  {"name":"tags","type":"set<string>","optional":true}]})";

class Memories {
 public:
  // `dim` 0: no vectors. The vocabulary (30,000 words) and the mixture's
  // centres (256) are drawn from `seed`.
  Memories(std::uint64_t seed, std::size_t dim);

  std::size_t dim() const { return dim_; }
  // The id of record i: "m<i>".
  static std::string Id(std::uint64_t i);
  // Record i at version v (a replacement writes v + 1) as the JSON object
  // text Engine::Upsert takes.
  std::string Record(std::uint64_t i, std::uint64_t version) const;

 private:
  std::uint64_t seed_;
  std::size_t dim_;
  std::vector<std::string> words_;
  std::vector<double> word_cdf_;  // Zipf(1.0) over words_
  std::vector<float> centres_;    // 256 x dim
};

}  // namespace engram::bench

#endif  // ENGRAM_BENCH_COMMON_MEMORIES_H_
