// The peers of the vector benchmark, measured in the same run on the same
// vectors and allowed-sets as engram:
//  - FAISS 1.7.3 (Debian's libfaiss-dev) IndexHNSWFlat searched with
//    SearchParametersHNSW + IDSelectorBitmap (the filtered HNSW most vector
//    stores ship), and FAISS's k-NN over the allowed ids of an IndexFlat's
//    vectors (the exact scan a caller holding the ids would write).
//  - hnswlib 0.6.2 (Debian's libhnswlib-dev), compiled with AVX2: no filter
//    support in this release, so its graph runs on the unfiltered case only,
//    as the baseline; filtered, a scan of the allowed ids with its distance.
// Each Build returns its time and memory; Variants() are the sweepable modes.
#ifndef ENGRAM_BENCH_VECTOR_PEERS_H_
#define ENGRAM_BENCH_VECTOR_PEERS_H_

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "data.h"
#include "sweep.h"

namespace engram::bench {

struct BuildInfo {
  std::string system;
  double seconds = 0;  // wall time of the build
  std::size_t threads = 0;
  double bytes_per_vector = 0;
  std::string memory_note;  // what the bytes count
  std::string build;        // where the code came from, how it was built, its SIMD level
};

struct HnswParams {
  std::size_t m = 16;
  std::size_t ef_construction = 200;
  std::size_t k = 10;
  std::vector<std::size_t> efs;  // the ef sweep
  bool quantize = false;         // engram: VectorIndexOptions::quantize (--sq8)
};

class FaissPeers {
 public:
  FaissPeers(const Dataset& d, const HnswParams& params);
  ~FaissPeers();
  // Builds IndexHNSWFlat on `threads` OpenMP threads (then sets FAISS to one
  // thread for the searches), and the IndexFlat.
  BuildInfo BuildHnsw(std::size_t threads);
  BuildInfo BuildFlat();
  // "FAISS HNSW + IDSelector" (ef sweep) and "FAISS scan of the allowed ids".
  std::vector<Variant> Variants();

 private:
  struct State;
  std::unique_ptr<State> s_;
};

class HnswlibPeer {
 public:
  HnswlibPeer(const Dataset& d, const HnswParams& params);
  ~HnswlibPeer();
  BuildInfo Build(std::size_t threads);
  // "hnswlib (unfiltered)" (ef sweep, unfiltered case only) and "hnswlib
  // scan of the allowed ids" (filtered cases only).
  std::vector<Variant> Variants();

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace engram::bench

#endif  // ENGRAM_BENCH_VECTOR_PEERS_H_
