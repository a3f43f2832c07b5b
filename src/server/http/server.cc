#include "server/http/server.h"

#include <cctype>
#include <chrono>
#include <thread>

#include <httplib.h>

namespace engram::server::http {

struct Server::Impl {
  Api* api;
  ServerOptions options;
  httplib::Server http;
  std::thread thread;
  bool started = false;
};

namespace {

void Reply(const HttpResponse& from, httplib::Response& to) {
  to.status = from.status;
  for (const auto& [name, value] : from.headers) to.set_header(name, value);
  to.set_content(from.body, from.content_type.c_str());
}

HttpRequest Convert(const httplib::Request& req) {
  HttpRequest r;
  r.method = req.method;
  r.path = req.path;
  for (const auto& [name, value] : req.headers) {
    std::string lower = name;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    r.headers.emplace_back(std::move(lower), value);
  }
  r.body = req.body;
  return r;
}

}  // namespace

Server::Server(Api* api, ServerOptions options) : impl_(new Impl{api, options, {}, {}, false}) {
  httplib::Server& http = impl_->http;
  const std::size_t threads = options.threads == 0 ? 1 : options.threads;
  http.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  http.set_read_timeout(options.read_timeout_seconds, 0);
  http.set_write_timeout(options.write_timeout_seconds, 0);
  http.set_payload_max_length(options.max_body_bytes);
  http.set_keep_alive_max_count(100);
  // Replies are written in pieces (headers, then body); without TCP_NODELAY
  // the last piece waits for the client's delayed ACK, about 40 ms a request
  // on keep-alive connections (measured by bench/server).
  http.set_tcp_nodelay(true);
  auto handler = [api](const httplib::Request& req, httplib::Response& res) {
    Reply(api->Handle(Convert(req)), res);
  };
  // Routing is the Api's (router.h): every path goes to it, so unknown routes
  // and wrong methods get problem+json too.
  const std::string any = "(.|\n)*";
  http.Get(any, handler);
  http.Post(any, handler);
  http.Put(any, handler);
  http.Patch(any, handler);
  http.Delete(any, handler);
  http.Options(any, handler);
  // What the library rejects before routing (413, a malformed request line)
  // becomes a problem as well.
  const httplib::Server::HandlerWithResponse on_error =
      [api, max = options.max_body_bytes](const httplib::Request&, httplib::Response& res) {
        if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
        Problem p = res.status == 413 ? PayloadTooLarge(max)
                    : res.status == 400
                        ? BadRequest("", "the HTTP request could not be read", "request.malformed")
                        : BadRequest("", "HTTP " + std::to_string(res.status), "http");
        p.status = res.status;
        p.title.clear();  // Body() titles it by the real status
        api->metrics().Record("transport", "other", res.status, 0);
        api->metrics().CountError(p.kind);
        Reply(Api::ProblemResponse(p), res);
        return httplib::Server::HandlerResponse::Handled;
      };
  http.set_error_handler(on_error);
  http.set_exception_handler(
      [](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
        Reply(Api::ProblemResponse(FromStatus(Status::Internal("unexpected error"))), res);
      });
}

Server::~Server() {
  Stop();
}

StatusOr<int> Server::Bind(const std::string& host, int port) {
  if (port == 0) {
    const int bound = impl_->http.bind_to_any_port(host);
    if (bound <= 0) return Status::IoError("cannot listen on " + host + ":0");
    return bound;
  }
  if (!impl_->http.bind_to_port(host, port)) {
    return Status::IoError("cannot listen on " + host + ":" + std::to_string(port) +
                           " (in use, or not an address of this machine)");
  }
  return port;
}

void Server::Start() {
  impl_->started = true;
  impl_->thread = std::thread([this] { impl_->http.listen_after_bind(); });
  // Stop() must not race the listener's start (stop() is a no-op before it).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!impl_->http.is_running() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

void Server::Stop() {
  if (!impl_->started) return;
  impl_->started = false;
  impl_->http.stop();  // closes the listening socket; the pool drains its work
  if (impl_->thread.joinable()) impl_->thread.join();
}

}  // namespace engram::server::http
