// For tests: checks that a fuzz target's seed files hold exactly the images
// the code writes today, so that the fuzzer starts from valid inputs. With
// ENGRAM_WRITE_SEEDS=1 in the environment the files are rewritten first
// (after a format change). Paths are relative to the source root, where
// CTest runs the unit tests.
#ifndef ENGRAM_BASE_TEST_SEED_FILES_H_
#define ENGRAM_BASE_TEST_SEED_FILES_H_

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace engram::testing {

// `seeds`: (file name in `dir`, expected bytes).
inline void ExpectSeedFilesCurrent(const std::string& dir,
                                   const std::vector<std::pair<std::string, std::string>>& seeds) {
  for (const auto& [name, image] : seeds) {
    if (std::getenv("ENGRAM_WRITE_SEEDS")) std::ofstream(dir + name, std::ios::binary) << image;
    std::ifstream in(dir + name, std::ios::binary);
    ASSERT_TRUE(in.good()) << dir + name;
    std::string stored((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(stored, image) << dir + name << " is stale: rerun with ENGRAM_WRITE_SEEDS=1";
  }
}

}  // namespace engram::testing

#endif  // ENGRAM_BASE_TEST_SEED_FILES_H_
