// A private PostgreSQL server for tests: initdb into a fresh temporary
// directory, started on a Unix socket in that directory (no TCP), stopped and
// removed when the object goes away. PostgreSQL refuses to run as root, so
// when the test runs as root the server runs as the unprivileged `postgres`
// user that Debian's package creates (or `nobody`). A test may stop it and
// start it again on the same data and socket (a server restart).
#ifndef ENGRAM_TESTS_SUPPORT_POSTGRES_SERVER_H_
#define ENGRAM_TESTS_SUPPORT_POSTGRES_SERVER_H_

#include <memory>
#include <string>

namespace engram::testing {

class PostgresServer {
 public:
  // Starts a server from the PostgreSQL 15 binaries (ENGRAM_PG_BINDIR, else
  // /usr/lib/postgresql/15/bin). nullptr with `*error` set when it cannot.
  static std::unique_ptr<PostgresServer> Start(std::string* error);
  ~PostgresServer();
  PostgresServer(const PostgresServer&) = delete;
  PostgresServer& operator=(const PostgresServer&) = delete;

  // A libpq connection string for the server's `postgres` database.
  const std::string& conninfo() const { return conninfo_; }
  // A postgresql:// URL for `database` on the server (what `--store` takes).
  std::string Url(const std::string& database) const;
  // Stop: a fast shutdown (sessions are ended, nothing committed is lost);
  // Resume starts the server again on the same data directory and socket.
  // Whether it worked; the server's log in `*error` when not.
  bool Stop(std::string* error);
  bool Resume(std::string* error);
  // The directory of the server's Unix socket (its host in a connection
  // string), and the user to connect as.
  const std::string& socket_dir() const { return dir_; }
  static constexpr const char* kUser = "engram";

 private:
  PostgresServer() = default;
  // Runs `pg_ctl -D <data> ARGS` as the server's user; its exit code.
  int Control(const std::string& args) const;
  std::string dir_, bindir_, user_, conninfo_;
  bool started_ = false;
};

}  // namespace engram::testing

#endif  // ENGRAM_TESTS_SUPPORT_POSTGRES_SERVER_H_
