// Three `engram serve` nodes on one PostgreSQL database against one node on
// the embedded SQLite store, over HTTP (issue 22): random writes sent to
// random nodes one at a time, the reference given the same writes in the
// same order, and after each write readers on every node, passing the
// write's token, answer as the reference does; then writers on every node
// at once, with readers on every node passing the latest token, after which
// every node, and a node started afterwards, holds the same records, which
// are the reference's when it replays the acknowledged writes in token
// order (the commit order). The seed is printed; set
// ENGRAM_NODES_SEED to replay one, ENGRAM_NODES_STEPS for more steps.
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "integration/node_ops.h"
#include "integration/serve_process.h"
#include "tests/support/store_places.h"

namespace engram::testing {
namespace {
namespace nodes_test {

std::uint64_t EnvOr(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::stoull(v) : fallback;
}

std::uint64_t Seed() {
  const std::uint64_t seed = EnvOr("ENGRAM_NODES_SEED", std::random_device{}());
  std::cout << "ENGRAM_NODES_SEED=" << seed << std::endl;
  return seed;
}

// A write's reply without its token, which the reference's does not have.
json Untokened(json body) {
  if (body.is_object()) body.erase("token");
  return body;
}

class NodesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    place_ = storage::testing::PostgresPlace::Make();
    ASSERT_NE(place_, nullptr);
    std::string error;
    for (int i = 0; i < 3; ++i) {
      nodes_.push_back(ServeProcess::Start({"--store", place_->location()}, &error));
      ASSERT_NE(nodes_.back(), nullptr) << error;
    }
    reference_ = ServeProcess::Start({}, &error);
    ASSERT_NE(reference_, nullptr) << error;
    ASSERT_TRUE(CreateNotes({nodes_[0]->port(), nodes_[1]->port(), nodes_[2]->port()}));
    ASSERT_TRUE(CreateNotes({reference_->port()}));
  }

  // Every node's records, after `token`, equal `expected`.
  void ExpectListings(const std::map<std::string, json>& expected, const std::string& token,
                      const std::vector<ServeProcess*>& nodes) {
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      std::string error;
      const std::map<std::string, json> got = Listing(nodes[i]->port(), token, &error);
      EXPECT_EQ(error, "") << "node " << i;
      EXPECT_EQ(got.size(), expected.size()) << "node " << i;
      EXPECT_TRUE(got == expected) << "node " << i << " holds other records";
    }
  }

  std::unique_ptr<storage::testing::PostgresPlace> place_;
  std::vector<std::unique_ptr<ServeProcess>> nodes_;
  std::unique_ptr<ServeProcess> reference_;
  std::string token_;
};

TEST_F(NodesTest, EveryNodeAnswersAsOneSqliteEngineGivenTheSameWrites) {
  const std::uint64_t seed = Seed();
  SCOPED_TRACE("ENGRAM_NODES_SEED=" + std::to_string(seed));
  RandomOps ops(seed);
  std::mt19937_64 pick(seed ^ 0x9e3779b97f4a7c15ull);
  const std::uint64_t steps = EnvOr("ENGRAM_NODES_STEPS", 80);
  for (std::uint64_t step = 0; step < steps && !HasFailure(); ++step) {
    const Op write = ops.Write();
    const std::size_t to = std::uniform_int_distribution<std::size_t>(0, 2)(pick);
    SCOPED_TRACE("step " + std::to_string(step) + ": " + write.what + " on node " +
                 std::to_string(to));
    const Answer written = Call(nodes_[to]->port(), write.method, write.path, write.body);
    const Answer expected = Call(reference_->port(), write.method, write.path, write.body);
    ASSERT_EQ(written.status, 200) << written.body.dump();
    ASSERT_EQ(Untokened(written.body), Untokened(expected.body));
    token_ = MaxToken(token_, written.token);
    // Readers on the three nodes at once, each after the write's token.
    std::vector<Op> reads;
    for (int r = 0; r < 3; ++r) reads.push_back(ops.Read());
    std::vector<Answer> wanted;
    for (const Op& read : reads) {
      wanted.push_back(Call(reference_->port(), read.method, read.path, read.body));
    }
    std::vector<std::string> wrong(nodes_.size());
    std::vector<std::thread> readers;
    for (std::size_t n = 0; n < nodes_.size(); ++n) {
      readers.emplace_back([&, n] {
        for (std::size_t r = 0; r < reads.size() && wrong[n].empty(); ++r) {
          const Answer got =
              Call(nodes_[n]->port(), reads[r].method, reads[r].path, reads[r].body, token_);
          const std::string differs = Differs(reads[r], got, wanted[r]);
          if (!differs.empty()) wrong[n] = reads[r].what + ": " + differs;
        }
      });
    }
    for (std::thread& t : readers) t.join();
    for (std::size_t n = 0; n < nodes_.size(); ++n) {
      EXPECT_EQ(wrong[n], "") << "node " << n << " after token " << token_;
    }
  }
  std::string error;
  const std::map<std::string, json> expected = Listing(reference_->port(), "", &error);
  ASSERT_EQ(error, "");
  ExpectListings(expected, token_, {nodes_[0].get(), nodes_[1].get(), nodes_[2].get()});
}

TEST_F(NodesTest, ConcurrentWritersOnEveryNodeLeaveOneStateEverywhere) {
  const std::uint64_t seed = Seed();
  SCOPED_TRACE("ENGRAM_NODES_SEED=" + std::to_string(seed));
  const std::uint64_t per_writer = EnvOr("ENGRAM_NODES_STEPS", 80) / 2;
  struct Acknowledged {
    std::uint64_t token;
    Op op;
    json reply;
  };
  std::mutex mu;
  std::vector<Acknowledged> acknowledged;
  std::vector<std::string> failed;
  std::size_t aborted = 0;  // 503: writers on other nodes kept winning (nothing written)
  std::string last;         // the largest token acknowledged so far
  std::atomic<int> writing{static_cast<int>(nodes_.size())};
  std::vector<std::thread> threads;
  // Readers on every node meanwhile, each after the latest token any node
  // acknowledged: answered (a get may find nothing), never left waiting.
  std::size_t read_count = 0;
  for (std::size_t n = 0; n < nodes_.size(); ++n) {
    threads.emplace_back([&, n] {
      RandomOps ops(seed ^ (n + 1) << 32);
      while (writing > 0) {
        const Op read = ops.Read();
        std::string token;
        {
          std::lock_guard<std::mutex> lock(mu);
          token = last;
        }
        const Answer a = Call(nodes_[n]->port(), read.method, read.path, read.body, token);
        std::lock_guard<std::mutex> lock(mu);
        ++read_count;
        if (a.status != 200 && !(a.status == 404 && read.method == "GET")) {
          failed.push_back(read.what + " on node " + std::to_string(n) + " after token " + token +
                           ": " + std::to_string(a.status) + " " + a.body.dump());
        }
        std::this_thread::sleep_for(Millis(2));  // readers must not starve the writers
      }
    });
  }
  for (std::size_t n = 0; n < nodes_.size(); ++n) {
    threads.emplace_back([&, n] {
      RandomOps ops(seed + n);
      for (std::uint64_t i = 0; i < per_writer; ++i) {
        const Op write = ops.Write();
        const Answer a = Call(nodes_[n]->port(), write.method, write.path, write.body);
        std::lock_guard<std::mutex> lock(mu);
        if (a.status == 503 && a.body.value("kind", "") == "aborted") {
          ++aborted;
        } else if (a.status != 200) {
          failed.push_back(write.what + " on node " + std::to_string(n) + ": " +
                           std::to_string(a.status) + " " + a.body.dump());
        } else if (!a.token.empty()) {  // no token: it changed nothing
          acknowledged.push_back({std::stoull(a.token), write, Untokened(a.body)});
          last = MaxToken(last, a.token);
        }
      }
      --writing;
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_TRUE(failed.empty()) << failed.size() << " failed, the first: " << failed.front();
  std::cout << acknowledged.size() << " writes changed the store, " << aborted
            << " were refused as stale too often; " << read_count << " reads meanwhile"
            << std::endl;
  // A write refused as stale after its retries is a 503 to try again; most win.
  EXPECT_LE(aborted, acknowledged.size() / 4) << "most writes should win";
  // Each token names one commit; replayed in that order on the reference,
  // each write does what it did on its node.
  std::sort(acknowledged.begin(), acknowledged.end(),
            [](const Acknowledged& a, const Acknowledged& b) { return a.token < b.token; });
  for (std::size_t i = 0; i < acknowledged.size(); ++i) {
    const Acknowledged& w = acknowledged[i];
    if (i > 0) {
      ASSERT_NE(w.token, acknowledged[i - 1].token) << "two writes took one token";
    }
    token_ = MaxToken(token_, std::to_string(w.token));
    const Answer replayed = Call(reference_->port(), w.op.method, w.op.path, w.op.body);
    ASSERT_EQ(Untokened(replayed.body), w.reply) << "token " << w.token << ": " << w.op.what;
  }
  std::string error;
  nodes_.push_back(ServeProcess::Start({"--store", place_->location()}, &error));
  ASSERT_NE(nodes_.back(), nullptr) << error;
  const std::map<std::string, json> expected = Listing(reference_->port(), "", &error);
  ASSERT_EQ(error, "");
  std::vector<ServeProcess*> all;
  for (auto& node : nodes_) all.push_back(node.get());
  ExpectListings(expected, token_, all);
  // Searches and counts: every node as the reference.
  RandomOps reads(seed ^ 0x5bd1e995);
  for (int r = 0; r < 30; ++r) {
    const Op read = reads.Read();
    const Answer wanted = Call(reference_->port(), read.method, read.path, read.body);
    for (std::size_t n = 0; n < all.size(); ++n) {
      const Answer got = Call(all[n]->port(), read.method, read.path, read.body, token_);
      EXPECT_EQ(Differs(read, got, wanted), "") << "node " << n << ": " << read.what;
    }
  }
}

}  // namespace nodes_test
}  // namespace
}  // namespace engram::testing
