// For tests: trains a tiny fastText model with Debian's `fasttext` on the
// shipped topics corpus (testdata/topics.txt: six topics, self-written), so
// tests have real word vectors in which words of a topic lie together.
#ifndef ENGRAM_EMBED_TEST_FASTTEXT_H_
#define ENGRAM_EMBED_TEST_FASTTEXT_H_

#include <cstdlib>
#include <filesystem>
#include <string>

namespace engram::embed::testing {

// The model file `dir`/topics.bin, trained once per directory (about 2 s,
// deterministic: one thread, fastText's fixed seed); empty when training
// failed (no `fasttext` on the PATH: scripts/setup installs it).
inline std::string TrainTopicsModel(const std::string& source_dir, const std::string& dir) {
  const std::string model = dir + "/topics";
  if (std::filesystem::exists(model + ".bin")) return model + ".bin";
  std::filesystem::create_directories(dir);
  const std::string command = "fasttext skipgram -input '" + source_dir +
                              "/src/embed/testdata/topics.txt' -output '" + model +
                              "' -dim 32 -epoch 50 -lr 0.2 -minCount 1 -bucket 20000 -thread 1 "
                              "-verbose 0 > /dev/null 2>&1";
  if (std::system(command.c_str()) != 0) return "";
  std::filesystem::remove(model + ".vec");
  return model + ".bin";
}

}  // namespace engram::embed::testing

#endif  // ENGRAM_EMBED_TEST_FASTTEXT_H_
