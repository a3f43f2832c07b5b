// A private PostgreSQL server for tests: initdb into a fresh temporary
// directory, started on a Unix socket in that directory (no TCP), stopped and
// removed when the object goes away. PostgreSQL refuses to run as root, so
// when the test runs as root the server runs as the unprivileged `postgres`
// user that Debian's package creates (or `nobody`). Tests run it without
// fsync (durability is not what they check); a benchmark asks for `durable`.
// A test may stop it and start it again on the same data and socket (a
// server restart).
#ifndef ENGRAM_TESTS_SUPPORT_POSTGRES_SERVER_H_
#define ENGRAM_TESTS_SUPPORT_POSTGRES_SERVER_H_

#include <memory>
#include <string>

namespace engram::testing {

class PostgresServer {
 public:
  // Starts a server from the PostgreSQL 15 binaries (ENGRAM_PG_BINDIR, else
  // /usr/lib/postgresql/15/bin). nullptr with `*error` set when it cannot.
  // Without `durable` it runs with fsync=off and full_page_writes=off; with
  // it, PostgreSQL's defaults (fsync=on, full_page_writes=on,
  // synchronous_commit=on).
  static std::unique_ptr<PostgresServer> Start(std::string* error, bool durable = false);
  ~PostgresServer();
  PostgresServer(const PostgresServer&) = delete;
  PostgresServer& operator=(const PostgresServer&) = delete;

  // A libpq connection string for the server's `postgres` database.
  const std::string& conninfo() const { return conninfo_; }
  // The directory of the server's Unix socket (its host in a connection
  // string), and the user to connect as.
  const std::string& socket_dir() const { return dir_; }
  static constexpr const char* kUser = "engram";

  // A libpq connection string and a postgresql:// URL for `database`.
  std::string Conninfo(const std::string& database) const;
  std::string Url(const std::string& database) const;

  // Stop: a fast shutdown (sessions are ended, nothing committed is lost);
  // Resume starts the server again on the same data directory, socket and
  // settings. Whether it worked; the server's log in `*error` when not.
  bool Stop(std::string* error);
  bool Resume(std::string* error);

 private:
  PostgresServer() = default;
  // Runs `pg_ctl -D <data> ARGS` as the server's user; its exit code.
  int Control(const std::string& args) const;
  std::string dir_, bindir_, user_, conninfo_, settings_;
  bool started_ = false;
};

// Runs `sql` (fixed text: nothing user-supplied) over `conninfo` on a
// connection of its own; the error text, empty on success. `first`, when
// given, receives the first column of the first row ("" when none).
std::string ExecuteSql(const std::string& conninfo, const std::string& sql,
                       std::string* first = nullptr);

}  // namespace engram::testing

#endif  // ENGRAM_TESTS_SUPPORT_POSTGRES_SERVER_H_
