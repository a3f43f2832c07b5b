// One client connection of the HTTP server (connection.h).
#include "server/http/connection.h"

#include <algorithm>
#include <utility>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>

namespace engram::server::http {
namespace {

// A refused connection gets this long to take its 503; a connection closed
// without reading the request's body drains it this long (and at most
// kDrainBytes) so that the client reads the answer instead of a reset.
constexpr std::chrono::seconds kRefusalDeadline{2};
constexpr std::chrono::seconds kDrainDeadline{1};
constexpr std::size_t kDrainBytes = 1 << 20;
constexpr std::size_t kReadChunk = 4096;

}  // namespace

Connection::Connection(tcp::socket socket, Shared& shared, Loop& loop, bool refused)
    : stream_(std::move(socket)),
      shared_(shared),
      loop_(loop),
      buffer_(shared.options.wire.max_head_bytes),
      refused_(refused) {}

Connection::~Connection() {
  ReleaseBody();
  loop_.Release();
  std::lock_guard<std::mutex> lock(shared_.mutex);
  shared_.live.erase(this);
  (refused_ ? shared_.refusing : shared_.served) -= 1;
  if (!refused_) --shared_.api->metrics().connections();
  shared_.changed.notify_all();
}

void Connection::Start() {
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
void Connection::OnStop() {
  asio::dispatch(stream_.get_executor(), [self = shared_from_this()] {
    self->stop_requested_ = true;
    if (self->phase_ == Phase::kIdle || self->phase_ == Phase::kReading) self->Close();
  });
}

// Stop() after the grace period.
void Connection::ForceClose() {
  asio::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->Close(); });
}

void Connection::WaitForRequest() {
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

void Connection::ReadMore() {
  const std::size_t room = buffer_.max_size() - buffer_.size();
  if (room == 0) return RefuseHead(HeadTooLarge());
  stream_.async_read_some(buffer_.prepare(std::min(room, kReadChunk)),
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

Problem Connection::HeadTooLarge() const {
  return MakeProblem(431, "request.header_too_large",
                     "the request head exceeds the limit of " +
                         std::to_string(options().wire.max_head_bytes) + " bytes");
}

void Connection::ReadHead() {
  const std::string_view data(static_cast<const char*>(buffer_.data().data()), buffer_.size());
  const std::size_t end = FindHeadEnd(data, scanned_);
  if (end == 0) {
    scanned_ = data.size();
    return ReadMore();
  }
  OnHead(data.substr(0, end));
}

void Connection::RefuseHead(const Problem& problem) {
  Send(shared_.api->Refuse(problem), After::kDrainAndClose);
}

void Connection::OnHead(std::string_view head) {
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
    return RefuseHead(MakeProblem(400, "request.malformed", "the request head could not be read"));
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
bool Connection::StartParser(std::string_view head) {
  parser_.emplace();
  parser_->header_limit(static_cast<std::uint32_t>(head.size() + 1));
  parser_->body_limit(shared_.api->limits().max_body_bytes);
  head.remove_prefix(std::min(head.find_first_not_of("\r\n"), head.size()));
  beast::error_code ec;
  parser_->put(asio::buffer(head.data(), head.size()), ec);
  return !ec && parser_->is_header_done();
}

std::string Connection::InFlightMessage() const {
  return "too many requests in flight (limit " + std::to_string(options().max_in_flight) +
         "); retry shortly";
}

void Connection::ReadBody() {
  bhttp::async_read(
      stream_, buffer_, *parser_,
      [self = shared_from_this()](beast::error_code ec, std::size_t) { self->OnBody(ec); });
}

void Connection::OnBody(beast::error_code ec) {
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
  RefuseHead(
      MakeProblem(400, "request.malformed", "the request body could not be read: " + ec.message()));
}

void Connection::Dispatch() {
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
HttpResponse Connection::HandleEngineRequest(const HttpRequest& request) {
  HttpResponse response = shared_.abandon
                              ? shared_.api->Refuse(Overloaded("the server is shutting down"))
                              : shared_.api->Handle(request);
  --shared_.pending;
  return response;
}

void Connection::Send(HttpResponse response, After after) {
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
void Connection::Drain() {
  phase_ = Phase::kClosing;
  beast::error_code ignored;
  stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
  stream_.expires_after(kDrainDeadline);
  buffer_.clear();
  DrainMore();
}

void Connection::DrainMore() {
  stream_.async_read_some(buffer_.prepare(std::min(buffer_.max_size(), kReadChunk)),
                          [self = shared_from_this()](beast::error_code ec, std::size_t n) {
                            self->drained_ += n;
                            if (ec || self->drained_ > kDrainBytes) return self->Close();
                            self->DrainMore();
                          });
}

void Connection::ReleaseBody() {
  shared_.body_bytes -= reserved_;
  reserved_ = 0;
}

void Connection::Close() {
  if (closed_) return;
  closed_ = true;
  phase_ = Phase::kClosing;
  beast::error_code ignored;
  stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
  stream_.close();
}

}  // namespace engram::server::http
