#include "tests/support/postgres_server.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <libpq-fe.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

namespace engram::testing {
namespace {

// Runs a shell command (built only from paths this file made); the exit code.
int Run(const std::string& command) {
  return std::system(command.c_str());  // NOLINT(cert-env33-c): fixed paths only
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

std::unique_ptr<PostgresServer> PostgresServer::Start(std::string* error, bool durable) {
  std::unique_ptr<PostgresServer> server(new PostgresServer());
  const char* bindir = std::getenv("ENGRAM_PG_BINDIR");
  server->bindir_ = bindir ? bindir : "/usr/lib/postgresql/15/bin";
  if (!std::filesystem::exists(server->bindir_ + "/initdb")) {
    *error = "no PostgreSQL at " + server->bindir_ + " (apt-get install postgresql)";
    return nullptr;
  }
  char tmpl[] = "/tmp/engram-pg-XXXXXX";
  if (!mkdtemp(tmpl)) {
    *error = "mkdtemp failed";
    return nullptr;
  }
  server->dir_ = tmpl;
  std::string as_user;
  if (geteuid() == 0) {
    for (const char* name : {"postgres", "nobody"}) {
      if (const passwd* pw = getpwnam(name)) {
        server->user_ = name;
        if (chown(tmpl, pw->pw_uid, pw->pw_gid) != 0) {
          *error = "cannot hand " + server->dir_ + " to " + name;
          return nullptr;
        }
        break;
      }
    }
    if (server->user_.empty()) {
      *error = "running as root and no unprivileged user (postgres, nobody) to run PostgreSQL";
      return nullptr;
    }
    as_user = "runuser -u " + server->user_ + " -- ";
  }
  const std::string data = server->dir_ + "/data";
  if (Run(as_user + server->bindir_ + "/initdb -D " + data + " -U " + std::string(kUser) +
          " --auth=trust --no-sync -E UTF8 --locale=C.UTF-8 > " + server->dir_ +
          "/initdb.log 2>&1") != 0) {
    *error = "initdb failed: " + ReadFile(server->dir_ + "/initdb.log");
    return nullptr;
  }
  server->settings_ = durable ? "" : " -c fsync=off -c full_page_writes=off";
  std::string log;
  if (!server->Resume(&log)) {
    *error = "pg_ctl start failed: " + log;
    return nullptr;
  }
  server->conninfo_ = server->Conninfo("postgres");
  return server;
}

std::string PostgresServer::Conninfo(const std::string& database) const {
  return "host=" + dir_ + " dbname=" + database + " user=" + kUser;
}

std::string PostgresServer::Url(const std::string& database) const {
  std::string host;  // the socket directory, '/' as %2F
  for (char c : dir_) host += c == '/' ? std::string("%2F") : std::string(1, c);
  return std::string("postgresql://") + kUser + "@" + host + "/" + database;
}

std::string ExecuteSql(const std::string& conninfo, const std::string& sql, std::string* first) {
  PGconn* conn = PQconnectdb(conninfo.c_str());
  std::string error;
  if (first != nullptr) first->clear();
  if (PQstatus(conn) != CONNECTION_OK) {
    error = PQerrorMessage(conn);
  } else {
    PQsetNoticeProcessor(
        conn, [](void*, const char*) {}, nullptr);  // "skipping" and the like
    PGresult* r = PQexec(conn, sql.c_str());
    const ExecStatusType s = PQresultStatus(r);
    if (s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK) {
      error = PQresultErrorMessage(r);
    } else if (first != nullptr && s == PGRES_TUPLES_OK && PQntuples(r) > 0) {
      *first = PQgetvalue(r, 0, 0);
    }
    PQclear(r);
  }
  PQfinish(conn);
  return error;
}

PostgresServer::~PostgresServer() {
  if (started_) Control("-m immediate -w stop > /dev/null 2>&1");
  std::error_code ignored;
  if (!dir_.empty()) std::filesystem::remove_all(dir_, ignored);
}

int PostgresServer::Control(const std::string& args) const {
  const std::string as_user = user_.empty() ? "" : "runuser -u " + user_ + " -- ";
  return Run(as_user + bindir_ + "/pg_ctl -D " + dir_ + "/data " + args);
}

bool PostgresServer::Stop(std::string* error) {
  if (Control("-m fast -w -t 60 stop > /dev/null 2>&1") != 0) {
    *error = "pg_ctl stop failed: " + ReadFile(dir_ + "/server.log");
    return false;
  }
  started_ = false;
  return true;
}

bool PostgresServer::Resume(std::string* error) {
  if (Control("-l " + dir_ + "/server.log -w -t 60 -o \"-k " + dir_ + " -c listen_addresses=''" +
              settings_ + "\" start > /dev/null") != 0) {
    *error = ReadFile(dir_ + "/server.log");
    return false;
  }
  started_ = true;
  return true;
}

}  // namespace engram::testing
