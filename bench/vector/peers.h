// The peers of the vector benchmark, measured in the same run on the same
// vectors and allowed-sets as engram:
//  - FAISS 1.7.3 (Debian's libfaiss-dev) IndexHNSWFlat searched with
//    SearchParametersHNSW + IDSelectorBitmap (the filtered HNSW most vector
//    stores ship), and IndexFlat with the same selector (FAISS's exact scan).
//  - hnswlib 0.6.2 (Debian's libhnswlib-dev): no filter support in this
//    release, so it runs on the unfiltered case only, as a baseline.
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
};

struct HnswParams {
  std::size_t m = 16;
  std::size_t ef_construction = 200;
  std::size_t k = 10;
  std::vector<std::size_t> efs;  // the ef sweep
};

class FaissPeers {
 public:
  FaissPeers(const Dataset& d, const HnswParams& params);
  ~FaissPeers();
  // Builds IndexHNSWFlat on `threads` OpenMP threads (then sets FAISS to one
  // thread for the searches), and the IndexFlat.
  BuildInfo BuildHnsw(std::size_t threads);
  BuildInfo BuildFlat();
  // "FAISS HNSW + IDSelector" (ef sweep) and "FAISS flat + IDSelector".
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
  // "hnswlib" (ef sweep, unfiltered case only).
  std::vector<Variant> Variants();

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace engram::bench

#endif  // ENGRAM_BENCH_VECTOR_PEERS_H_
