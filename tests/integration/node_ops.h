// What the multi-node tests (nodes_test.cc, nodes_failure_test.cc) send to
// `engram serve` processes over HTTP: one call with its Engram-Token, and
// seeded random writes (upserts, deletes by id and by filter) and reads
// (text searches with and without a filter, counts, gets) over a small pool
// of ids and words, so that writes collide and searches find several
// records. Replies are compared as the tests need them: a search's hits by
// id and score, whatever the order of equal scores.
#ifndef ENGRAM_TESTS_INTEGRATION_NODE_OPS_H_
#define ENGRAM_TESTS_INTEGRATION_NODE_OPS_H_

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "integration/serve_process.h"

namespace engram::testing {

using nlohmann::json;

// The collection every multi-node test writes: the notes preset, its
// `content` searched as text.
inline constexpr char kNotes[] = "notes";
json NotesCollection();

struct Answer {
  int status = 0;     // 0: no reply (refused, reset, or none within the timeout)
  json body;          // discarded when not JSON
  std::string token;  // the Engram-Token header, "" when absent
};

// One request to 127.0.0.1:`port`, sending `token` as Engram-Token unless
// empty; a null `body` sends none. Asked again (6 tries in all) while the
// node answers 503 because it has not applied `token` yet: the server's
// wait is bounded (10 s), and a loaded machine may need more.
Answer Call(int port, std::string_view method, const std::string& path, const json& body = nullptr,
            const std::string& token = "", Millis timeout = Millis(30000));

// A request by method, path and body; `what` describes it in messages.
struct Op {
  std::string method, path;
  json body;
  std::string what;
};

// A note as the collection takes it; `words` its searched content.
json Note(const std::string& id, const std::string& words, const std::string& type,
          const std::string& scope, double importance);

class RandomOps {
 public:
  explicit RandomOps(std::uint64_t seed) : rng_(seed) {}
  // An upsert of 1 to 4 records of the pool (about half the time), a delete
  // of 1 to 3 ids, or a delete by filter of one type and scope.
  Op Write();
  // A search (text, often filtered, with k past the pool so nothing is cut
  // at a tie), a count under a filter, or a get of one id.
  Op Read();

 private:
  std::string Pick(const std::vector<std::string>& from);
  json Filter();
  std::mt19937_64 rng_;
};

// Creates the notes collection through `ports[0]` and reads it on every
// port with the creation's token (Engram-Token); whether all have it.
bool CreateNotes(const std::vector<int>& ports);

// Waits (up to `seconds`) until GET /readyz answers `status`; whether it did.
bool AwaitReady(int port, int status, int seconds);

// Every record of the collection on `port` (read after `token`), by id;
// `error` says why not (a failed call, an id listed twice).
std::map<std::string, json> Listing(int port, const std::string& token, std::string* error);

// "" when `a` (from a node) and `b` (from the reference) answer `op` alike:
// the same status and, for searches, the same hits by id, record and score
// (within 1e-6 relative) in the same order but among equal scores; else
// what differs.
std::string Differs(const Op& op, const Answer& a, const Answer& b);

// The larger of two tokens ("" counts as 0).
std::string MaxToken(const std::string& a, const std::string& b);

}  // namespace engram::testing

#endif  // ENGRAM_TESTS_INTEGRATION_NODE_OPS_H_
