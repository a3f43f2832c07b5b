#include "storage/postgres/connection.h"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include <endian.h>
#include <fmt/format.h>
#include <poll.h>

#include "base/status.h"
#include "storage/postgres/statements.h"

namespace engram::storage::postgres {
namespace {

constexpr Oid kByteaOid = 17;
constexpr Oid kInt8Oid = 20;
constexpr int kBinary = 1;

// libpq's messages end in a newline.
std::string_view Trimmed(const char* message) {
  std::string_view m = message ? message : "";
  while (!m.empty() && (m.back() == '\n' || m.back() == ' ')) m.remove_suffix(1);
  return m;
}

bool Failed(const PGresult* r) {
  const ExecStatusType s = PQresultStatus(r);
  return s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK && s != PGRES_SINGLE_TUPLE;
}

}  // namespace

Params& Params::Bytes(std::string_view bytes) {
  values_.push_back(bytes.empty() ? "" : bytes.data());  // a null pointer would be NULL
  lengths_.push_back(static_cast<int>(bytes.size()));
  formats_.push_back(kBinary);
  return *this;
}

Params& Params::Int(std::int64_t value) {
  const std::uint64_t big = htobe64(static_cast<std::uint64_t>(value));
  std::memcpy(ints_.emplace_back().data(), &big, sizeof(big));
  values_.push_back(ints_.back().data());
  lengths_.push_back(8);
  formats_.push_back(kBinary);
  return *this;
}

std::string_view CellBytes(const PGresult* r, int row, int column) {
  if (PQgetisnull(r, row, column)) return {};
  return {PQgetvalue(r, row, column), static_cast<std::size_t>(PQgetlength(r, row, column))};
}

Params& Params::Null() {
  values_.push_back(nullptr);
  lengths_.push_back(0);
  formats_.push_back(kBinary);
  return *this;
}

std::int64_t CellInt(const PGresult* r, int row, int column) {
  std::uint64_t big = 0;
  if (PQgetlength(r, row, column) == sizeof(big)) {
    std::memcpy(&big, PQgetvalue(r, row, column), sizeof(big));
  }
  return static_cast<std::int64_t>(be64toh(big));
}

StatusOr<std::unique_ptr<Connection>> Connection::Open(const std::string& conninfo) {
  char* parse_error = nullptr;
  PQconninfoOption* parsed = PQconninfoParse(conninfo.c_str(), &parse_error);
  if (parsed == nullptr) {
    std::string message = parse_error ? std::string(Trimmed(parse_error)) : "out of memory";
    PQfreemem(parse_error);
    return Status::InvalidArgument("the PostgreSQL connection string: " + message);
  }
  PQconninfoFree(parsed);
  // The connection string is expanded in place of dbname.
  const char* keywords[] = {"dbname", nullptr};
  const char* values[] = {conninfo.c_str(), nullptr};
  std::unique_ptr<Connection> c(new Connection(PQconnectdbParams(keywords, values, 1)));
  if (c->conn_ == nullptr) return Status::ResourceExhausted("libpq: out of memory");
  if (c->lost()) {
    return Status::IoError(
        fmt::format("connect to PostgreSQL: {}", Trimmed(PQerrorMessage(c->conn_))));
  }
  // Server notices ("relation ... already exists, skipping") are not errors
  // and would only clutter the output of the process that opened the store.
  PQsetNoticeProcessor(
      c->conn_, [](void*, const char*) {}, nullptr);
  // An acknowledged batch must survive a server crash: never weaker than `on`
  // (an operator's remote_write/remote_apply stays).
  ASSIGN_OR_RETURN(Result mode, c->Query("SELECT current_setting('synchronous_commit')",
                                         "read synchronous_commit"));
  const std::string_view value = CellBytes(mode.get(), 0, 0);
  if (value == "off" || value == "local") {
    RETURN_IF_ERROR(c->Exec("SET synchronous_commit = on", "make commits durable"));
  }
  RETURN_IF_ERROR(Migrate(*c));
  RETURN_IF_ERROR(c->Prepare());
  return c;
}

StatusOr<bool> Connection::AwaitNotification(std::chrono::milliseconds timeout) {
  auto take = [&] {
    bool any = false;
    while (PGnotify* n = PQnotifies(conn_)) {
      any = true;
      PQfreemem(n);
    }
    return any;
  };
  if (take()) return true;
  pollfd fd{PQsocket(conn_), POLLIN, 0};
  if (fd.fd < 0) return Error(nullptr, "wait for a change");
  const int ready = poll(&fd, 1, static_cast<int>(timeout.count()));
  if (ready < 0 && errno != EINTR) {
    return Status::IoError(fmt::format("wait for a change: {}", std::strerror(errno)));
  }
  if (ready <= 0) return false;
  if (!PQconsumeInput(conn_)) return Error(nullptr, "wait for a change");
  return take();
}

Status Connection::Prepare() {
  for (int i = 0; i < static_cast<int>(Sql::kCount); ++i) {
    const Statement& s = StatementFor(static_cast<Sql>(i));
    Oid types[8];
    const int n = static_cast<int>(std::strlen(s.types));
    for (int p = 0; p < n; ++p) types[p] = s.types[p] == 'b' ? kByteaOid : kInt8Oid;
    Result r(PQprepare(conn_, s.name, s.sql, n, types));
    if (r == nullptr || Failed(r.get())) {
      return Error(r.get(), fmt::format("prepare statement {}", s.name));
    }
  }
  return Status::Ok();
}

StatusOr<Result> Connection::Run(Sql sql, const Params& params, std::string_view what) {
  Result r(PQexecPrepared(conn_, StatementFor(sql).name, params.size(), params.values(),
                          params.lengths(), params.formats(), kBinary));
  if (r == nullptr || Failed(r.get())) return Error(r.get(), what);
  return r;
}

StatusOr<Result> Connection::Query(const char* query, std::string_view what) {
  Result r(PQexecParams(conn_, query, 0, nullptr, nullptr, nullptr, nullptr, kBinary));
  if (r == nullptr || Failed(r.get())) return Error(r.get(), what);
  return r;
}

Status Connection::Exec(const char* commands, std::string_view what) {
  Result r(PQexec(conn_, commands));
  if (r == nullptr || Failed(r.get())) return Error(r.get(), what);
  return Status::Ok();
}

Status Connection::Send(Sql sql, const Params& params, std::string_view what) {
  if (!PQsendQueryPrepared(conn_, StatementFor(sql).name, params.size(), params.values(),
                           params.lengths(), params.formats(), kBinary) ||
      !PQsetSingleRowMode(conn_)) {
    Status status = Error(nullptr, what);
    Drain();
    return status;
  }
  return Status::Ok();
}

StatusOr<Result> Connection::Next(std::string_view what) {
  Result r(PQgetResult(conn_));
  if (r == nullptr) return Error(nullptr, what);
  if (PQresultStatus(r.get()) == PGRES_SINGLE_TUPLE) return r;
  if (Failed(r.get())) {
    Status status = Error(r.get(), what);
    Drain();
    return status;
  }
  Drain();  // the final, empty PGRES_TUPLES_OK: read to the end of the query
  return Result();
}

void Connection::Drain() {
  while (PGresult* r = PQgetResult(conn_)) PQclear(r);
}

bool Connection::in_transaction() const {
  const PGTransactionStatusType s = PQtransactionStatus(conn_);
  return s == PQTRANS_INTRANS || s == PQTRANS_INERROR;
}

Status Connection::Error(const PGresult* r, std::string_view what) const {
  const char* sqlstate = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : nullptr;
  const std::string_view state = sqlstate ? sqlstate : "";
  const char* constraint = r ? PQresultErrorField(r, PG_DIAG_CONSTRAINT_NAME) : nullptr;
  violated_ = constraint ? constraint : "";
  std::string_view message = r ? Trimmed(PQresultErrorMessage(r)) : "";
  if (message.empty()) message = Trimmed(PQerrorMessage(conn_));
  const char* host = PQhost(conn_);
  std::string full =
      fmt::format("{}: {}{} (database '{}' on {})", what, message,
                  state.empty() ? "" : fmt::format(" [SQLSTATE {}]", state),
                  PQdb(conn_) ? PQdb(conn_) : "", host && host[0] ? host : "the default host");
  if (lost() || state.substr(0, 2) == "08" || state.substr(0, 2) == "57") {
    return Status::IoError(std::move(full));
  }
  if (state == "XX001" || state == "XX002" || state.substr(0, 2) == "42") {
    // Damaged data, or a database missing the tables it should have.
    return Status::Corruption(std::move(full));
  }
  if (state.substr(0, 2) == "53" || state.substr(0, 2) == "54") {
    return Status::ResourceExhausted(std::move(full));
  }
  if (state.substr(0, 2) == "23") return Status::Internal(std::move(full));
  return Status::IoError(std::move(full));
}

}  // namespace engram::storage::postgres
