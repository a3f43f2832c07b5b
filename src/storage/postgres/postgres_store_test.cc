// The PostgreSQL store's own behaviour: connection strings, schema versions,
// and lost connections. The contract it shares with the SQLite store is
// store_contract_test.cc.
#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <libpq-fe.h>

#include "storage/postgres/statements.h"
#include "storage/store.h"
#include "storage/testing/test_dir.h"
#include "tests/support/store_places.h"

namespace engram::storage {
namespace {

using testing::PostgresPlace;
using testing::TestRecord;

// A connection of the test's own, beside the store's.
class Session {
 public:
  explicit Session(const std::string& conninfo) : conn_(PQconnectdb(conninfo.c_str())) {}
  ~Session() { PQfinish(conn_); }
  // The first column of the first row, or "ERROR: ..." / "" (no rows).
  std::string Query(const std::string& sql) {
    PGresult* r = PQexec(conn_, sql.c_str());
    std::string out;
    if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK) {
      out = std::string("ERROR: ") + PQresultErrorMessage(r);
    } else if (PQntuples(r) > 0) {
      out = PQgetvalue(r, 0, 0);
    }
    PQclear(r);
    return out;
  }

 private:
  PGconn* conn_;
};

TEST(PostgresStoreTest, AMalformedConnectionStringIsAnInvalidArgument) {
  auto store = OpenPostgresStore("postgresql://engram@%zz/db");
  EXPECT_EQ(store.status().code(), StatusCode::kInvalidArgument) << store.status().ToString();
  store = OpenPostgresStore("just words");
  EXPECT_EQ(store.status().code(), StatusCode::kInvalidArgument) << store.status().ToString();
}

TEST(PostgresStoreTest, AnUnreachableServerIsAnIoError) {
  testing::TestDir dir;  // a socket directory with no server
  auto store = OpenPostgresStore("host=" + dir.path() + " dbname=x connect_timeout=5");
  EXPECT_EQ(store.status().code(), StatusCode::kIoError) << store.status().ToString();
  EXPECT_NE(store.status().message().find("connect to PostgreSQL"), std::string::npos);
}

TEST(PostgresStoreTest, SchemaIsVersionedAndANewerOneRefused) {
  auto place = PostgresPlace::Make();
  ASSERT_NE(place, nullptr);
  ASSERT_TRUE(place->Open().ok());
  ASSERT_TRUE(place->Open().ok());  // an opener of a current schema migrates nothing
  Session admin(place->conninfo());
  std::string versions;
  for (std::int64_t v = 1; v <= postgres::kPostgresSchemaVersion; ++v) {
    versions += (v > 1 ? "," : "") + std::to_string(v);
  }
  EXPECT_EQ(admin.Query("SELECT string_agg(version::text, ',' ORDER BY version) "
                        "FROM engram_schema_version"),
            versions);
  EXPECT_EQ(admin.Query("INSERT INTO engram_schema_version(version) VALUES (" +
                        std::to_string(postgres::kPostgresSchemaVersion + 1) + ")"),
            "");
  auto store = place->Open();
  EXPECT_EQ(store.status().code(), StatusCode::kFailedPrecondition) << store.status().ToString();
  EXPECT_NE(store.status().message().find("newer"), std::string::npos);
}

TEST(PostgresStoreTest, ConcurrentOpenersMigrateOnce) {
  auto place = PostgresPlace::Make();
  ASSERT_NE(place, nullptr);
  std::vector<std::thread> threads;
  std::vector<Status> results(4);
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&, i] { results[i] = place->Open().status(); });
  }
  for (auto& t : threads) t.join();
  for (const Status& s : results) EXPECT_TRUE(s.ok()) << s.ToString();
  Session admin(place->conninfo());
  EXPECT_EQ(admin.Query("SELECT count(*) FROM engram_schema_version"),
            std::to_string(postgres::kPostgresSchemaVersion));
}

// Ends every connection to the place's database but the caller's own.
std::string TerminateOthers(Session& admin, const std::string& where = "true") {
  return admin.Query(
      "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = "
      "current_database() AND pid <> pg_backend_pid() AND " +
      where);
}

TEST(PostgresStoreTest, AConnectionLostMidTransactionLeavesNothing) {
  auto place = PostgresPlace::Make();
  ASSERT_NE(place, nullptr);
  auto store = place->Open().value();
  ASSERT_TRUE(store->CreateCollection({"c", "old"}).ok());
  WriteBatch first;
  first.puts = {TestRecord(0)};
  ASSERT_EQ(store->Apply("c", first).value(), 2u);  // the creation took 1

  // A second session holds the collection's row, so the batch, which has
  // taken its sequence, waits to record it as the collection's last; its
  // connection is then ended.
  Session locker(place->conninfo());
  ASSERT_EQ(locker.Query("BEGIN"), "");
  ASSERT_EQ(locker.Query("SELECT 1 FROM engram_collections FOR UPDATE"), "1");
  WriteBatch second;
  second.puts = {TestRecord(1), TestRecord(2)};
  second.removes = {"id-0"};
  second.config = "new";
  StatusOr<std::uint64_t> applied = Status::Internal("not run");
  std::thread writer([&] { applied = store->Apply("c", second); });
  Session admin(place->conninfo());
  std::string ended = "0";
  for (int i = 0; i < 1000 && ended == "0"; ++i) {
    ended = TerminateOthers(admin, "wait_event_type = 'Lock'");
    if (ended == "0") std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  writer.join();
  ASSERT_EQ(ended, "1") << "the batch never waited on the lock";
  ASSERT_EQ(locker.Query("ROLLBACK"), "");
  EXPECT_EQ(applied.status().code(), StatusCode::kIoError) << applied.status().ToString();
  EXPECT_NE(applied.status().message().find("nothing of it was applied"), std::string::npos)
      << applied.status().ToString();

  // Nothing of it is there; reads and writes go on on a new connection.
  EXPECT_EQ(store->LastSequence().value(), 2u);
  EXPECT_EQ(store->ListCollections().value()[0].config, "old");
  EXPECT_TRUE(store->GetRecord("c", "id-0").value().has_value());
  EXPECT_FALSE(store->GetRecord("c", "id-1").value().has_value());
  EXPECT_EQ(store->ReadChanges(2, 10).value().size(), 0u);
  EXPECT_EQ(store->Apply("c", second).value(), 3u);
  EXPECT_EQ(store->ListCollections().value()[0].config, "new");
}

TEST(PostgresStoreTest, AConnectionEndedWhileIdleIsReplaced) {
  auto place = PostgresPlace::Make();
  ASSERT_NE(place, nullptr);
  auto store = place->Open().value();
  ASSERT_TRUE(store->CreateCollection({"c", "{}"}).ok());
  Session admin(place->conninfo());
  ASSERT_EQ(TerminateOthers(admin), "1");
  EXPECT_EQ(store->ListCollections().value().size(), 1u);  // a read reconnects
  ASSERT_EQ(TerminateOthers(admin), "1");
  WriteBatch batch;
  batch.puts = {TestRecord(0)};
  EXPECT_EQ(store->Apply("c", batch).value(), 2u);  // so does a write that sent nothing yet
  EXPECT_EQ(store->Apply("c", batch).value(), 3u);
}

}  // namespace
}  // namespace engram::storage
