// A store directory of its own per test, and the copy a crash would leave
// of it, both removed before and after the test; engine options that
// checkpoint only when asked or at close. Tests only.
#ifndef ENGRAM_ENGINE_TESTING_STORE_DIR_H_
#define ENGRAM_ENGINE_TESTING_STORE_DIR_H_

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "engram/engine.h"

namespace engram::testing {

class StoreDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const ::testing::UnitTest& t = *::testing::UnitTest::GetInstance();
    dir_ = std::filesystem::temp_directory_path() /
           ("engram_" + std::string(t.current_test_info()->test_suite_name()) + "_" +
            std::to_string(t.random_seed()) + "_" + t.current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::remove_all(copy());
  }
  void TearDown() override {
    std::filesystem::remove_all(dir_);
    std::filesystem::remove_all(copy());
  }

  std::filesystem::path copy() const { return dir_.string() + "-copy"; }
  // The store's files as they are now (acknowledged writes durable, no
  // checkpoint since the last), but its LOCK, copied to copy(): what a
  // crash leaves, to open while the engine that wrote them still runs.
  void CopyAsCrashed() const {
    std::filesystem::create_directories(copy());
    for (const std::filesystem::directory_entry& f : std::filesystem::directory_iterator(dir_)) {
      if (f.path().filename() != "LOCK")
        std::filesystem::copy(f.path(), copy() / f.path().filename());
    }
  }

  static Engine::Options Quiet() {
    Engine::Options o;
    o.threads = 1;
    o.checkpoint_records = 1u << 30;  // checkpoints only when asked, or at close
    o.checkpoint_interval_ms = 0;
    return o;
  }

  std::filesystem::path dir_;
};

}  // namespace engram::testing

#endif  // ENGRAM_ENGINE_TESTING_STORE_DIR_H_
