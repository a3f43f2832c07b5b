#include "server/http/server.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>
#include <thread>

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <unistd.h>

#include "server/http/connection.h"

namespace engram::server::http {

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
