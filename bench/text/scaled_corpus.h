// The Debian packages at other sizes, for the cost-as-the-work-grows table of
// the full-text benchmark (issue 21, item 5; text_benchmark --only scale).
#ifndef ENGRAM_BENCH_TEXT_SCALED_CORPUS_H_
#define ENGRAM_BENCH_TEXT_SCALED_CORPUS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "data.h"

namespace engram::bench {

struct ScaledDoc {
  std::string title;
  std::string text;
};

// `n` documents made from `pkgs` with a 64-bit Mersenne Twister seeded with
// `seed` (raw outputs `% m` only, so the corpus is the same with any standard
// library):
//  - n <= pkgs.size(): a uniform sample without replacement, in package order;
//  - more: every package as it is, then further copies until there are n, in
//    which each description's words (separated by spaces) are shuffled and each
//    dropped with probability 1/10 (one word at least is kept); titles as they
//    are. The vocabulary stays the Debian one and posting lists grow with n,
//    as a bigger corpus of the same kind would make them.
std::vector<ScaledDoc> ScaleDebian(const std::vector<Package>& pkgs, std::size_t n,
                                   std::uint64_t seed);

}  // namespace engram::bench

#endif  // ENGRAM_BENCH_TEXT_SCALED_CORPUS_H_
