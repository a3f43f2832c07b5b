#include "tests/support/store_places.h"

#include <atomic>
#include <memory>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "storage/testing/test_dir.h"
#include "tests/support/postgres_server.h"

namespace engram::storage::testing {
namespace {

class SqlitePlace : public StorePlace {
 public:
  StatusOr<std::unique_ptr<Store>> Open() override { return OpenSqliteStore(dir_.path()); }
  std::string location() const override { return dir_.path(); }

 private:
  TestDir dir_;
};

// The server all places of this process share: started by the first place,
// stopped when the tests end.
class ServerEnvironment : public ::testing::Environment {
 public:
  engram::testing::PostgresServer* Get(std::string* error) {
    if (server_ == nullptr && error_.empty()) {
      server_ = engram::testing::PostgresServer::Start(&error_);
    }
    *error = error_;
    return server_.get();
  }
  void TearDown() override { server_.reset(); }

 private:
  std::unique_ptr<engram::testing::PostgresServer> server_;
  std::string error_;
};
ServerEnvironment* const kServer =
    static_cast<ServerEnvironment*>(::testing::AddGlobalTestEnvironment(new ServerEnvironment()));

}  // namespace

StoreKind SqliteKind() {
  return {"sqlite", [] { return std::unique_ptr<StorePlace>(new SqlitePlace()); }};
}

StoreKind PostgresKind() {
  return {"postgres", []() -> std::unique_ptr<StorePlace> { return PostgresPlace::Make(); }};
}

std::unique_ptr<PostgresPlace> PostgresPlace::Make() {
  std::string error;
  engram::testing::PostgresServer* server = kServer->Get(&error);
  if (server == nullptr) {
    ADD_FAILURE() << error;
    return nullptr;
  }
  static std::atomic<int> counter{0};
  std::unique_ptr<PostgresPlace> place(new PostgresPlace());
  place->database_ = fmt::format("engram_test_{}_{}", ::getpid(), counter++);
  const std::string created =
      engram::testing::ExecuteSql(server->conninfo(), "CREATE DATABASE " + place->database_);
  if (!created.empty()) {
    ADD_FAILURE() << "CREATE DATABASE: " << created;
    return nullptr;
  }
  place->conninfo_ = server->Conninfo(place->database_);
  place->url_ = server->Url(place->database_);
  return place;
}

PostgresPlace::~PostgresPlace() {
  std::string error;
  if (engram::testing::PostgresServer* server = kServer->Get(&error)) {
    engram::testing::ExecuteSql(server->conninfo(),
                                "DROP DATABASE IF EXISTS " + database_ + " WITH (FORCE)");
  }
}

std::string PostgresPlace::Admin(const std::string& sql) const {
  return engram::testing::ExecuteSql(conninfo_, sql);
}

}  // namespace engram::storage::testing
