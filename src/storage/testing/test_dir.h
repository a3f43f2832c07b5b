// Helpers shared by the storage tests: a scratch directory removed on exit,
// and records with deterministic contents.
#ifndef ENGRAM_STORAGE_TESTING_TEST_DIR_H_
#define ENGRAM_STORAGE_TESTING_TEST_DIR_H_

#include <atomic>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include <unistd.h>

#include "storage/store.h"

namespace engram::storage::testing {

class TestDir {
 public:
  TestDir() {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("engram_storage_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ~TestDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TestDir(const TestDir&) = delete;
  TestDir& operator=(const TestDir&) = delete;

  std::string path() const { return path_.string(); }
  std::string db() const { return (path_ / "engram.db").string(); }

 private:
  std::filesystem::path path_;
};

// dim float32 values derived from `seed`, as RecordWrite::vector bytes.
inline std::string TestVector(std::uint64_t seed, int dim) {
  std::vector<float> v(dim);
  for (int i = 0; i < dim; ++i) v[i] = static_cast<float>(seed * 31 + i) * 0.5f;
  std::string bytes(v.size() * sizeof(float), '\0');
  std::memcpy(bytes.data(), v.data(), bytes.size());
  return bytes;
}

inline RecordWrite TestRecord(std::uint32_t doc, std::string tag = "", int dim = 4) {
  RecordWrite r;
  r.id = "id-" + std::to_string(doc);
  r.doc = doc;
  r.body = "{\"n\":" + std::to_string(doc) + ",\"tag\":\"" + tag + "\"}";
  if (dim > 0) r.vector = TestVector(doc, dim);
  return r;
}

}  // namespace engram::storage::testing

#endif  // ENGRAM_STORAGE_TESTING_TEST_DIR_H_
