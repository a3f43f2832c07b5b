// Several `engram serve` nodes on one PostgreSQL database (issue 22): the
// data and the replication-lag client that bench/cluster/run.sh drives.
//
//   cluster_bench prep --work DIR [--records N] [--queries Q] [--seed S]
//       DIR/schema.json: the memories' schema; DIR/records.jsonl: N synthetic agent memories
//       (bench/common/memories.h, no vectors), ids m0..m<N-1>; DIR/requests.jsonl: Q text search
//       bodies (two words of a stored record's text, k = 10), half of them with a vector_filter
//       filter (the kind in two kinds drawn independently, at times the same; or one agent),
//       for search.lua.
//   cluster_bench lag --write PORT --read PORT --collection C [--rate R]
//                     [--seconds S] [--first I] [--seed S]
//       One writer upserts one record at a time to the node on --write, on a
//       steady schedule of R writes a second (a write that falls behind the
//       schedule starts at once: counted as "late"); each acknowledged write
//       (its Engram-Token) is handed to a reader that GETs that record from
//       the node on --read with `Engram-Token: <token>`, which that node
//       answers only once it has applied the write. Lag: from the writer
//       reading the acknowledgment to the reader reading the other node's 200
//       carrying the record (an upper bound: it includes one GET round trip
//       on the reading node, whose p50 is measured after the run on records
//       already applied, "floor"). Records m<I>.. (default 10,000,000) so as
//       not to touch the prepared ones. Prints one RESULT line.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <fstream>
#include <iostream>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "common/cli.h"
#include "common/memories.h"
#include "integration/serve_process.h"

namespace engram::bench {
namespace {

using Clock = std::chrono::steady_clock;
using testing::RawConnection;
using testing::RawReply;

constexpr std::uint64_t kSeed = 22;
constexpr const char* kKinds[] = {"fact", "event", "preference", "task", "note"};

struct PrepOptions {
  std::string work;
  std::uint64_t records = 30000, queries = 2000, seed = kSeed;
};

// The text of a record JSON line made by Memories::Record (no escapes in it:
// the words are pronounceable pseudo-words).
std::vector<std::string> TextWords(const std::string& record) {
  const std::string key = "\"text\":\"";
  const std::size_t at = record.find(key);
  if (at == std::string::npos) throw std::runtime_error("a record without text: " + record);
  const std::size_t start = at + key.size(), end = record.find('"', start);
  std::istringstream in(record.substr(start, end - start));
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

void Prep(const PrepOptions& o) {
  if (o.work.empty()) throw std::runtime_error("prep: --work DIR is required");
  std::ofstream schema(o.work + "/schema.json");
  schema << kMemorySchema << '\n';
  schema.close();
  if (!schema) throw std::runtime_error("cannot write " + o.work + "/schema.json");
  const Memories memories(o.seed, 0);
  std::ofstream records(o.work + "/records.jsonl");
  for (std::uint64_t i = 0; i < o.records; ++i) records << memories.Record(i, 0) << '\n';
  records.close();
  if (!records) throw std::runtime_error("cannot write " + o.work + "/records.jsonl");

  std::mt19937_64 rng(o.seed + 1);
  std::ofstream requests(o.work + "/requests.jsonl");
  for (std::uint64_t q = 0; q < o.queries; ++q) {
    const std::vector<std::string> words = TextWords(memories.Record(rng() % o.records, 0));
    std::string body = fmt::format(R"({{"query":"{} {}","mode":"text","k":10)",
                                   words[rng() % words.size()], words[rng() % words.size()]);
    if (q % 4 == 1) {
      body += fmt::format(R"(,"filter":{{"kind":{{"$in":["{}","{}"]}}}},"dialect":"vector_filter")",
                          kKinds[rng() % 5], kKinds[rng() % 5]);
    } else if (q % 4 == 3) {
      body += fmt::format(R"(,"filter":{{"agent_id":"agent-{}"}},"dialect":"vector_filter")",
                          rng() % 100);
    }
    requests << body << "}\n";
  }
  requests.close();
  if (!requests) throw std::runtime_error("cannot write " + o.work + "/requests.jsonl");
  std::cerr << "prep: " << o.records << " records, " << o.queries << " search bodies in " << o.work
            << "\n";
}

struct LagOptions {
  int write = 0, read = 0;
  std::string collection = "memories";
  double rate = 50, seconds = 20;
  std::uint64_t first = 10000000, seed = kSeed;
};

struct Acked {
  std::uint64_t record;
  std::string token;
  Clock::time_point sent, acked;
};

double Ms(Clock::duration d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t at = std::min(v.size() - 1, static_cast<std::size_t>(p * v.size()));
  return v[at];
}

std::string GetWithToken(const std::string& collection, const std::string& id,
                         const std::string& token) {
  return testing::Request("GET", "/v1/collections/" + collection + "/records/" + id, "",
                          "Engram-Token: " + token + "\r\n");
}

void Lag(const LagOptions& o) {
  if (o.write == 0 || o.read == 0) throw std::runtime_error("lag: --write and --read are required");
  if (o.rate <= 0 || o.seconds <= 0) throw std::runtime_error("lag: --rate and --seconds > 0");
  const Memories memories(o.seed, 0);
  RawConnection writer(o.write), reader(o.read);
  if (!writer.ok() || !reader.ok()) throw std::runtime_error("lag: cannot connect");

  std::mutex mu;
  std::condition_variable cv;
  std::deque<Acked> queue;
  bool done = false;
  std::vector<double> lag_ms, from_send_ms;
  std::uint64_t read_errors = 0;
  std::vector<Acked> applied;  // kept for the floor
  std::thread read_thread([&] {
    for (;;) {
      Acked a;
      {
        std::unique_lock lock(mu);
        cv.wait(lock, [&] { return done || !queue.empty(); });
        if (queue.empty()) return;
        a = std::move(queue.front());
        queue.pop_front();
      }
      const std::string id = Memories::Id(a.record);
      const RawReply r = reader.Exchange(GetWithToken(o.collection, id, a.token));
      const Clock::time_point seen = Clock::now();
      if (r.status != 200 || r.body.find("\"" + id + "\"") == std::string::npos) {
        ++read_errors;
        std::cerr << "lag: read " << id << " token " << a.token << ": status " << r.status << " "
                  << r.body.substr(0, 200) << "\n";
        continue;
      }
      lag_ms.push_back(Ms(seen - a.acked));
      from_send_ms.push_back(Ms(seen - a.sent));
      applied.push_back(std::move(a));
    }
  });

  const auto period =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1.0 / o.rate));
  const std::uint64_t writes = static_cast<std::uint64_t>(o.rate * o.seconds);
  std::vector<double> write_ms;
  std::uint64_t late = 0, write_errors = 0;
  const Clock::time_point start = Clock::now();
  for (std::uint64_t k = 0; k < writes; ++k) {
    const Clock::time_point due = start + k * period;
    if (Clock::now() > due + period) ++late;
    std::this_thread::sleep_until(due);
    const std::uint64_t record = o.first + k;
    const std::string body = "{\"records\":[" + memories.Record(record, 0) + "]}";
    const Clock::time_point sent = Clock::now();
    const RawReply r = writer.Exchange(
        testing::Request("POST", "/v1/collections/" + o.collection + "/records", body));
    const Clock::time_point acked = Clock::now();
    const std::string token = r.Header("Engram-Token");
    if (r.status != 200 || token.empty()) {
      ++write_errors;
      std::cerr << "lag: write " << record << ": status " << r.status << " "
                << r.body.substr(0, 200) << "\n";
      continue;
    }
    write_ms.push_back(Ms(acked - sent));
    {
      std::lock_guard lock(mu);
      queue.push_back({record, token, sent, acked});
    }
    cv.notify_one();
  }
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  {
    std::lock_guard lock(mu);
    done = true;
  }
  cv.notify_one();
  read_thread.join();

  // The floor: the same GET, token included, of records the node has applied.
  std::vector<double> floor_ms;
  for (std::size_t i = applied.size() > 200 ? applied.size() - 200 : 0; i < applied.size(); ++i) {
    const Clock::time_point t = Clock::now();
    const RawReply r = reader.Exchange(
        GetWithToken(o.collection, Memories::Id(applied[i].record), applied[i].token));
    if (r.status == 200) floor_ms.push_back(Ms(Clock::now() - t));
  }
  std::cout << fmt::format(
      "RESULT rate={} seconds={:.1f} writes={} late={} write_errors={} read_errors={} "
      "write_p50_ms={:.2f} write_p99_ms={:.2f} lag_p50_ms={:.2f} lag_p99_ms={:.2f} "
      "lag_max_ms={:.2f} from_send_p50_ms={:.2f} from_send_p99_ms={:.2f} floor_p50_ms={:.2f}\n",
      o.rate, elapsed, write_ms.size(), late, write_errors, read_errors, Percentile(write_ms, 0.5),
      Percentile(write_ms, 0.99), Percentile(lag_ms, 0.5), Percentile(lag_ms, 0.99),
      Percentile(lag_ms, 1.0), Percentile(from_send_ms, 0.5), Percentile(from_send_ms, 0.99),
      Percentile(floor_ms, 0.5));
}

void Main(int argc, char** argv) {
  const std::string usage = "usage: see the top of bench/cluster/cluster_bench.cc";
  if (argc < 2) throw std::runtime_error(usage);
  const std::string command = argv[1];
  if (command == "prep") {
    PrepOptions o;
    for (ArgReader args(argc - 1, argv + 1); args.Next();) {
      if (args.Is("--work"))
        o.work = args.Value();
      else if (args.Is("--records"))
        o.records = std::stoull(args.Value());
      else if (args.Is("--queries"))
        o.queries = std::stoull(args.Value());
      else if (args.Is("--seed"))
        o.seed = std::stoull(args.Value());
      else
        args.Unknown(usage);
    }
    if (o.records == 0) throw std::runtime_error("prep: --records must be > 0");
    Prep(o);
  } else if (command == "lag") {
    LagOptions o;
    for (ArgReader args(argc - 1, argv + 1); args.Next();) {
      if (args.Is("--write"))
        o.write = std::stoi(args.Value());
      else if (args.Is("--read"))
        o.read = std::stoi(args.Value());
      else if (args.Is("--collection"))
        o.collection = args.Value();
      else if (args.Is("--rate"))
        o.rate = std::stod(args.Value());
      else if (args.Is("--seconds"))
        o.seconds = std::stod(args.Value());
      else if (args.Is("--first"))
        o.first = std::stoull(args.Value());
      else if (args.Is("--seed"))
        o.seed = std::stoull(args.Value());
      else
        args.Unknown(usage);
    }
    Lag(o);
  } else {
    throw std::runtime_error("unknown command '" + command + "'; " + usage);
  }
}

}  // namespace
}  // namespace engram::bench

int main(int argc, char** argv) {
  return engram::bench::RunGuarded("cluster_bench", [&] { engram::bench::Main(argc, argv); });
}
