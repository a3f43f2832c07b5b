#include "integration/serve_process.h"

#include <algorithm>
#include <cctype>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

namespace engram::testing {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

int RemainingMs(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<Millis>(deadline - Clock::now()).count();
  return static_cast<int>(std::max<long long>(left, 0));
}

}  // namespace

std::unique_ptr<ServeProcess> ServeProcess::Start(const std::vector<std::string>& args,
                                                  std::string* error) {
  static int serial = 0;
  std::unique_ptr<ServeProcess> p(new ServeProcess());
  p->dir_ = fs::temp_directory_path() /
            ("engram-serve-" + std::to_string(::getpid()) + "-" + std::to_string(serial++));
  fs::remove_all(p->dir_);
  fs::create_directories(p->dir_);
  const char* env = std::getenv("ENGRAM_BIN");
  std::vector<std::string> argv = {env != nullptr && *env != '\0' ? env : ENGRAM_BIN, "serve",
                                   "--listen", "127.0.0.1:0"};
  if (std::find_if(args.begin(), args.end(), [](const std::string& a) {
        return a == "--store" || a == "--db";
      }) == args.end()) {
    argv.insert(argv.end(), {"--db", (p->dir_ / "store").string()});
  }
  argv.insert(argv.end(), args.begin(), args.end());
  // The child reads ASAN_OPTIONS at its start; this process read its own already.
  const char* asan = std::getenv("ASAN_OPTIONS");
  const std::string options = std::string(asan != nullptr ? asan : "") +
                              (asan != nullptr && *asan != '\0' ? ":" : "") +
                              "quarantine_size_mb=8";
  setenv("ASAN_OPTIONS", options.c_str(), 1);
  p->process_ = std::make_unique<Subprocess>(argv);
  if (asan != nullptr) {
    setenv("ASAN_OPTIONS", asan, 1);
  } else {
    unsetenv("ASAN_OPTIONS");
  }
  constexpr std::string_view kListening = "listening on http://127.0.0.1:";
  const std::optional<std::string> line =
      p->process_->WaitForLine(std::string(kListening), true, std::chrono::seconds(60));
  if (!line) {
    *error = "engram serve did not start:\n" + p->Log();
    return nullptr;
  }
  p->port_ = std::atoi(line->c_str() + line->find(kListening) + kListening.size());
  return p;
}

ServeProcess::~ServeProcess() {
  process_.reset();  // kills it if it still runs
  std::error_code ignored;
  fs::remove_all(dir_, ignored);
}

std::string ServeProcess::Log() {
  process_->WaitFor(Millis(0));
  return process_->err();
}

std::size_t ServeProcess::RssKib() const {
  std::ifstream in("/proc/" + std::to_string(process_->pid()) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stoul(line.substr(6));
  }
  return 0;
}

std::size_t RaiseFileLimit() {
  rlimit limit{};
  getrlimit(RLIMIT_NOFILE, &limit);
  limit.rlim_cur = limit.rlim_max;
  setrlimit(RLIMIT_NOFILE, &limit);
  getrlimit(RLIMIT_NOFILE, &limit);
  return limit.rlim_cur == RLIM_INFINITY ? 1 << 20 : static_cast<std::size_t>(limit.rlim_cur);
}

std::string RawReply::Header(std::string_view name) const {
  const std::string needle = "\r\n" + Lower(name) + ":";
  const std::string lower = Lower(head);
  const std::size_t at = lower.find(needle);
  if (at == std::string::npos) return "";
  const std::size_t start = at + needle.size();
  const std::size_t end = head.find("\r\n", start);
  std::string value = head.substr(start, end - start);
  value.erase(0, value.find_first_not_of(' '));
  return value;
}

RawConnection::RawConnection(int port) {
  fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) return;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd_);
    fd_ = -1;
    return;
  }
  const int one = 1;
  setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

RawConnection::~RawConnection() {
  if (fd_ >= 0) close(fd_);
}

bool RawConnection::Send(std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

RawReply RawConnection::Read(Millis timeout) {
  const auto start = Clock::now();
  const auto deadline = start + timeout;
  RawReply reply;
  std::string& in = pending_;
  std::size_t head_end = std::string::npos;
  std::size_t need = std::string::npos;  // total bytes of head + body once known
  char chunk[65536];
  for (;;) {
    if (head_end == std::string::npos && (head_end = in.find("\r\n\r\n")) != std::string::npos) {
      head_end += 4;
      reply.head = in.substr(0, head_end);
      if (reply.head.rfind("HTTP/1.", 0) == 0 && reply.head.size() > 12) {
        reply.status = std::atoi(reply.head.c_str() + 9);
      }
      const std::string length = reply.Header("content-length");
      need = head_end + (length.empty() ? 0 : std::stoul(length));
    }
    if (need != std::string::npos && in.size() >= need) {
      reply.body = in.substr(head_end, need - head_end);
      in.erase(0, need);
      break;
    }
    pollfd p{fd_, POLLIN, 0};
    if (poll(&p, 1, RemainingMs(deadline)) <= 0) break;
    const ssize_t n = recv(fd_, chunk, sizeof chunk, 0);
    if (n <= 0) {
      reply.closed = true;
      break;
    }
    in.append(chunk, static_cast<std::size_t>(n));
  }
  if (!reply.closed && reply.status != 0) {
    // A reply that says it closes is followed by the close.
    if (Lower(reply.Header("connection")) == "close") reply.closed = WaitClosed(timeout);
  }
  reply.elapsed = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start);
  return reply;
}

RawReply RawConnection::Exchange(std::string_view request, Millis timeout) {
  const auto start = Clock::now();
  RawReply reply;
  if (!Send(request)) {
    reply = Read(Millis(1000));  // an early answer may be waiting
  } else {
    reply = Read(timeout);
  }
  reply.elapsed = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start);
  return reply;
}

RawReply RawConnection::SendBodyUntilAnswered(std::string_view head, std::string_view piece,
                                              std::size_t body_bytes, Millis timeout) {
  const auto start = Clock::now();
  const auto deadline = start + timeout;
  if (!Send(head)) return Read(Millis(1000));
  std::size_t sent = 0, offset = 0;
  while (sent < body_bytes && Clock::now() < deadline) {
    pollfd p{fd_, POLLIN | POLLOUT, 0};
    if (poll(&p, 1, RemainingMs(deadline)) <= 0) break;
    if (p.revents & (POLLIN | POLLHUP | POLLERR)) break;  // an answer, or the end
    const std::size_t n = std::min(piece.size() - offset, body_bytes - sent);
    const ssize_t w = send(fd_, piece.data() + offset, n, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) continue;
    if (w <= 0) break;
    sent += static_cast<std::size_t>(w);
    offset = (offset + static_cast<std::size_t>(w)) % piece.size();
  }
  RawReply reply = Read(std::max(Millis(1000), Millis(RemainingMs(deadline))));
  reply.elapsed = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start);
  return reply;
}

bool RawConnection::WaitClosed(Millis timeout) {
  const auto deadline = Clock::now() + timeout;
  char chunk[65536];
  for (;;) {
    pollfd p{fd_, POLLIN, 0};
    if (poll(&p, 1, RemainingMs(deadline)) <= 0) return false;
    const ssize_t n = recv(fd_, chunk, sizeof chunk, 0);
    if (n <= 0) return true;
  }
}

std::string Request(std::string_view method, std::string_view path, std::string_view body,
                    std::string_view extra_headers) {
  std::string r =
      std::string(method) + " " + std::string(path) + " HTTP/1.1\r\nHost: localhost\r\n";
  r += extra_headers;
  const std::string extra = Lower(extra_headers);
  if (!body.empty() || method == "POST" || method == "PUT" || method == "PATCH") {
    if (extra.find("content-type:") == std::string::npos) r += "Content-Type: application/json\r\n";
    if (extra.find("content-length:") == std::string::npos) {
      r += "Content-Length: " + std::to_string(body.size()) + "\r\n";
    }
  }
  r += "\r\n";
  r += body;
  return r;
}

}  // namespace engram::testing
