// A record of the `notes` preset for the tenancy tests (scope_test.cc,
// record_key_test.cc; tests only): `content` fixed, the owner, scope and day
// (of January 2026) given.
#ifndef ENGRAM_ENGINE_TESTING_NOTES_H_
#define ENGRAM_ENGINE_TESTING_NOTES_H_

#include <string>

namespace engram::testing {

inline std::string Note(const std::string& id, const std::string& agent, const std::string& scope,
                        const std::string& day) {
  return R"({"id":")" + id + R"(","content":"the river mill at dawn","type":"fact","scope":")" +
         scope + R"(","agent_id":")" + agent + R"(","importance":0.5,"confidence":0.9,)" +
         R"("updated_at":"2026-01-)" + day + R"(T10:00:00Z"})";
}

}  // namespace engram::testing

#endif  // ENGRAM_ENGINE_TESTING_NOTES_H_
