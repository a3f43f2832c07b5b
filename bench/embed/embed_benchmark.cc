// The embedder benchmark (issue 19); bench/embed/run.sh builds and runs it.
//
//   embed_benchmark [--data DIR] [--fasttext FILE] [--model2vec DIR]
//                   [--only quality|speed] [--passes N] [--records N]
//
//  --fasttext   the SciFact fastText model (bench/embed/prepare_scifact.sh);
//               default build/embed-data/scifact-fasttext.bin under the build
//  --model2vec  a real model2vec model directory (potion-base-8M, ...), for
//               the optional rows; none can be downloaded on our machines
//
// 1. quality (quality.h): SciFact nDCG@10 for BM25, dense and each fusion.
// 2. speed (speed.h): embedding throughput and latency, with the fastText
//    model, a 256-d model2vec model of potion-base-8M's shape made here from
//    random weights and the shipped tokenizer, and --model2vec when given.
#include <filesystem>
#include <iostream>

#include <unistd.h>

#include "common/cli.h"
#include "quality.h"
#include "speed.h"

namespace engram::bench {
namespace {

struct Options {
  std::string data = ENGRAM_DATA_DIR;
  std::string fasttext = std::string(ENGRAM_BENCH_BUILD_DIR) + "/embed-data/scifact-fasttext.bin";
  std::string model2vec;
  std::string only;
  std::size_t passes = 5;
  std::size_t records = 0;
};

void Run(int argc, char** argv) {
  Options o;
  for (ArgReader args(argc, argv); args.Next();) {
    if (args.Is("--data")) {
      o.data = args.Value();
    } else if (args.Is("--fasttext")) {
      o.fasttext = args.Value();
    } else if (args.Is("--model2vec")) {
      o.model2vec = args.Value();
    } else if (args.Is("--only")) {
      o.only = args.Value();
    } else if (args.Is("--passes")) {
      o.passes = std::stoul(args.Value());
    } else if (args.Is("--records")) {
      o.records = std::stoul(args.Value());
    } else {
      args.Unknown("see the usage in bench/embed/embed_benchmark.cc");
    }
  }
  std::vector<std::string> embedders = {"fasttext:" + o.fasttext};
  if (!o.model2vec.empty()) embedders.push_back("model2vec:" + o.model2vec);
  if (o.only.empty() || o.only == "quality") {
    RunQuality({o.data, embedders, 100});
  }
  if (o.only.empty() || o.only == "speed") {
    const std::string dir = std::filesystem::temp_directory_path() /
                            ("engram_potion8m_shape." + std::to_string(::getpid()));
    std::vector<std::string> speed = {WriteRandomPotion8M(ENGRAM_SOURCE_DIR, dir)};
    speed.insert(speed.end(), embedders.begin(), embedders.end());
    RunSpeed({o.data, speed, o.passes, o.records});
    std::filesystem::remove_all(dir);
  }
}

}  // namespace
}  // namespace engram::bench

int main(int argc, char** argv) {
  return engram::bench::RunGuarded("embed_benchmark", [&] { engram::bench::Run(argc, argv); });
}
