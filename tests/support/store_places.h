// Where the store tests open their stores: a fresh SQLite directory or a fresh
// database on a private PostgreSQL 15 server (tests/support/postgres_server.h)
// started once per test binary and stopped at its end. The contract tests run
// over both (store_contract_test.cc).
#ifndef ENGRAM_TESTS_SUPPORT_STORE_PLACES_H_
#define ENGRAM_TESTS_SUPPORT_STORE_PLACES_H_

#include <functional>
#include <memory>
#include <ostream>
#include <string>

#include "engram/status.h"
#include "storage/store.h"

namespace engram::storage::testing {

// One empty store for one test; it may be opened, closed and opened again,
// and is removed with the place.
class StorePlace {
 public:
  virtual ~StorePlace() = default;
  virtual StatusOr<std::unique_ptr<Store>> Open() = 0;
  // What Engine::Open and the CLI take for it: a directory or a URL.
  virtual std::string location() const = 0;
};

struct StoreKind {
  std::string name;  // "sqlite", "postgres": the test name suffix
  std::function<std::unique_ptr<StorePlace>()> make;
};

// Names the kind in GoogleTest's messages.
inline void PrintTo(const StoreKind& kind, std::ostream* out) {
  *out << kind.name;
}

StoreKind SqliteKind();
StoreKind PostgresKind();

// A new, empty database on the shared test server, dropped when the place
// goes; with its libpq connection string. Fails the test (nullptr) when the
// server cannot start.
class PostgresPlace : public StorePlace {
 public:
  static std::unique_ptr<PostgresPlace> Make();
  ~PostgresPlace() override;
  StatusOr<std::unique_ptr<Store>> Open() override { return OpenPostgresStore(conninfo_); }
  std::string location() const override { return url_; }
  const std::string& conninfo() const { return conninfo_; }
  // Runs `sql` on the place's database through its own connection; the error
  // text, empty on success. For tests that reach behind the store.
  std::string Admin(const std::string& sql) const;

 private:
  PostgresPlace() = default;
  std::string database_, conninfo_, url_;
};

}  // namespace engram::storage::testing

#endif  // ENGRAM_TESTS_SUPPORT_STORE_PLACES_H_
