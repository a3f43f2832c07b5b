// The real `engram serve` as a child process, and raw HTTP/1.1 over loopback
// sockets for the attack suite (server_attack_test.cc): requests written byte
// for byte as a hostile client would, replies read with a deadline.
#ifndef ENGRAM_TESTS_INTEGRATION_SERVE_PROCESS_H_
#define ENGRAM_TESTS_INTEGRATION_SERVE_PROCESS_H_

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "integration/subprocess.h"

namespace engram::testing {

using Millis = std::chrono::milliseconds;

// `engram serve --db <temporary dir> --listen 127.0.0.1:0 ARGS...` (ARGS
// naming a store, --store URL or --db DIR, replace the temporary one). The
// binary is ENGRAM_BIN from the environment, or the one this test was built
// with; it runs with a small ASan quarantine (8 MiB) so that freed memory is
// not counted as growth. Killed (SIGKILL) when destroyed if still running.
class ServeProcess {
 public:
  // Starts the server and waits (up to 60 s) until it says where it
  // listens; nullptr (with its output in `error`) when it does not.
  static std::unique_ptr<ServeProcess> Start(const std::vector<std::string>& args,
                                             std::string* error);
  ~ServeProcess();

  int port() const { return port_; }
  // What it has logged so far.
  std::string Log();
  // VmRSS from /proc/PID/status, in KiB (0 when it cannot be read).
  std::size_t RssKib() const;
  void Signal(int signal) { process_->Signal(signal); }
  // The exit code once the process exits within `timeout` (128 + N when
  // killed by signal N); nullopt while it is still running.
  std::optional<int> WaitExit(Millis timeout) { return process_->WaitFor(timeout); }

 private:
  ServeProcess() = default;
  std::filesystem::path dir_;
  std::unique_ptr<Subprocess> process_;
  int port_ = 0;
};

// The open-file limit raised to its hard value; returns the soft limit.
std::size_t RaiseFileLimit();

struct RawReply {
  int status = 0;    // 0: no status line arrived
  std::string head;  // status line and headers
  std::string body;
  bool closed = false;  // the server closed the connection after (or instead of) the reply
  std::chrono::microseconds elapsed{0};             // from the first byte written to the reply read
  std::string Header(std::string_view name) const;  // case-insensitive, "" when absent
};

// One client socket to 127.0.0.1:port.
class RawConnection {
 public:
  explicit RawConnection(int port);  // connects (blocking); ok() says whether it did
  ~RawConnection();
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  bool ok() const { return fd_ >= 0; }
  int fd() const { return fd_; }
  // Writes all of `data`; false when the connection fails (reset, closed).
  bool Send(std::string_view data);
  // Reads one response (head, then Content-Length bytes of body) within
  // `timeout`.
  RawReply Read(Millis timeout);
  // Send, then Read.
  RawReply Exchange(std::string_view request, Millis timeout = Millis(10000));
  // Writes `head`, then `body_bytes` bytes made by repeating `piece`, while
  // watching for an early reply; stops writing at the first reply or write
  // error and returns the reply (status 0 if none came within `timeout`).
  RawReply SendBodyUntilAnswered(std::string_view head, std::string_view piece,
                                 std::size_t body_bytes, Millis timeout);
  // Whether the server has closed the connection within `timeout` (reads
  // and drops anything it sends).
  bool WaitClosed(Millis timeout);

 private:
  int fd_ = -1;
  std::string pending_;  // bytes read past the last reply
};

// "METHOD PATH HTTP/1.1" with Host: localhost, the extra header lines (each
// ending in CRLF) and, with a body, Content-Type: application/json and its
// Content-Length.
std::string Request(std::string_view method, std::string_view path, std::string_view body = "",
                    std::string_view extra_headers = "");

}  // namespace engram::testing

#endif  // ENGRAM_TESTS_INTEGRATION_SERVE_PROCESS_H_
