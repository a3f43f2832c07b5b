// Running the real `engram` binary from integration tests: a child process
// with its stdin, stdout and stderr on pipes, read until a line appears or
// the process ends, and killed (SIGKILL) if a test leaves it running.
#ifndef ENGRAM_TESTS_INTEGRATION_SUBPROCESS_H_
#define ENGRAM_TESTS_INTEGRATION_SUBPROCESS_H_

#include <chrono>
#include <csignal>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace engram::testing {

class Subprocess {
 public:
  // Starts `argv` (argv[0] a path) with its three streams on pipes.
  explicit Subprocess(const std::vector<std::string>& argv) {
    int in[2], out[2], err[2];
    if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0 ||
        ::pipe2(err, O_CLOEXEC) != 0) {
      return;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], 0);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_adddup2(&actions, err[1], 2);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    if (posix_spawn(&pid_, args[0], &actions, nullptr, args.data(), environ) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&actions);
    ::close(in[0]);
    ::close(out[1]);
    ::close(err[1]);
    stdin_ = in[1];
    stdout_ = out[0];
    stderr_ = err[0];
  }
  ~Subprocess() {
    if (pid_ > 0 && !exit_code_) {
      ::kill(pid_, SIGKILL);
      Wait();
    }
    for (int fd : {stdin_, stdout_, stderr_}) {
      if (fd >= 0) ::close(fd);
    }
  }
  Subprocess(const Subprocess&) = delete;
  Subprocess& operator=(const Subprocess&) = delete;

  pid_t pid() const { return pid_; }
  bool started() const { return pid_ > 0; }

  void Write(const std::string& text) {
    std::size_t done = 0;
    while (done < text.size()) {
      const ssize_t n = ::write(stdin_, text.data() + done, text.size() - done);
      if (n <= 0) return;
      done += static_cast<std::size_t>(n);
    }
  }
  void CloseStdin() {
    if (stdin_ >= 0) ::close(stdin_);
    stdin_ = -1;
  }
  void Signal(int signal) { ::kill(pid_, signal); }

  // Reads until stdout (or stderr, when `from_stderr`) holds a complete line
  // containing `needle`; returns that line, or nullopt at end of stream or
  // after `timeout`. Everything read is kept in out()/err().
  std::optional<std::string> WaitForLine(const std::string& needle, bool from_stderr,
                                         std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    std::string& text = from_stderr ? err_ : out_;
    std::size_t scanned = from_stderr ? err_scanned_ : out_scanned_;
    while (true) {
      for (std::size_t end; (end = text.find('\n', scanned)) != std::string::npos;) {
        std::string line = text.substr(scanned, end - scanned);
        scanned = end + 1;
        (from_stderr ? err_scanned_ : out_scanned_) = scanned;
        if (line.find(needle) != std::string::npos) return line;
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0 || !Pump(static_cast<int>(left.count()))) return std::nullopt;
    }
  }

  // Waits for the exit (reading the streams meanwhile); the exit code, or
  // 128 + the signal.
  int Wait() {
    while (Pump(100)) {
    }
    if (!exit_code_) {
      int status = 0;
      ::waitpid(pid_, &status, 0);
      exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    return *exit_code_;
  }

  const std::string& out() const { return out_; }
  const std::string& err() const { return err_; }

 private:
  // Reads what is available on stdout and stderr within `ms`; false once
  // both have ended.
  bool Pump(int ms) {
    pollfd fds[2] = {{stdout_, POLLIN, 0}, {stderr_, POLLIN, 0}};
    if (stdout_ < 0 && stderr_ < 0) return false;
    if (::poll(fds, 2, ms) < 0) return false;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || (fds[i].revents & (POLLIN | POLLHUP)) == 0) continue;
      char buffer[65536];
      const ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
      if (n > 0) {
        (i == 0 ? out_ : err_).append(buffer, static_cast<std::size_t>(n));
      } else {
        ::close(fds[i].fd);
        (i == 0 ? stdout_ : stderr_) = -1;
      }
    }
    return stdout_ >= 0 || stderr_ >= 0;
  }

  pid_t pid_ = -1;
  int stdin_ = -1, stdout_ = -1, stderr_ = -1;
  std::string out_, err_;
  std::size_t out_scanned_ = 0, err_scanned_ = 0;
  std::optional<int> exit_code_;
};

// Runs `argv` to completion with `input` on stdin.
struct Finished {
  int code;
  std::string out, err;
};
inline Finished RunToEnd(const std::vector<std::string>& argv, const std::string& input = "") {
  Subprocess p(argv);
  p.Write(input);
  p.CloseStdin();
  const int code = p.Wait();
  return {code, p.out(), p.err()};
}

}  // namespace engram::testing

#endif  // ENGRAM_TESTS_INTEGRATION_SUBPROCESS_H_
