// For tests that ship a copy of a fixture whose canonical file lives in
// ../shared/data beside the repository: reads the canonical file, so that a
// test can check the shipped copy still equals it. ../shared is there in CI
// and for the project's developers but not on a user's clone; there the
// check is skipped, and the skip says why.
#ifndef ENGRAM_BASE_TEST_SHARED_DATA_H_
#define ENGRAM_BASE_TEST_SHARED_DATA_H_

#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>

namespace engram::testing {

// The bytes of `source_dir`/../shared/data/`relative`, or nullopt when
// ../shared/data is not beside the repository.
inline std::optional<std::string> ReadSharedData(const std::string& source_dir,
                                                 const std::string& relative) {
  const std::filesystem::path root = std::filesystem::path(source_dir) / ".." / "shared" / "data";
  std::error_code ec;
  if (!std::filesystem::is_directory(root, ec)) return std::nullopt;
  std::ifstream in(root / relative, std::ios::binary);
  if (!in) return std::string();  // ../shared is there but the file is not: a mismatch
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace engram::testing

// Reads ../shared/data/`relative` into `var`, or skips the test saying why.
#define ENGRAM_READ_SHARED_OR_SKIP(var, source_dir, relative)                              \
  std::string var;                                                                         \
  if (auto shared_ = ::engram::testing::ReadSharedData(source_dir, relative); !shared_) {  \
    GTEST_SKIP() << "../shared/data is not beside the repository (as on a user's clone): " \
                    "not comparing the shipped copy with " relative;                       \
  } else {                                                                                 \
    var = std::move(*shared_);                                                             \
  }

#endif  // ENGRAM_BASE_TEST_SHARED_DATA_H_
