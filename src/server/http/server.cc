#include "server/http/server.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <vector>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <unistd.h>

namespace engram::server::http {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = asio::ip::tcp;

// A refused connection gets this long to take its 503; a connection closed
// without reading the request's body drains it this long (and at most
// kDrainBytes) so that the client reads the answer instead of a reset.
constexpr std::chrono::seconds kRefusalDeadline{2};
constexpr std::chrono::seconds kDrainDeadline{1};
constexpr std::size_t kDrainBytes = 1 << 20;
constexpr std::size_t kReadChunk = 4096;

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
  Connection(tcp::socket socket, Shared& shared, Loop& loop, bool refused)
      : stream_(std::move(socket)),
        shared_(shared),
        loop_(loop),
        buffer_(shared.options.wire.max_head_bytes),
        refused_(refused) {}

  ~Connection() {
    ReleaseBody();
    loop_.Release();
    std::lock_guard<std::mutex> lock(shared_.mutex);
    shared_.live.erase(this);
    (refused_ ? shared_.refusing : shared_.served) -= 1;
    if (!refused_) --shared_.api->metrics().connections();
    shared_.changed.notify_all();
  }

  void Start() {
    asio::dispatch(stream_.get_executor(), [self = shared_from_this()] {
      if (self->refused_) {
        self->Send(self->shared_.api->Refuse(
                       Overloaded("too many open connections (limit " +
                                  std::to_string(self->shared_.options.max_connections) + ")")),
                   After::kDrainAndClose);
      } else {
        self->WaitForRequest();
      }
    });
  }

  // Stop(): an idle connection, or one still sending its request, closes
  // now; one with a request accepted closes after its reply.
  void OnStop() {
    asio::dispatch(stream_.get_executor(), [self = shared_from_this()] {
      self->stop_requested_ = true;
      if (self->phase_ == Phase::kIdle || self->phase_ == Phase::kReading) self->Close();
    });
  }

  // Stop() after the grace period.
  void ForceClose() {
    asio::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->Close(); });
  }

 private:
  enum class Phase { kIdle, kReading, kHandling, kWriting, kClosing };
  enum class After { kNext, kClose, kDrainAndClose };

  const ServerOptions& options() const { return shared_.options; }

  void WaitForRequest() {
    phase_ = Phase::kIdle;
    if (stop_requested_ || shared_.stopping) return Close();
    head_ = RequestHead{};
    head_method_ = false;
    parser_.reset();
    scanned_ = 0;
    if (buffer_.size() > 0) {  // a pipelined request has begun
      phase_ = Phase::kReading;
      stream_.expires_after(options().receive_timeout);
      return ReadHead();
    }
    stream_.expires_after(options().idle_timeout);
    ReadMore();
  }

  void ReadMore() {
    const std::size_t room = buffer_.max_size() - buffer_.size();
    if (room == 0) return RefuseHead(HeadTooLarge());
    stream_.async_read_some(
        buffer_.prepare(std::min(room, kReadChunk)),
        [self = shared_from_this()](beast::error_code ec, std::size_t n) {
          if (ec) {
            if (ec == beast::error::timeout && self->phase_ == Phase::kReading) {
              self->shared_.api->metrics().CountError("request.timeout");
            }
            return self->Close();
          }
          self->buffer_.commit(n);
          if (self->phase_ == Phase::kIdle) {
            // The request's deadline runs from its first byte.
            self->phase_ = Phase::kReading;
            self->stream_.expires_after(self->options().receive_timeout);
          }
          self->ReadHead();
        });
  }

  Problem HeadTooLarge() const {
    return MakeProblem(431, "request.header_too_large",
                       "the request head exceeds the limit of " +
                           std::to_string(options().wire.max_head_bytes) + " bytes");
  }

  void ReadHead() {
    const std::string_view data(static_cast<const char*>(buffer_.data().data()), buffer_.size());
    const std::size_t end = FindHeadEnd(data, scanned_);
    if (end == 0) {
      scanned_ = data.size();
      return ReadMore();
    }
    OnHead(data.substr(0, end));
  }

  void RefuseHead(const Problem& problem) {
    Send(shared_.api->Refuse(problem), After::kDrainAndClose);
  }

  void OnHead(std::string_view head) {
    std::variant<RequestHead, Problem> parsed = ParseHead(head, options().wire);
    if (auto* p = std::get_if<Problem>(&parsed)) return RefuseHead(*p);
    head_ = std::move(std::get<RequestHead>(parsed));
    head_method_ = head_.request.method == "HEAD";
    Admission admission = shared_.api->Admit(head_.request);
    engine_ = admission.engine;
    if (!admission.answer && engine_ && shared_.pending.load() >= options().max_in_flight) {
      admission.answer = shared_.api->Refuse(Overloaded(InFlightMessage()));
    }
    // A body counts against the memory budget from now until its reply:
    // its declared length, or the limit when it comes in chunks.
    const std::size_t body = head_.chunked
                                 ? shared_.api->limits().max_body_bytes
                                 : static_cast<std::size_t>(head_.content_length.value_or(0));
    if (!admission.answer && body > 0) {
      if (shared_.ReserveBody(body)) {
        reserved_ = body;
      } else {
        admission.answer = shared_.api->Refuse(
            Overloaded("too many request bodies in memory (limit " +
                       std::to_string(options().max_body_memory) + " bytes); retry shortly"));
      }
    }
    const bool read = !admission.answer && StartParser(head);
    buffer_.consume(head.size());
    if (admission.answer) {
      // The body, if any, is left unread: the connection cannot carry on.
      return Send(std::move(*admission.answer),
                  head_.has_body() ? After::kDrainAndClose : After::kNext);
    }
    if (!read) {
      return RefuseHead(
          MakeProblem(400, "request.malformed", "the request head could not be read"));
    }
    if (parser_->is_done()) return Dispatch();
    if (!head_.expect_continue || head_.minor_version == 0) return ReadBody();
    static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
    asio::async_write(stream_, asio::buffer(kContinue.data(), kContinue.size()),
                      [self = shared_from_this()](beast::error_code error, std::size_t) {
                        if (error) return self->Close();
                        self->ReadBody();
                      });
  }

  // Beast reads the body; it is given the head (already checked) first.
  // False when it cannot read the head.
  bool StartParser(std::string_view head) {
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(head.size() + 1));
    parser_->body_limit(shared_.api->limits().max_body_bytes);
    head.remove_prefix(std::min(head.find_first_not_of("\r\n"), head.size()));
    beast::error_code ec;
    parser_->put(asio::buffer(head.data(), head.size()), ec);
    return !ec && parser_->is_header_done();
  }

  std::string InFlightMessage() const {
    return "too many requests in flight (limit " + std::to_string(options().max_in_flight) +
           "); retry shortly";
  }

  void ReadBody() {
    bhttp::async_read(
        stream_, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code ec, std::size_t) { self->OnBody(ec); });
  }

  void OnBody(beast::error_code ec) {
    if (!ec) return Dispatch();
    if (ec == bhttp::error::body_limit) {
      return RefuseHead(PayloadTooLarge(shared_.api->limits().max_body_bytes));
    }
    if (ec == beast::error::timeout) shared_.api->metrics().CountError("request.timeout");
    if (ec == beast::error::timeout || ec == bhttp::error::end_of_stream ||
        ec == bhttp::error::partial_message || ec == asio::error::eof ||
        ec == asio::error::operation_aborted || ec == asio::error::connection_reset) {
      return Close();
    }
    RefuseHead(MakeProblem(400, "request.malformed",
                           "the request body could not be read: " + ec.message()));
  }

  void Dispatch() {
    phase_ = Phase::kHandling;
    stream_.expires_never();
    HttpRequest request = std::move(head_.request);
    if (parser_) request.body = std::move(parser_->get().body());
    parser_.reset();
    if (!engine_) return Send(shared_.api->Handle(request), After::kNext);
    if (shared_.pending.fetch_add(1) >= options().max_in_flight) {
      --shared_.pending;
      return Send(shared_.api->Refuse(Overloaded(InFlightMessage())), After::kNext);
    }
    // The only connection of its I/O thread runs the request there and
    // writes its reply: no hand-off (a hand-off to a worker and back cost
    // six context switches per search at 1 connection, bench/RESULTS.md),
    // and no other connection waits for it. Otherwise a worker runs it and
    // posts the reply back, and the thread goes on serving the others.
    if (shared_.TryRunAlone(loop_)) {
      HttpResponse response = HandleEngineRequest(request);
      shared_.DoneRunning(loop_);
      return Send(std::move(response), After::kNext);
    }
    asio::post(*shared_.workers, [self = shared_from_this(), request = std::move(request)] {
      HttpResponse response = self->HandleEngineRequest(request);
      asio::post(self->stream_.get_executor(), [self, response = std::move(response)]() mutable {
        self->Send(std::move(response), After::kNext);
      });
    });
  }

  // Runs an admitted engine request (refused once the grace period is
  // over) and gives back its in-flight slot.
  HttpResponse HandleEngineRequest(const HttpRequest& request) {
    HttpResponse response = shared_.abandon
                                ? shared_.api->Refuse(Overloaded("the server is shutting down"))
                                : shared_.api->Handle(request);
    --shared_.pending;
    return response;
  }

  void Send(HttpResponse response, After after) {
    ReleaseBody();  // the request and its body are gone by now
    if (closed_) return;
    phase_ = Phase::kWriting;
    if (after == After::kNext && (!head_.keep_alive || stop_requested_ || shared_.stopping)) {
      after = After::kClose;
    }
    auto message = std::make_shared<bhttp::response<bhttp::string_body>>();
    message->version(head_.minor_version == 0 ? 10 : 11);
    message->result(static_cast<unsigned>(response.status));
    for (const auto& [name, value] : response.headers) message->insert(name, value);
    if (!response.content_type.empty()) {
      message->set(bhttp::field::content_type, response.content_type);
    }
    message->body() = std::move(response.body);
    message->keep_alive(after == After::kNext);
    message->prepare_payload();
    if (head_method_) message->body().clear();  // Content-Length stays: RFC 9110 §9.3.2
    stream_.expires_after(refused_ ? std::min(options().write_timeout, kRefusalDeadline)
                                   : options().write_timeout);
    bhttp::async_write(
        stream_, *message,
        [self = shared_from_this(), message, after](beast::error_code ec, std::size_t) {
          if (ec) return self->Close();
          if (after == After::kNext) return self->WaitForRequest();
          if (after == After::kClose) return self->Close();
          self->Drain();
        });
  }

  // Half-closes, then reads and drops what the client still sends (bounded
  // in time and bytes) so that it sees the reply rather than a reset.
  void Drain() {
    phase_ = Phase::kClosing;
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream_.expires_after(kDrainDeadline);
    buffer_.clear();
    DrainMore();
  }

  void DrainMore() {
    stream_.async_read_some(buffer_.prepare(std::min(buffer_.max_size(), kReadChunk)),
                            [self = shared_from_this()](beast::error_code ec, std::size_t n) {
                              self->drained_ += n;
                              if (ec || self->drained_ > kDrainBytes) return self->Close();
                              self->DrainMore();
                            });
  }

  void ReleaseBody() {
    shared_.body_bytes -= reserved_;
    reserved_ = 0;
  }

  void Close() {
    if (closed_) return;
    closed_ = true;
    phase_ = Phase::kClosing;
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream_.close();
  }

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

}  // namespace

std::size_t DefaultWorkers() {
  return std::max<std::size_t>(4, 2 * std::thread::hardware_concurrency());
}

struct Server::Impl {
  Shared shared;
  // Accepting has a thread of its own: no request running on an I/O thread
  // delays a connect.
  asio::io_context accept_io{1};
  tcp::acceptor acceptor{accept_io};
  asio::steady_timer backoff{accept_io};
  std::thread accept_thread;
  bool started = false;
  bool stopped = false;

  void Accept() {
    acceptor.async_accept(accept_io, [this](beast::error_code ec, tcp::socket socket) {
      if (!acceptor.is_open()) return;
      if (ec) {
        // Out of descriptors or memory: accepting at once would spin.
        backoff.expires_after(std::chrono::milliseconds(50));
        backoff.async_wait([this](beast::error_code) { Accept(); });
        return;
      }
      OnAccept(std::move(socket));
      Accept();
    });
  }

  void OnAccept(tcp::socket accepted) {
    beast::error_code ignored;
    // Replies are written in pieces; without TCP_NODELAY the last one waits
    // for the client's delayed ACK (40 ms a request, bench/RESULTS.md).
    accepted.set_option(tcp::no_delay(true), ignored);
    std::shared_ptr<Connection> connection;
    {
      std::lock_guard<std::mutex> lock(shared.mutex);
      const std::size_t cap = shared.options.max_connections;
      const bool refused = shared.served >= cap;
      // Refusals are capped too: past that the socket just closes.
      if (refused && shared.refusing >= std::max<std::size_t>(cap / 8, 16)) return;
      // The connection moves to the thread of the loop that adopts it.
      Loop& loop = shared.Adopt();
      tcp::socket socket(loop.io);
      beast::error_code ec;
      const tcp::endpoint local = accepted.local_endpoint(ec);
      const tcp::socket::native_handle_type fd = ec ? -1 : accepted.release(ec);
      if (!ec) socket.assign(local.protocol(), fd, ec);
      if (ec) {
        if (fd >= 0 && !socket.is_open()) ::close(fd);
        loop.Release();
        return;
      }
      connection = std::make_shared<Connection>(std::move(socket), shared, loop, refused);
      shared.live.emplace(connection.get(), connection);
      ++(refused ? shared.refusing : shared.served);
      if (!refused) ++shared.api->metrics().connections();
    }
    connection->Start();
  }
};

Server::Server(Api* api, ServerOptions options) : impl_(new Impl{}) {
  impl_->shared.api = api;
  options.io_threads = std::max<std::size_t>(options.io_threads, 1);
  options.workers = std::max<std::size_t>(options.workers, 1);
  impl_->shared.options = options;
  for (std::size_t i = 0; i < options.io_threads; ++i) {
    impl_->shared.loops.push_back(std::make_unique<Loop>());
  }
}

Server::~Server() {
  Stop();
}

StatusOr<int> Server::Bind(const std::string& host, int port) {
  const std::string where = host + ":" + std::to_string(port);
  beast::error_code ec;
  tcp::resolver resolver(impl_->accept_io);
  const auto found = resolver.resolve(host, std::to_string(port),
                                      tcp::resolver::numeric_service | tcp::resolver::passive, ec);
  if (ec || found.empty())
    return Status::IoError("cannot listen on " + where + ": " + ec.message());
  const tcp::endpoint endpoint = found.begin()->endpoint();
  tcp::acceptor& acceptor = impl_->acceptor;
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  // The system's largest backlog (SOMAXCONN): a burst of connects waits in
  // the kernel instead of being dropped and retried a second later.
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    acceptor.close(ec);
    return Status::IoError("cannot listen on " + where +
                           " (in use, or not an address of this machine): " + ec.message());
  }
  return static_cast<int>(acceptor.local_endpoint().port());
}

void Server::Start() {
  Impl& impl = *impl_;
  if (impl.started || !impl.acceptor.is_open()) return;
  impl.started = true;
  impl.shared.workers.emplace(impl.shared.options.workers);
  for (const auto& loop : impl.shared.loops) {
    loop->keep_running.emplace(loop->io.get_executor());
    loop->thread = std::thread([&io = loop->io] { io.run(); });
  }
  asio::post(impl.accept_io, [&impl] { impl.Accept(); });
  impl.accept_thread = std::thread([&impl] { impl.accept_io.run(); });
}

Server::StopReport Server::Stop() {
  Impl& impl = *impl_;
  StopReport report;
  if (!impl.started || impl.stopped) return report;
  impl.stopped = true;
  Shared& shared = impl.shared;
  shared.stopping = true;
  asio::post(impl.accept_io, [&impl] {
    beast::error_code ignored;
    impl.acceptor.close(ignored);
    impl.backoff.cancel();
  });
  impl.accept_thread.join();  // nothing keeps it running once the acceptor closed
  // A connection registered after this snapshot sees `stopping` and closes.
  for (const auto& connection : shared.Snapshot()) connection->OnStop();
  const auto deadline = std::chrono::steady_clock::now() + shared.options.shutdown_grace;
  {
    std::unique_lock<std::mutex> lock(shared.mutex);
    shared.changed.wait_until(lock, deadline, [&] { return shared.live.empty(); });
    report.cut = shared.live.size();
  }
  if (report.cut > 0) {
    shared.abandon = true;
    for (const auto& connection : shared.Snapshot()) connection->ForceClose();
    // What remains waits for an engine call to return (bounded work).
    std::unique_lock<std::mutex> lock(shared.mutex);
    shared.changed.wait(lock, [&] { return shared.live.empty(); });
  }
  for (const auto& loop : shared.loops) {
    loop->keep_running.reset();
    loop->io.stop();
  }
  for (const auto& loop : shared.loops) loop->thread.join();
  shared.workers->join();
  return report;
}

}  // namespace engram::server::http
