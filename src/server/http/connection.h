// The HTTP server's parts (server.h): the I/O loops, what every connection
// shares, and one client connection. Internal to server/http: only server.cc
// and connection.cc include it, and with it the HTTP library (Boost.Beast on
// Asio).
#ifndef ENGRAM_SERVER_HTTP_CONNECTION_H_
#define ENGRAM_SERVER_HTTP_CONNECTION_H_

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include "server/http/api.h"
#include "server/http/server.h"
#include "server/http/wire.h"

namespace engram::server::http {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = asio::ip::tcp;

class Connection;

// One I/O thread and what it runs: its own io_context (a single thread, so
// a connection's handlers never move between threads and no hand-off wakes
// another thread), and how many connections it owns.
struct Loop {
  // The connections it owns, times two, plus one while its thread runs an
  // engine request: one word, so that a connection is never given to a loop
  // whose thread has just started a request of its only connection.
  std::atomic<std::size_t> state{0};
  std::size_t connections() const { return state.load() / 2; }
  bool busy() const { return state.load() % 2 == 1; }
  // Takes a new connection unless the thread is running a request.
  bool TryAdopt() {
    std::size_t s = state.load();
    do {
      if (s % 2 == 1) return false;
    } while (!state.compare_exchange_weak(s, s + 2));
    return true;
  }
  void Release() { state -= 2; }
  // Marks the thread busy when it owns just the one connection asking.
  bool TryRunAlone() {
    std::size_t alone = 2;
    return state.compare_exchange_strong(alone, 3);
  }
  void DoneRunning() { state -= 1; }

  std::thread thread;
  // Keeps the thread running while no socket operation is pending (a request
  // on a worker posts its reply back). Reset by Stop().
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> keep_running;
  // Destroyed first: the handlers it still holds end their connections,
  // which count themselves out of `state`.
  asio::io_context io{1};
};

// What every connection shares: the options, the Api, the worker pool, the
// counters and the registry Stop() walks.
struct Shared {
  Api* api;
  ServerOptions options;
  std::optional<asio::thread_pool> workers;
  std::atomic<std::size_t> pending{0};     // engine requests accepted, not yet answered
  std::atomic<std::size_t> body_bytes{0};  // reserved for bodies being read or handled

  // Reserves `bytes` of the body memory budget; false when they do not fit.
  bool ReserveBody(std::size_t bytes) {
    std::size_t used = body_bytes.load();
    do {
      if (used + bytes > options.max_body_memory) return false;
    } while (!body_bytes.compare_exchange_weak(used, used + bytes));
    return true;
  }
  // Loops running an engine request (Loop::TryRunAlone); at most
  // io_threads - 1, so that one loop always takes new connections.
  std::atomic<std::size_t> running_alone{0};
  bool TryRunAlone(Loop& loop) {
    std::size_t running = running_alone.load();
    do {
      if (running + 1 >= options.io_threads) return false;
    } while (!running_alone.compare_exchange_weak(running, running + 1));
    if (loop.TryRunAlone()) return true;
    --running_alone;
    return false;
  }
  void DoneRunning(Loop& loop) {
    loop.DoneRunning();
    --running_alone;
  }
  std::atomic<bool> stopping{false};
  std::atomic<bool> abandon{false};  // the grace period is over: skip queued requests

  std::mutex mutex;
  std::condition_variable changed;
  std::unordered_map<Connection*, std::weak_ptr<Connection>> live;  // guarded by mutex
  std::size_t served = 0;                                           // guarded by mutex
  std::size_t refusing = 0;                                         // guarded by mutex

  // Destroyed first: handlers they still hold (and their connections) go
  // while the members above are alive.
  std::vector<std::unique_ptr<Loop>> loops;

  // Gives a new connection to the loop owning the fewest, of those not
  // running a request (there is always one: TryRunAlone).
  Loop& Adopt() {
    for (;;) {
      Loop* best = nullptr;
      for (const auto& loop : loops) {
        if (loop->busy()) continue;
        if (!best || loop->connections() < best->connections()) best = loop.get();
      }
      if (best && best->TryAdopt()) return *best;
    }
  }

  // Every live connection (for Stop()).
  std::vector<std::shared_ptr<Connection>> Snapshot() {
    std::lock_guard<std::mutex> lock(mutex);
    std::vector<std::shared_ptr<Connection>> out;
    for (auto& [raw, weak] : live) {
      if (auto strong = weak.lock()) out.push_back(std::move(strong));
    }
    return out;
  }
};
// One client connection, driven on its loop's thread: wait for a request, read
// and check its head, admit it, read its body, answer it (an engine request
// on the loop's thread when this is its only connection, else on a worker),
// then wait for the next one or close.
class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(tcp::socket socket, Shared& shared, Loop& loop, bool refused);
  ~Connection();  // counts itself out of its loop and the registry

  void Start();  // answers a refused connection, else waits for its first request
  // Stop(): an idle connection, or one still sending its request, closes
  // now; one with a request accepted closes after its reply.
  void OnStop();
  // Stop() after the grace period.
  void ForceClose();

 private:
  enum class Phase { kIdle, kReading, kHandling, kWriting, kClosing };
  enum class After { kNext, kClose, kDrainAndClose };

  const ServerOptions& options() const { return shared_.options; }

  // The request cycle, each step on the loop's thread: wait, read and check
  // the head, admit, read the body, run (Dispatch), answer (Send).
  void WaitForRequest();
  void ReadMore();
  void ReadHead();
  void OnHead(std::string_view head);
  // Beast reads the body; it is given the head (already checked) first.
  // False when it cannot read the head.
  bool StartParser(std::string_view head);
  void ReadBody();
  void OnBody(beast::error_code ec);
  void Dispatch();
  // Runs an admitted engine request (refused once the grace period is
  // over) and gives back its in-flight slot.
  HttpResponse HandleEngineRequest(const HttpRequest& request);
  void Send(HttpResponse response, After after);

  // Refusals before the request runs: answered, then drained and closed.
  void RefuseHead(const Problem& problem);
  Problem HeadTooLarge() const;
  std::string InFlightMessage() const;

  // Half-closes, then reads and drops what the client still sends (bounded
  // in time and bytes) so that it sees the reply rather than a reset.
  void Drain();
  void DrainMore();
  void ReleaseBody();  // gives back the body memory reserved
  void Close();

  beast::tcp_stream stream_;
  Shared& shared_;
  Loop& loop_;                 // the I/O thread that runs every handler of this connection
  beast::flat_buffer buffer_;  // at most a head's worth: bodies go to the parser
  const bool refused_;         // over the connection cap: answered 503 and closed
  Phase phase_ = Phase::kIdle;
  RequestHead head_;
  std::optional<bhttp::request_parser<bhttp::string_body>> parser_;
  std::size_t scanned_ = 0;   // bytes of buffer_ known not to end the head
  bool engine_ = true;        // the admitted request calls the engine
  bool head_method_ = false;  // a HEAD request: its reply has no body
  std::size_t reserved_ = 0;  // bytes of the body memory budget held
  bool stop_requested_ = false;
  bool closed_ = false;
  std::size_t drained_ = 0;
};

}  // namespace engram::server::http

#endif  // ENGRAM_SERVER_HTTP_CONNECTION_H_
